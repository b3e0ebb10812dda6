/**
 * The document servlets with sealed document IDs, a small VIEWER_MAX_UPLOAD_BYTES (and a JSON limit
 * smaller than an upload, which must not bound uploads) and a default
 * provider that does not answer (a viewer of their own: its settings differ from documents.test.ts).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { corpusFile } from "../support/http.ts"
import { servlet, viewerAndBroker } from "./support.ts"

/** A web server on loopback: basicapi.pdf at /doc.pdf. */
const server = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/pdf" }).end(corpusFile("pdf/basicapi.pdf"))
})
await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
afterAll(() => void server.close())
const web = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }

const pageCount = (viewerId: string) =>
  Effect.map(servlet(`documentLayout?uuid=${encodeURIComponent(viewerId)}`), (r) => r.json.pageDimensionsList.length)

const upload = (bytes: Uint8Array, fileName: string) => {
  const form = new FormData()
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "application/pdf" }), fileName)
  return servlet("uploadServlet", { method: "POST", body: form })
}

describe("the document servlets with sealed IDs, a small upload limit and a provider that does not answer", () => {
  it.layer(
    viewerAndBroker(
      {
        VIEWER_DOCUMENT_ID_GENERATOR: "encryptedDocumentIdGenerator",
        VIEWER_DOCUMENT_ID_KEY: "documents-test-key-0123456789",
        VIEWER_MAX_UPLOAD_BYTES: "200000",
        // Below the upload's size: an upload is bounded by VIEWER_MAX_UPLOAD_BYTES alone, not by the JSON limit.
        VIEWER_MAX_JSON_BODY_BYTES: "50000"
      },
      // A default provider that does not answer.
      { ALLOW_PRIVATE_URLS: "true", PROVIDERS: JSON.stringify({ filesystem: { url: "http://127.0.0.1:9" } }) }
    ),
    { timeout: 180_000 }
  )((it) => {
    it.effect("encrypted IDs from openExternalDocument and uploads; 413 past VIEWER_MAX_UPLOAD_BYTES; 502 from the provider", () =>
      Effect.gen(function*() {
        const opened = yield* servlet(`openExternalDocument?url=${encodeURIComponent(`${web.url}/doc.pdf`)}`)
        expect(opened.status, opened.text).toBe(200)
        // Unencoded, as a query may carry it: the router must not fold the URL's '//'.
        const again = yield* servlet(`openExternalDocument?url=${web.url}/doc.pdf`)
        // Sealed: each opening a new ID, neither the broker's.
        expect(opened.text).not.toBe(again.text)
        expect(opened.text.length).toBeGreaterThan(60)
        expect(yield* pageCount(opened.text)).toBe(3)

        const small = yield* upload(corpusFile("pdf/basicapi.pdf"), "basicapi.pdf")
        expect(small.status, small.text).toBe(200)
        expect(yield* pageCount(small.text)).toBe(3)
        const large = yield* upload(corpusFile("pdf/tracemonkey.pdf"), "tracemonkey.pdf")
        expect([large.status, large.json._tag], large.text).toEqual([413, "UploadTooLarge"])
        expect(large.json.message).toContain("VIEWER_MAX_UPLOAD_BYTES")

        const unavailable = yield* servlet("uploadServlet?uuid=tracemonkey.pdf")
        expect([unavailable.status, unavailable.json._tag]).toEqual([502, "ProviderUnavailable"])
      }))
  })
})
