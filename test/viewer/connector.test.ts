/**
 * updateDocumentMetadataServlet through a real broker to the reference provider: the properties
 * stored by the provider (read back from it), a provider folder's file, and the 400s and 404s.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { BrokerUrl, ProviderUrl } from "../../src/layers/Test.ts"
import { makeProviderRoot, openOk } from "../broker/providers/support.ts"
import { call, corpusFile, uploadOk } from "../support/http.ts"
import { servlet, viewerBrokerAndProvider } from "./support.ts"

const root = makeProviderRoot()

const update = (uuid: string, body: string) =>
  servlet(`updateDocumentMetadataServlet?uuid=${uuid}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body
  })

/** What the provider keeps for one of its files. */
const stored = (id: string) =>
  Effect.flatMap(ProviderUrl, (provider) => call(`${provider}/documents/metadata?id=${encodeURIComponent(id)}`))

describe("updateDocumentMetadataServlet", () => {
  it.layer(viewerBrokerAndProvider(root), { timeout: 120_000 })((it) => {
    it.effect("sends the properties to the document's provider, which stores them; answers what it keeps", () =>
      Effect.gen(function*() {
        const id = yield* openOk({ id: "tracemonkey.pdf" })
        const first = yield* update(id, JSON.stringify({ status: "review", pages: 14 }))
        expect(first.status, first.text).toBe(200)
        expect(first.json).toEqual({ status: "review", pages: 14 })
        const second = yield* update(id, JSON.stringify({ status: null, approved: true }))
        expect(second.json).toEqual({ pages: 14, approved: true })
        const kept = yield* stored("tracemonkey.pdf")
        expect(kept.status).toBe(200)
        expect(kept.json).toEqual({ pages: 14, approved: true })
      }))

    it.effect("a provider folder's file, by its part ID", () =>
      Effect.gen(function*() {
        const folder = yield* openOk({ id: "case-42" }, { contentType: "application/json" })
        const reply = yield* update(`${folder}@3`, JSON.stringify({ subject: "Reply" }))
        expect(reply.status, reply.text).toBe(200)
        expect((yield* stored("case-42/letters/reply.pdf")).json).toEqual({ subject: "Reply" })
      }))

    it.effect("400 for a missing uuid or a body that is not a JSON object of values; 404 without a provider", () =>
      Effect.gen(function*() {
        const id = yield* openOk({ id: "tracemonkey.pdf" })
        expect((yield* servlet("updateDocumentMetadataServlet", { method: "POST", body: "{}" })).status).toBe(400)
        expect((yield* update(id, "{not json")).status).toBe(400)
        expect((yield* update(id, "[1, 2]")).status).toBe(400)
        expect((yield* update(id, JSON.stringify({ nested: { a: 1 } }))).status).toBe(400)

        const uploaded = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/basicapi.pdf"))
        const none = yield* update(uploaded, JSON.stringify({ a: 1 }))
        expect(none.status).toBe(404)
        expect(none.json._tag).toBe("DocumentHasNoProvider")
        const unknown = yield* update("b64_nothing", JSON.stringify({ a: 1 }))
        expect(unknown.status).toBe(404)
        expect(unknown.json._tag).toBe("DocumentNotFound")
      }))
  })
})
