/**
 * GET /documents of the reference provider as the broker calls it: a file by id and by nodeRef,
 * with its type and title; a folder, expanded to any depth, whose every entry's parameters fetch
 * it again; stores (objectStoreName); and what it never serves: hidden entries, paths out of the
 * root, symbolic links out of it.
 */
import { describe, expect, layer } from "@effect/vitest"
import { parse as parseContentDisposition } from "content-disposition"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { providerTestLayer } from "../../src/layers/Test.ts"
import { fetchDocument, makeRoot, NON_ASCII_NAME } from "./support.ts"

const { outside, root } = makeRoot()
const onDisk = (relative: string) => readFileSync(path.join(root, relative))

interface Listed {
  readonly type: "file" | "folder"
  readonly name: string
  readonly parameters: Record<string, string>
  readonly contents?: ReadonlyArray<Listed>
}

/** Every entry below a folder answer, with its path of names. */
const flatten = (folder: Listed, prefix: ReadonlyArray<string> = []): Array<[string, Listed]> =>
  (folder.contents ?? []).flatMap((entry) => {
    const at = [...prefix, entry.name]
    return [[at.join("/"), entry] as [string, Listed], ...(entry.type === "folder" ? flatten(entry, at) : [])]
  })

describe("reference provider: documents", () => {
  layer(providerTestLayer({ PROVIDER_ROOT: root }), { timeout: 120_000 })("a root of real documents", (it) => {
    it.effect("answers a file by id: its bytes, its MIME type, its length and its name", () =>
      Effect.gen(function*() {
        const reply = yield* fetchDocument({ id: "tracemonkey.pdf" })
        expect(reply.status).toBe(200)
        expect(reply.contentType).toBe("application/pdf")
        expect(reply.headers.get("content-length")).toBe(String(onDisk("tracemonkey.pdf").length))
        expect(Buffer.compare(reply.bytes, onDisk("tracemonkey.pdf"))).toBe(0)
        const disposition = parseContentDisposition(reply.headers.get("content-disposition")!)
        expect(disposition.type).toBe("attachment")
        expect(disposition.parameters.filename).toBe("tracemonkey.pdf")
      }))

    it.effect("answers a file by nodeRef, and a non-ASCII name in filename*", () =>
      Effect.gen(function*() {
        const reply = yield* fetchDocument({ nodeRef: `workspace://SpacesStore/${NON_ASCII_NAME}` })
        expect(reply.status).toBe(200)
        expect(reply.contentType).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        expect(Buffer.compare(reply.bytes, onDisk(NON_ASCII_NAME))).toBe(0)
        const header = reply.headers.get("content-disposition")!
        expect(header).toContain(`filename*=UTF-8''${encodeURIComponent(NON_ASCII_NAME)}`)
        expect(parseContentDisposition(header).parameters.filename).toBe(NON_ASCII_NAME)
      }))

    it.effect("labels an unknown extension application/octet-stream, and ignores version parameters", () =>
      Effect.gen(function*() {
        const pdf = yield* fetchDocument({ id: "tracemonkey.pdf", vsId: "{123}", objectType: "Document" })
        expect(pdf.status).toBe(200)
        const byNode = yield* fetchDocument({ nodeRef: "workspace://SpacesStore/notes.txt", versionLabel: "1.3" })
        expect(byNode.contentType).toBe("text/plain")
        expect(byNode.text).toBe("plain notes\n")
        const first = yield* fetchDocument({ id: "tracemonkey.pdf", contentElement: "0" })
        expect(first.status).toBe(200)
        const second = yield* fetchDocument({ id: "tracemonkey.pdf", contentElement: "1" })
        expect(second.status).toBe(404)
        expect(second.json.message).toContain("one content element")
      }))

    it.effect("answers the root as a folder expanded to any depth, sorted, without hidden entries or links out", () =>
      Effect.gen(function*() {
        const reply = yield* fetchDocument({ id: "/" })
        expect(reply.status).toBe(200)
        expect(reply.contentType).toContain("application/json")
        expect(reply.json).toMatchObject({ type: "folder", name: "root", parameters: { id: "/" } })
        const paths = flatten(reply.json).map(([at]) => at)
        // broken/ lists no one (its access file cannot be read), private/ needs a user: both left out.
        expect(paths).toEqual([
          "link-in.pdf",
          "notes.txt",
          "reports",
          "reports/2024",
          "reports/2024/q1.docx",
          "reports/file2.pdf",
          "reports/file10.pdf",
          NON_ASCII_NAME,
          "store1",
          "store1/basicapi.pdf",
          "store1/nested",
          "store1/nested/deep",
          "store1/nested/deep/empty.pdf",
          "tracemonkey.pdf"
        ])
        // An empty id is the root too.
        expect((yield* fetchDocument({ id: "" })).json).toEqual(reply.json)
      }))

    it.effect("gives every entry the parameters that fetch it again, by id and by nodeRef", () =>
      Effect.gen(function*() {
        for (const request of [{ id: "reports" }, { nodeRef: "workspace://SpacesStore/reports" }]) {
          const folder = yield* fetchDocument(request)
          expect(folder.status).toBe(200)
          expect(folder.json.parameters).toEqual(request)
          const entries = flatten(folder.json)
          expect(entries.map(([at]) => at)).toEqual(["2024", "2024/q1.docx", "file2.pdf", "file10.pdf"])
          for (const [at, entry] of entries) {
            expect(Object.keys(entry.parameters)).toEqual(Object.keys(request))
            const again = yield* fetchDocument(entry.parameters)
            expect(again.status).toBe(200)
            if (entry.type === "file") {
              expect(Buffer.compare(again.bytes, onDisk(`reports/${at}`))).toBe(0)
            } else {
              expect(again.json).toEqual(entry)
            }
          }
        }
      }))

    it.effect("names a document inside a store with objectStoreName", () =>
      Effect.gen(function*() {
        const store = yield* fetchDocument({ objectStoreName: "store1", id: "/" })
        expect(store.status).toBe(200)
        expect(store.json.name).toBe("store1")
        const files = flatten(store.json).filter(([, entry]) => entry.type === "file")
        expect(files.map(([, entry]) => entry.parameters)).toEqual([
          { objectStoreName: "store1", id: "basicapi.pdf" },
          { objectStoreName: "store1", id: "nested/deep/empty.pdf" }
        ])
        const file = yield* fetchDocument(files[1]![1].parameters)
        expect(Buffer.compare(file.bytes, onDisk("store1/nested/deep/empty.pdf"))).toBe(0)
        expect((yield* fetchDocument({ objectStoreName: "nostore", id: "basicapi.pdf" })).status).toBe(404)
        expect((yield* fetchDocument({ objectStoreName: "store1/nested", id: "deep" })).status).toBe(404)
        expect((yield* fetchDocument({ objectStoreName: "..", id: "root/notes.txt" })).status).toBe(404)
        // A store names a folder: a top-level file is none.
        expect((yield* fetchDocument({ objectStoreName: "notes.txt", id: "/" })).status).toBe(404)
      }))

    it.effect("never serves hidden entries, paths out of the root, or links out of it", () =>
      Effect.gen(function*() {
        const refused = [
          { id: ".secret.pdf" },
          { id: ".tickets.json" },
          { id: "private/.access.json" },
          { id: "reports/.drafts/draft.pdf" },
          { id: "reports/.drafts" },
          { id: "../outside/secret.pdf" },
          { id: "reports/../../outside/secret.pdf" },
          { id: "./notes.txt" },
          { id: path.join(outside, "secret.pdf") },
          { id: "/etc/passwd" },
          { id: "notes.txt\u0000.pdf" },
          { id: "link-out.pdf" },
          { id: "link-out-dir" },
          { id: "link-out-dir/secret.pdf" },
          { nodeRef: "workspace://SpacesStore/../outside/secret.pdf" },
          { nodeRef: "workspace://SpacesStore//etc/passwd" },
          { nodeRef: "workspace://SpacesStore/link-out.pdf" },
          { nodeRef: "workspace://OtherStore/notes.txt" },
          { nodeRef: "archive://SpacesStore/notes.txt" },
          { id: "missing.pdf" },
          { id: "notes.txt/inside" }
        ]
        for (const parameters of refused) {
          const reply = yield* fetchDocument(parameters)
          expect([parameters, reply.status]).toEqual([parameters, 404])
          expect(reply.json._tag).toBe("DocumentNotFound")
        }
        // A link out answers exactly as a missing file does: nothing tells what exists outside.
        const out = yield* fetchDocument({ id: "link-out.pdf" })
        const missing = yield* fetchDocument({ id: "link-out.pdx" })
        expect(out.json.message.replace("link-out.pdf", "X")).toBe(missing.json.message.replace("link-out.pdx", "X"))
        expect(out.text).not.toContain(outside)
        // A link inside the root is served.
        const inside = yield* fetchDocument({ id: "link-in.pdf" })
        expect(inside.status).toBe(200)
        expect(Buffer.compare(inside.bytes, onDisk("tracemonkey.pdf"))).toBe(0)
      }))

    it.effect("answers 400 to a request that names no document, or names it twice", () =>
      Effect.gen(function*() {
        for (const parameters of [{}, { user: "alice" }, { objectStoreName: "store1" }, { id: "a", nodeRef: "b" }]) {
          const reply = yield* fetchDocument(parameters)
          expect([parameters, reply.status]).toEqual([parameters, 400])
          expect(reply.json._tag).toBe("InvalidRequest")
          expect(typeof reply.json.message).toBe("string")
        }
      }))

    it.effect("does not follow a link back to a folder it is listing", () =>
      Effect.gen(function*() {
        const reply = yield* fetchDocument({ id: "reports/2024" })
        expect(reply.status).toBe(200)
        // `loop` points at reports, a folder above: it is left out rather than listed forever.
        expect(flatten(reply.json).map(([at]) => at)).toEqual(["q1.docx"])
      }))
  })
})
