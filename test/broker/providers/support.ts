/**
 * A broker and the reference filesystem provider, each on its own loopback port, talking over HTTP
 * as in production: the provider's root a folder of real documents the test can change under it.
 */
import { Context, Effect, Layer } from "effect"
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { brokerTestLayer, BrokerUrl, providerTestLayer, ProviderUrl } from "../../../src/layers/Test.ts"
import { CORPUS } from "../../support/backends.ts"
import { call } from "../../support/http.ts"

export const NON_ASCII_TITLE = "Résumé été – 2024.pdf"

/**
 * ```
 * tracemonkey.pdf (14 pages), <NON_ASCII_TITLE> (basicapi, 3 pages), .tickets.json
 * case-42/ 1 contract.pdf (basicapi, 3) · 2 letter.docx · letters/ reply.pdf (hello_world_rotated, 5) · mail.eml
 * private/ (.access.json: alice) plan.pdf
 * ```
 * The folder case-42 is numbered 0 contract, 1 letter, 2 letters/, 3 reply, 4 mail.
 */
export const makeProviderRoot = () => {
  const root = mkdtempSync(path.join(tmpdir(), "docstack-provider-root-"))
  const put = (relative: string, corpusFile: string) => {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true })
    copyFileSync(`${CORPUS}${corpusFile}`, path.join(root, relative))
  }
  put("tracemonkey.pdf", "pdf/tracemonkey.pdf")
  put(NON_ASCII_TITLE, "pdf/basicapi.pdf")
  put("case-42/1 contract.pdf", "pdf/basicapi.pdf")
  put("case-42/2 letter.docx", "office/docx-tables.docx")
  put("case-42/letters/reply.pdf", "pdf/hello_world_rotated.pdf")
  put("case-42/mail.eml", "office/fake-email-attachment.eml")
  put("private/plan.pdf", "pdf/basicapi.pdf")
  writeFileSync(path.join(root, "private/.access.json"), JSON.stringify({ users: ["alice"] }))
  writeFileSync(path.join(root, ".tickets.json"), JSON.stringify({ TICKET_alice: "alice" }))
  return root
}

/**
 * The provider serving `root`, and a broker configured to call it by the names of `providers` (each
 * entry's further settings beside the URL; by default `filesystem` alone) with `settings` of its own.
 */
export const providerAndBroker = (
  root: string,
  settings: Readonly<Record<string, string>> = {},
  providers: Readonly<Record<string, Readonly<Record<string, unknown>>>> = { filesystem: {} }
) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      // Built apart: two HTTP applications in one context would share one router.
      const url = Context.get(yield* Layer.build(providerTestLayer({ PROVIDER_ROOT: root })), ProviderUrl)
      const entries = Object.fromEntries(Object.entries(providers).map(([name, entry]) => [name, { url, ...entry }]))
      return Layer.merge(
        brokerTestLayer({ PROVIDERS: JSON.stringify(entries), ...settings }),
        Layer.succeed(ProviderUrl, url)
      )
    })
  )

/** POST /registry/documents with a form-encoded body. */
export const openDocument = (
  parameters: Readonly<Record<string, string>>,
  options: { readonly contentType?: string; readonly provider?: string } = {}
) =>
  Effect.flatMap(BrokerUrl, (base) =>
    call(`${base}/registry/documents`, {
      method: "POST",
      headers: {
        "content-type": options.contentType ?? "application/octet-stream",
        ...(options.provider === undefined ? {} : { "x-provider-id": options.provider })
      },
      body: new URLSearchParams(parameters).toString()
    }))

/** Opens and answers the document ID, failing the test on any other outcome. */
export const openOk = (
  parameters: Readonly<Record<string, string>>,
  options: { readonly contentType?: string; readonly provider?: string } = {}
) =>
  openDocument(parameters, options).pipe(
    Effect.map((reply) => {
      if (reply.status !== 200) throw new Error(`opening failed with ${reply.status}: ${reply.text}`)
      return reply.json.id as string
    })
  )

/** A broker request by path (part IDs with '@'). */
export const get = (pathAndQuery: string, init?: RequestInit) =>
  Effect.flatMap(BrokerUrl, (base) => call(`${base}${pathAndQuery}`, init))

export const sendJson = (method: string, pathAndQuery: string, body: unknown) =>
  get(pathAndQuery, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
