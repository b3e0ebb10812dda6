/**
 * The document servlets in front of a real broker and the reference provider: opening by
 * connector-level ID, by upload and by URL; the downloads in every form and their file names; the
 * current document of the session; eviction; and every status of the contract's table for them.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { PDFArray, PDFDict, PDFDocument, PDFName } from "pdf-lib"
import { makeProviderRoot } from "../broker/providers/support.ts"
import { corpusFile, type Reply } from "../support/http.ts"
import { servlet, viewerBrokerAndProvider } from "./support.ts"

const root = makeProviderRoot()

/** A web server on loopback: basicapi.pdf at /doc.pdf, 404 for anything else. */
const server = createServer((request, response) => {
  if (request.url === "/doc.pdf") {
    response.writeHead(200, { "content-type": "application/pdf" }).end(corpusFile("pdf/basicapi.pdf"))
  } else response.writeHead(404).end()
})
await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
afterAll(() => void server.close())
const web = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }

/** The session cookie an answer sets, to send back. */
const sessionCookie = (reply: Reply) =>
  /DOCSTACK_VIEWER_SESSION=[^;]+/.exec(reply.headers.get("set-cookie") ?? "")?.[0] ?? ""

const pageCount = (viewerId: string) =>
  Effect.map(servlet(`documentLayout?uuid=${encodeURIComponent(viewerId)}`), (r) => r.json.pageDimensionsList.length)

const upload = (bytes: Uint8Array, fileName: string, field = "file") => {
  const form = new FormData()
  form.append(field, new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "application/pdf" }), fileName)
  return servlet("uploadServlet", { method: "POST", body: form })
}

const uploaded = (bytes: Uint8Array, fileName: string) =>
  Effect.map(upload(bytes, fileName), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return reply
  })

const fileName = (reply: Reply) =>
  /filename\*?=(?:UTF-8'')?"?([^";]+)"?/.exec(reply.headers.get("content-disposition") ?? "")?.[1]

/** The /Subtype of every annotation on every page of a PDF. */
const annotationTypes = (bytes: Uint8Array) =>
  Effect.promise(async () => {
    const pdf = await PDFDocument.load(bytes)
    return pdf.getPages().flatMap((page) => {
      const annots = page.node.lookupMaybe(PDFName.of("Annots"), PDFArray)
      return (annots?.asArray() ?? []).map((ref) =>
        pdf.context.lookup(ref, PDFDict).get(PDFName.of("Subtype"))?.toString()
      )
    })
  })

