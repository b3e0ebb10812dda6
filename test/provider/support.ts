/**
 * What the reference provider's tests share: a root folder of real documents (from test/corpus)
 * with access files, tickets, hidden entries and symbolic links in and out, and plain calls to
 * the provider as the broker makes them.
 */
import { Effect } from "effect"
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { ProviderUrl } from "../../src/layers/Test.ts"
import { CORPUS } from "../support/backends.ts"
import { call } from "../support/http.ts"

export const NON_ASCII_NAME = "Résumé été – 2024.docx"

export const TICKETS = { TICKET_abc123: "alice", TICKET_bob: "bob" } as const

/**
 * A fresh root, and beside it (outside it) a folder with a secret file that links point to:
 *
 * ```
 * tracemonkey.pdf, <NON_ASCII_NAME>, notes.txt, .secret.pdf, .tickets.json
 * reports/ file10.pdf file2.pdf 2024/q1.docx .drafts/draft.pdf
 * store1/ basicapi.pdf nested/deep/empty.pdf
 * private/ (.access.json: alice, bob) plan.pdf bobonly/ (.access.json: bob) b.pdf
 * broken/ (.access.json not JSON) x.pdf
 * link-in.pdf -> tracemonkey.pdf, link-out.pdf -> <outside>/secret.pdf, link-out-dir -> <outside>
 * reports/2024/loop -> reports (a loop a listing must not follow)
 * ```
 */
export const makeRoot = () => {
  const base = mkdtempSync(path.join(tmpdir(), "docstack-provider-"))
  const root = path.join(base, "root")
  const outside = path.join(base, "outside")
  const put = (relative: string, corpusFile: string) => {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true })
    copyFileSync(`${CORPUS}${corpusFile}`, path.join(root, relative))
  }
  const write = (relative: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true })
    writeFileSync(path.join(root, relative), text)
  }
  put("tracemonkey.pdf", "pdf/tracemonkey.pdf")
  put(NON_ASCII_NAME, "office/docx-tables.docx")
  write("notes.txt", "plain notes\n")
  put(".secret.pdf", "pdf/basicapi.pdf")
  write(".tickets.json", JSON.stringify(TICKETS))
  put("reports/file10.pdf", "pdf/basicapi.pdf")
  put("reports/file2.pdf", "pdf/basicapi.pdf")
  put("reports/2024/q1.docx", "office/docx-tables.docx")
  put("reports/.drafts/draft.pdf", "pdf/basicapi.pdf")
  put("store1/basicapi.pdf", "pdf/basicapi.pdf")
  put("store1/nested/deep/empty.pdf", "pdf/basicapi.pdf")
  write("private/.access.json", JSON.stringify({ users: ["alice", "bob"] }))
  put("private/plan.pdf", "pdf/basicapi.pdf")
  write("private/bobonly/.access.json", JSON.stringify({ users: ["bob"] }))
  put("private/bobonly/b.pdf", "pdf/basicapi.pdf")
  write("broken/.access.json", "{ users: alice")
  put("broken/x.pdf", "pdf/basicapi.pdf")
  mkdirSync(outside, { recursive: true })
  copyFileSync(`${CORPUS}pdf/basicapi.pdf`, path.join(outside, "secret.pdf"))
  symlinkSync(path.join(root, "tracemonkey.pdf"), path.join(root, "link-in.pdf"))
  symlinkSync(path.join(outside, "secret.pdf"), path.join(root, "link-out.pdf"))
  symlinkSync(outside, path.join(root, "link-out-dir"))
  symlinkSync(path.join(root, "reports"), path.join(root, "reports/2024/loop"))
  return { root, outside }
}

/** The query string of a set of parameters, encoded as any HTTP client encodes it. */
export const query = (parameters: Readonly<Record<string, string>>) => new URLSearchParams(parameters).toString()

/** GET /documents with these parameters. */
export const fetchDocument = (parameters: Readonly<Record<string, string>>) =>
  ProviderUrl.pipe(Effect.flatMap((base) => call(`${base}/documents?${query(parameters)}`)))

/** A call on the annotation endpoints: `suffix` after /annotations, a JSON body when given. */
export const annotationsCall = (
  method: string,
  suffix: string,
  parameters: Readonly<Record<string, string>>,
  body?: unknown
) =>
  ProviderUrl.pipe(
    Effect.flatMap((base) =>
      call(`${base}/annotations${suffix}?${query(parameters)}`, {
        method,
        ...(body === undefined
          ? {}
          : {
            headers: { "content-type": "application/json" },
            body: typeof body === "string" ? body : JSON.stringify(body)
          })
      })
    )
  )