describe("the document servlets", () => {
  it.layer(viewerBrokerAndProvider(root, {}, { ALLOW_PRIVATE_URLS: "true" }), { timeout: 180_000 })((it) => {
    it.effect("GET uploadServlet opens a provider's document by bare id or by parameters; it becomes the current document", () =>
      Effect.gen(function*() {
        const bare = yield* servlet("uploadServlet?uuid=tracemonkey.pdf")
        expect(bare.status, bare.text).toBe(200)
        expect(bare.contentType).toContain("text/plain")
        expect(yield* pageCount(bare.text)).toBe(14)
        const cookie = sessionCookie(bare)
        const current = yield* servlet("downloadBase64EncodedDocument", { headers: { cookie } })
        expect(Buffer.from(current.text, "base64").equals(corpusFile("pdf/tracemonkey.pdf"))).toBe(true)

        const query = encodeURIComponent("id=1 contract.pdf&objectStoreName=case-42")
        const byParameters = yield* servlet(`uploadServlet?uuid=${query}`)
        expect(byParameters.status, byParameters.text).toBe(200)
        expect(yield* pageCount(byParameters.text)).toBe(3)
      }))

    it.effect("GET uploadServlet: 400 without uuid or parameters, the provider's 403 and 404 as they are", () =>
      Effect.gen(function*() {
        expect((yield* servlet("uploadServlet")).status).toBe(400)
        const nothing = yield* servlet(`uploadServlet?uuid=${encodeURIComponent("=x")}`)
        expect(nothing.status).toBe(400)
        expect(nothing.json.message).toContain("names no document")
        const denied = yield* servlet(`uploadServlet?uuid=${encodeURIComponent("id=private/plan.pdf&user=mallory")}`)
        expect([denied.status, denied.json._tag]).toEqual([403, "ProviderAccessDenied"])
        const missing = yield* servlet("uploadServlet?uuid=no-such.pdf")
        expect([missing.status, missing.json._tag]).toEqual([404, "ProviderDocumentNotFound"])
      }))

    it.effect("POST uploadServlet, then downloadServlet in its three forms, named by title, sourceId or the upload", () =>
      Effect.gen(function*() {
        const bytes = corpusFile("pdf/basicapi.pdf")
        const id = (yield* uploaded(bytes, "Basic API.pdf")).text
        expect(yield* pageCount(id)).toBe(3)

        const initial = yield* servlet(`downloadServlet?uuid=${id}`)
        expect(initial.status).toBe(200)
        expect(initial.bytes.equals(bytes)).toBe(true)
        expect(initial.contentType).toBe("application/pdf")
        expect(fileName(initial)).toBe("Basic API.pdf")

        const rendered = yield* servlet(`downloadServlet?uuid=${id}&type=RENDERED&title=Quarterly`)
        expect(rendered.contentType).toBe("application/pdf")
        expect(rendered.bytes.subarray(0, 5).toString()).toBe("%PDF-")
        expect(fileName(rendered)).toBe("Quarterly.pdf")

        const zip = yield* servlet(`downloadServlet?uuid=${id}&type=COMPRESSED&title=Quarterly.zip`)
        expect(zip.contentType).toBe("application/zip")
        expect(zip.bytes.subarray(0, 2).toString()).toBe("PK")
        expect(fileName(zip)).toBe("Quarterly.zip")

        // sourceId: the document this one came from names the file.
        const copy = (yield* uploaded(bytes, "copy.pdf")).text
        const named = yield* servlet(`downloadServlet?uuid=${copy}&sourceId=${id}&type=COMPRESSED`)
        expect(fileName(named)).toBe("Basic API.pdf.zip")
      }))

    it.effect("POST uploadServlet without the file part is 400; downloadServlet answers 400 and 404", () =>
      Effect.gen(function*() {
        const wrongPart = yield* upload(corpusFile("pdf/basicapi.pdf"), "a.pdf", "document")
        expect(wrongPart.status).toBe(400)
        expect(wrongPart.json.message).toContain("file")
        expect((yield* servlet("uploadServlet", { method: "POST", body: "x" })).status).toBe(400)
        expect((yield* servlet("downloadServlet")).status).toBe(400)
        expect((yield* servlet("downloadServlet?uuid=b64_x&type=PNG")).json.message).toContain("INITIAL")
        expect((yield* servlet("downloadServlet?uuid=b64_nothing")).status).toBe(404)
      }))

    it.effect("downloadDocumentWithAnnotations: drawn in (renderAnnotations) or as annotation objects (renderFDFAnnotations)", () =>
      Effect.gen(function*() {
        const noSession = yield* servlet("downloadDocumentWithAnnotations?operationName=renderAnnotations")
        expect([noSession.status, noSession.json.message]).toEqual([
          404,
          expect.stringContaining("no current document")
        ])
        expect((yield* servlet("downloadBase64EncodedDocument")).status).toBe(404)

        const reply = yield* uploaded(corpusFile("pdf/annotation-highlight.pdf"), "marked.pdf")
        const cookie = sessionCookie(reply)
        const embedded = yield* servlet("downloadDocumentWithAnnotations?operationName=renderFDFAnnotations", {
          headers: { cookie }
        })
        expect(embedded.status).toBe(200)
        expect(embedded.contentType).toBe("application/pdf")
        expect(fileName(embedded)).toBe("marked.pdf")
        expect(yield* annotationTypes(embedded.bytes)).toContain("/Highlight")
        const flattened = yield* servlet(
          `downloadDocumentWithAnnotations?operationName=renderAnnotations&uuid=${reply.text}`
        )
        expect(flattened.status).toBe(200)
        expect(yield* annotationTypes(flattened.bytes)).not.toContain("/Highlight")

        expect((yield* servlet("downloadDocumentWithAnnotations", { headers: { cookie } })).status).toBe(400)
        expect((yield* servlet("downloadDocumentWithAnnotations?operationName=print", { headers: { cookie } })).status)
          .toBe(400)
        expect((yield* servlet("downloadDocumentWithAnnotations?operationName=renderAnnotations&uuid=b64_no")).status)
          .toBe(404)
        const base64 = yield* servlet(`downloadBase64EncodedDocument?uuid=${reply.text}`)
        expect(Buffer.from(base64.text, "base64").equals(corpusFile("pdf/annotation-highlight.pdf"))).toBe(true)
        expect((yield* servlet("downloadBase64EncodedDocument?uuid=b64_no")).status).toBe(404)
      }))

    it.effect("evictDocument removes the document from its broker: OK, then 404; 400 without uuid", () =>
      Effect.gen(function*() {
        const id = (yield* uploaded(corpusFile("pdf/sizes.pdf"), "sizes.pdf")).text
        expect(yield* pageCount(id)).toBe(3)
        const evicted = yield* servlet(`evictDocument?uuid=${id}`)
        expect([evicted.status, evicted.text]).toEqual([200, "OK"])
        expect((yield* servlet(`documentLayout?uuid=${id}`)).status).toBe(404)
        expect((yield* servlet(`evictDocument?uuid=${id}`)).status).toBe(404)
        expect((yield* servlet("evictDocument")).status).toBe(400)
      }))

    it.effect("openExternalDocument: an http URL or a loadingQuery; 400 for anything else, 500 when the URL fails", () =>
      Effect.gen(function*() {
        const fromWeb = yield* servlet(`openExternalDocument?url=${encodeURIComponent(`${web.url}/doc.pdf`)}`)
        expect(fromWeb.status, fromWeb.text).toBe(200)
        expect(fromWeb.text).toMatch(/^b64_/)
        expect(yield* servlet(`downloadServlet?uuid=${fromWeb.text}`)).toMatchObject({
          bytes: corpusFile("pdf/basicapi.pdf")
        })
        const query = yield* servlet(
          `openExternalDocument?url=${encodeURIComponent("loadingQuery?id=case-42/letters/reply.pdf")}`
        )
        expect(query.status, query.text).toBe(200)
        expect(yield* pageCount(query.text)).toBe(5)

        expect((yield* servlet("openExternalDocument")).status).toBe(400)
        expect((yield* servlet("openExternalDocument?url=ftp%3A%2F%2Fexample.com%2Fa.pdf")).status).toBe(400)
        const gone = yield* servlet(`openExternalDocument?url=${encodeURIComponent(`${web.url}/gone.pdf`)}`)
        expect([gone.status, gone.json._tag]).toEqual([500, "SourceUnreachable"])
      }))

    it.effect("mergeDocumentsServlet: provider, URL and viewer documents in one PDF, by GET or form POST", () =>
      Effect.gen(function*() {
        const rotated = (yield* uploaded(corpusFile("pdf/hello_world_rotated.pdf"), "rotated.pdf")).text
        const urls = ["loadingQuery?id=tracemonkey.pdf", `${web.url}/doc.pdf`, rotated, `?uuid=${rotated}`]
        const merged = yield* servlet(
          `mergeDocumentsServlet?${urls.map((u) => `url=${encodeURIComponent(u)}`).join("&")}`
        )
        expect(merged.status, merged.text).toBe(200)
        expect(merged.json.nbPages).toBe("27") // 14 + 3 + 5 + 5, as a string
        expect(yield* pageCount(merged.json.uuid)).toBe(27)
        const current = yield* servlet("downloadBase64EncodedDocument", { headers: { cookie: sessionCookie(merged) } })
        const pdf = yield* Effect.promise(() => PDFDocument.load(Buffer.from(current.text, "base64")))
        expect(pdf.getPageCount()).toBe(27)

        const posted = yield* servlet(`mergeDocumentsServlet?url=${rotated}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams([["url", "loadingQuery?id=case-42/1 contract.pdf"], ["url", rotated]]).toString()
        })
        expect(posted.status, posted.text).toBe(200)
        expect(posted.json.nbPages).toBe("13")

        expect((yield* servlet("mergeDocumentsServlet")).status).toBe(400)
        expect((yield* servlet("mergeDocumentsServlet", { method: "POST" })).status).toBe(400)
        const invalid = yield* servlet(`mergeDocumentsServlet?url=${rotated}&url=ftp%3A%2F%2Fhost%2Fa.pdf`)
        expect([invalid.status, invalid.json.message]).toEqual([400, expect.stringContaining("ftp://host/a.pdf")])
        const gone = yield* servlet(`mergeDocumentsServlet?url=${encodeURIComponent(`${web.url}/gone.pdf`)}`)
        expect(gone.status).toBe(500)
      }))
  })
})
