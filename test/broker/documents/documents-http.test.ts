/**
 * Every status code the spec names for the document endpoints, as a client sees them.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { unzipSync } from "fflate"
import { createHash, randomUUID } from "node:crypto"
import { existsSync, readdirSync, rmSync } from "node:fs"
import * as path from "node:path"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { brokerTestLayer, BrokerUrl, newDataDir } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, pngSize, upload, uploadOk } from "../../support/http.ts"

const dataDir = newDataDir()
const MAX_UPLOAD = 3_000_000

const tracemonkey = corpusFile("pdf/tracemonkey.pdf")

/**
 * A two-page PDF with accented text, made here so the expected text is known exactly; unique bytes
 * each time (its title), so that no other document, of this run or of an earlier one on the same
 * database, shares its blob.
 */
const makeTextPdf = Effect.promise(async () => {
  const pdf = await PDFDocument.create()
  pdf.setTitle(randomUUID())
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  pdf.addPage([300, 200]).drawText("Café crème at Zoë's", { x: 20, y: 150, size: 14, font })
  pdf.addPage([300, 200]).drawText("order 12345 and order 67890", { x: 20, y: 150, size: 14, font })
  return pdf.save()
})

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const blobFiles = () =>
  readdirSync(path.join(dataDir, "blobs"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /^[0-9a-f]{64}$/.test(e.name))
    .map((e) => e.name)

layer(brokerTestLayer({ ...defaultBackend.config, DATA_DIR: dataDir, MAX_UPLOAD_BYTES: String(MAX_UPLOAD) }), {
  timeout: 120_000
})(
  "document endpoints",
  (it) => {
    it.effect("POST /documents: 200 with an id, 409 on a duplicate id, 400 on bad input, 413 past the limit", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, tracemonkey)
        expect(id).toMatch(/^b64_[A-Za-z0-9_-]+$/)

        const assigned = `assigned-${Date.now()}`
        expect((yield* upload(base, tracemonkey, `?documentId=${assigned}&documentTitle=Paper`)).json).toEqual({
          id: assigned
        })
        const duplicate = yield* upload(base, tracemonkey, `?documentId=${assigned}`)
        expect(duplicate.status).toBe(409)
        expect(duplicate.json).toMatchObject({ _tag: "DocumentAlreadyExists", documentId: assigned })

        const wrongType = yield* upload(base, tracemonkey, "", "application/pdf")
        expect(wrongType.status).toBe(400)
        expect(wrongType.json.message).toContain("application/octet-stream")

        // Bytes no format claims (plain text would be a document now: it is converted).
        const binary = new Uint8Array([0x00, 0x01, 0x02, 0xfe, 0x00, 0x9c, 0x13, 0x00, 0xff, 0x07, 0x00, 0x00])
        const unsupported = yield* upload(base, binary)
        expect(unsupported.status).toBe(400)
        expect(unsupported.json.message).toMatch(/Unsupported format/)

        const tolerated = yield* upload(base, binary, "?failOnUnsupported=false")
        expect(tolerated.status).toBe(200)
        const unsupportedLayout = yield* call(`${base}/documents/${tolerated.json.id}/layout`)
        expect(unsupportedLayout.status).toBe(500)
        expect(unsupportedLayout.json.message).toMatch(/cannot be shown/)

        expect((yield* upload(base, new Uint8Array())).status).toBe(400)
        expect((yield* upload(base, tracemonkey, "?documentId=a/b")).status).toBe(400)
        expect((yield* upload(base, tracemonkey, "?documentId=a@b")).status).toBe(400)
        expect((yield* upload(base, tracemonkey, "?failOnUnsupported=maybe")).status).toBe(400)
        for (const query of ["?documentId=a%00b", "?documentId=.", "?documentId=..", "?documentTitle=a%00b"]) {
          const refused = yield* upload(base, tracemonkey, query)
          expect(refused.status, query).toBe(400)
          expect(refused.json, query).toMatchObject({ _tag: "HttpApiDecodeError" })
        }
        expect((yield* call(`${base}/documents/a%00b/layout`)).status).toBe(400)

        const tooLarge = yield* upload(base, new Uint8Array(MAX_UPLOAD + 1))
        expect(tooLarge.status).toBe(413)
        expect(tooLarge.json).toMatchObject({ _tag: "UploadTooLarge", limitBytes: MAX_UPLOAD })
      }))

    it.effect("a refused upload leaves no bytes behind", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const before = new Set(blobFiles())
        const damaged = yield* upload(base, corpusFile("pdf/bug1020226.pdf"))
        expect(damaged.status).toBe(400)
        const locked = yield* upload(base, corpusFile("pdf/issue6010_1.pdf"))
        expect(locked.status).toBe(400)
        expect(locked.json.message).toMatch(/password/)
        expect(blobFiles().filter((f) => !before.has(f))).toEqual([])
      }))

    it.effect("POST /documents/layout registers a document without a file", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = `layout-${Date.now()}`
        const body = {
          type: "com.docstack.viewer.client.api.document.DocumentPageLayout",
          documentId: id,
          documentTitle: "Registered",
          mimeType: "application/pdf",
          pageDimensionsList: [{ width: 612, height: 792, rotation: 0, dpi: 72, pageLayers: null }, {
            width: 842,
            height: 595,
            rotation: 90,
            dpi: 72,
            pageLayers: null
          }]
        }
        const post = (json: unknown, contentType = "application/json") =>
          call(`${base}/documents/layout`, {
            method: "POST",
            headers: { "content-type": contentType },
            body: JSON.stringify(json)
          })
        const created = yield* post(body)
        expect(created.status).toBe(200)
        expect(created.text).toBe("")
        expect((yield* post(body)).status).toBe(409)
        expect((yield* post(null)).status).toBe(400)
        expect((yield* post({ ...body, documentId: undefined })).status).toBe(400)
        const container = yield* post({
          type: "com.docstack.viewer.client.api.document.DocumentContainer",
          documentId: `${id}-c`,
          children: []
        })
        expect(container.status).toBe(400)
        expect(container.json.message).toContain("only a DocumentPageLayout can be registered")
        for (const page of [{ width: -5 }, { height: 0 }, { rotation: 45 }, { dpi: 0 }, { width: 1e308 }]) {
          const bad = {
            ...body,
            documentId: `${id}-bad`,
            pageDimensionsList: [{ ...body.pageDimensionsList[0], ...page }]
          }
          expect((yield* post(bad)).status, JSON.stringify(page)).toBe(400)
        }

        const layout = yield* call(`${base}/documents/${id}/layout`)
        expect(layout.json).toMatchObject({
          documentId: id,
          documentTitle: "Registered",
          pageDimensionsList: [{ width: 612 }, { width: 842, rotation: 90 }]
        })
        const image = yield* call(`${base}/documents/${id}/pages/0/image`)
        expect(image.status).toBe(500)
        expect(image.json.message).toMatch(/layout/)
        expect((yield* call(`${base}/documents/${id}/file`)).status).toBe(500)
      }))

    it.effect("GET /documents/{id}: metadata, 404 when unknown", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, tracemonkey, "?documentTitle=TraceMonkey")
        const metadata = yield* call(`${base}/documents/${id}`)
        expect(metadata.status).toBe(200)
        expect(metadata.json).toMatchObject({
          documentId: { id },
          mimeType: "application/pdf",
          format: "pdf",
          renderedMimeType: "application/pdf",
          renderedFormat: "pdf",
          documentTitle: "TraceMonkey",
          conversionOrderIds: {},
          urlParameters: []
        })
        expect(JSON.parse(metadata.json.documentMetadata)).toMatchObject({ pageCount: "14", Producer: "pdfeTeX-1.21a" })
        const missing = yield* call(`${base}/documents/nope-${Date.now()}`)
        expect(missing.status).toBe(404)
        expect(missing.json._tag).toBe("DocumentNotFound")
      }))

    it.effect("GET /file: the original, the PDF, a ZIP; 400 on an unknown format; 500 when the bytes are gone", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, tracemonkey, "?documentTitle=paper")
        const original = yield* call(`${base}/documents/${id}/file`)
        expect(original.status).toBe(200)
        expect(original.headers.get("content-type")).toBe("application/pdf")
        expect(original.headers.get("content-disposition")).toContain("paper.pdf")
        expect(Buffer.compare(Buffer.from(original.bytes), tracemonkey)).toBe(0)
        for (const format of ["pdf", "rendered"]) {
          const rendered = yield* call(`${base}/documents/${id}/file?format=${format}`)
          expect(Buffer.compare(Buffer.from(rendered.bytes), tracemonkey)).toBe(0)
        }
        const zipped = yield* call(`${base}/documents/${id}/file?format=compressed`)
        expect(zipped.headers.get("content-type")).toBe("application/zip")
        const entries = unzipSync(zipped.bytes)
        expect(Object.keys(entries)).toEqual(["paper.pdf"])
        expect(Buffer.compare(Buffer.from(entries["paper.pdf"]!), tracemonkey)).toBe(0)
        expect((yield* call(`${base}/documents/${id}/file?format=docx`)).status).toBe(400)
        expect((yield* call(`${base}/documents/unknown-${Date.now()}/file`)).status).toBe(404)

        // Bytes lost under a registered document are an internal error with a message, not a hang or a crash.
        const bytes = yield* makeTextPdf
        const lost = yield* uploadOk(base, bytes)
        const hash = sha256(bytes)
        rmSync(path.join(dataDir, "blobs", hash.slice(0, 2), hash))
        const gone = yield* call(`${base}/documents/${lost}/file`)
        expect(gone.status).toBe(500)
        expect(gone.json).toMatchObject({ _tag: "DocumentProcessingFailed", documentId: lost })
        expect(gone.json.message).toMatch(/missing/)
      }))

    it.effect("GET /file/chunk: exact bytes with 206, 416 outside the file, 400 without a Range", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, tracemonkey)
        const chunk = (range?: string) =>
          call(`${base}/documents/${id}/file/chunk`, range === undefined ? {} : { headers: { range } })
        const middle = yield* chunk("bytes=1000-1999")
        expect(middle.status).toBe(206)
        expect(middle.headers.get("content-range")).toBe(`bytes 1000-1999/${tracemonkey.length}`)
        expect(Buffer.compare(Buffer.from(middle.bytes), tracemonkey.subarray(1000, 2000))).toBe(0)
        const tail = yield* chunk(`bytes=${tracemonkey.length - 10}-${tracemonkey.length + 500}`)
        expect(tail.status).toBe(206)
        expect(Buffer.compare(Buffer.from(tail.bytes), tracemonkey.subarray(tracemonkey.length - 10))).toBe(0)
        const suffix = yield* chunk("bytes=-5")
        expect(Buffer.compare(Buffer.from(suffix.bytes), tracemonkey.subarray(tracemonkey.length - 5))).toBe(0)
        const past = yield* chunk(`bytes=${tracemonkey.length}-${tracemonkey.length + 10}`)
        expect(past.status).toBe(416)
        expect(past.json).toMatchObject({ _tag: "RangeNotSatisfiable", size: tracemonkey.length })
        expect((yield* chunk("bytes=20-10")).status).toBe(416)
        expect((yield* chunk()).status).toBe(400)
        expect((yield* chunk("items=0-1")).status).toBe(400)
        const zipChunk = yield* call(`${base}/documents/${id}/file/chunk?format=compressed`, {
          headers: { range: "bytes=0-3" }
        })
        expect([...zipChunk.bytes]).toEqual([0x50, 0x4b, 0x03, 0x04])
        expect(
          (yield* call(`${base}/documents/unknown-${Date.now()}/file/chunk`, { headers: { range: "bytes=0-1" } }))
            .status
        ).toBe(404)
      }))

    it.effect("DELETE is idempotent and frees bytes no other document references", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const bytes = yield* makeTextPdf
        const first = yield* uploadOk(base, bytes)
        const second = yield* uploadOk(base, bytes)
        const hash = sha256(bytes)
        expect(blobFiles()).toContain(hash)

        expect((yield* call(`${base}/documents/${first}`, { method: "DELETE" })).status).toBe(200)
        expect((yield* call(`${base}/documents/${first}/check`)).status).toBe(404)
        expect(blobFiles()).toContain(hash)
        expect((yield* call(`${base}/documents/${second}/pages/0/image?pageImageDescription=IM_100_0`)).status).toBe(
          200
        )

        expect((yield* call(`${base}/documents/${second}`, { method: "DELETE" })).status).toBe(200)
        expect(blobFiles()).not.toContain(hash)
        expect(existsSync(path.join(dataDir, "cache", hash.slice(0, 2), hash))).toBe(false)
        expect((yield* call(`${base}/documents/${second}`, { method: "DELETE" })).status).toBe(200)
        expect((yield* call(`${base}/documents/never-${Date.now()}`, { method: "DELETE" })).status).toBe(200)
      }))

    it.effect("GET /check and /layout; a raw slash in an ID is 404, a percent-encoded one 400", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, tracemonkey)
        const check = yield* call(`${base}/documents/${id}/check`)
        expect(check.status).toBe(200)
        expect(check.text).toBe("")
        const layout = yield* call(`${base}/documents/${id}/layout`)
        expect(layout.json.type).toBe("com.docstack.viewer.client.api.document.DocumentPageLayout")
        expect(layout.json.pageDimensionsList).toHaveLength(14)
        expect(layout.json.pageDimensionsList[0]).toEqual({
          width: 612,
          height: 792,
          rotation: 0,
          dpi: 72,
          pageLayers: null
        })
        expect((yield* call(`${base}/documents/${id}/0/layout`)).status).toBe(404)
        const encoded = yield* call(`${base}/documents/${id}%2F0/layout`)
        expect(encoded.status).toBe(400)
        expect(encoded.text).toContain("'@'")
        expect((yield* call(`${base}/documents/${id}@1/layout`)).status).toBe(404)
        expect((yield* call(`${base}/documents/unknown-${Date.now()}/layout`)).status).toBe(404)
      }))

    it.effect("GET /pages/{n}/image: PNG of the asked width, the default documented, 400 on a bad page or descriptor", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, tracemonkey)
        const image = (query: string, page: string | number = 0) =>
          call(`${base}/documents/${id}/pages/${page}/image${query}`)
        const byDefault = yield* image("")
        expect(byDefault.status).toBe(200)
        expect(byDefault.headers.get("content-type")).toBe("image/png")
        expect(pngSize(byDefault.bytes)).toEqual({ width: 1240, height: 1605 })
        expect(pngSize((yield* image("?pageImageDescription=IM_400_90")).bytes)).toEqual({ width: 400, height: 309 })
        expect(pngSize((yield* image("?pageImageDescription=IM_400_180_FILTERS~C~30~B~-10~I~1")).bytes)).toEqual({
          width: 400,
          height: 518
        })
        for (
          const bad of [
            "IM_400",
            "IM_400_45",
            "IM_0_0",
            "IM_99999_0",
            "IM_400_0_FILTERS~X~1",
            "IM_400_0_FILTERS",
            "400"
          ]
        ) {
          const reply = yield* image(`?pageImageDescription=${bad}`)
          expect(reply.status, bad).toBe(400)
          expect(reply.json.message, bad).toBeTruthy()
        }
        for (const page of [-1, 14, "x", 1.5, "0x1", "1e1", " 1"]) {
          expect((yield* image("", page)).status, String(page)).toBe(400)
        }
        expect((yield* call(`${base}/documents/unknown-${Date.now()}/pages/0/image`)).status).toBe(404)
      }))

    it.effect("filters change what the user sees: invert turns a white margin black", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, tracemonkey)
        const sharp = (yield* Effect.promise(() => import("sharp"))).default
        const corner = (bytes: Uint8Array) =>
          Effect.promise(() => sharp(bytes).extract({ left: 2, top: 2, width: 1, height: 1 }).raw().toBuffer()).pipe(
            Effect.map((b) => [...b])
          )
        const plain = yield* call(`${base}/documents/${id}/pages/0/image?pageImageDescription=IM_200_0`)
        const inverted = yield* call(`${base}/documents/${id}/pages/0/image?pageImageDescription=IM_200_0_FILTERS~I~1`)
        const darker = yield* call(`${base}/documents/${id}/pages/0/image?pageImageDescription=IM_200_0_FILTERS~B~-50`)
        expect(yield* corner(plain.bytes)).toEqual([255, 255, 255])
        expect(yield* corner(inverted.bytes)).toEqual([0, 0, 0])
        const [r] = yield* corner(darker.bytes)
        expect(r).toBeLessThan(140)
      }))

    it.effect("text positions, page search, document search and pages containing text", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, yield* makeTextPdf)
        const positions = yield* call(`${base}/documents/${id}/pages/0/text/position`)
        expect(positions.status).toBe(200)
        expect(positions.json.pageNumber).toBe(0)
        expect(positions.json.imageHyperlinkPositionList).toEqual([])
        const run = positions.json.positionTextList[0]
        expect(run).toMatchObject({
          pageNumber: 0,
          text: "Café crème at Zoë's",
          fontSize: 14,
          font: "Helvetica",
          rightToLeftText: false,
          rotation: 0,
          paragraphId: 0
        })
        // Drawn at x=20 with the baseline at y=150 on a 200 pt high page: the box sits around y = 200 - 150 - ascent.
        expect(run.position.x).toBeCloseTo(20, 0)
        expect(run.position.y).toBeGreaterThan(35)
        expect(run.position.y + run.position.h).toBeGreaterThan(50)
        expect(run.position.y + run.position.h).toBeLessThan(56)
        expect(run.individualWidths).toHaveLength(run.text.length)
        expect(run.individualWidths.reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(run.position.w, 0)

        const find = (query: string, page = 0) => call(`${base}/documents/${id}/pages/${page}/text?${query}`)
        const plain = yield* find("searchText=CREME")
        expect(plain.json.searchResults).toHaveLength(1)
        expect(plain.json.searchResults[0].textRangeList).toEqual([{ firstCharacter: 5, lastCharacter: 9 }])
        expect((yield* find("searchText=creme&accentSensitive=true")).json.searchResults).toHaveLength(0)
        expect((yield* find("searchText=crème&accentSensitive=true")).json.searchResults).toHaveLength(1)
        expect((yield* find("searchText=CAFÉ&caseSensitive=true")).json.searchResults).toHaveLength(0)
        expect((yield* find("searchText=Café&caseSensitive=true")).json.searchResults).toHaveLength(1)
        const regex = yield* find(`searchText=${encodeURIComponent("order \\d+")}&regex=true`, 1)
        expect(regex.json.searchResults[0].textRangeList).toEqual([{ firstCharacter: 0, lastCharacter: 10 }, {
          firstCharacter: 16,
          lastCharacter: 26
        }])
        expect((yield* find(`searchText=${encodeURIComponent("order \\d+")}`, 1)).json.searchResults).toHaveLength(0)
        expect((yield* find("searchText=(unclosed&regex=true")).status).toBe(400)
        expect((yield* find("")).status).toBe(400)
        expect((yield* find("searchText=x", 5)).status).toBe(400)

        const across = yield* call(`${base}/documents/${id}/search?fromPage=0&searchText=order`)
        expect(across.json).toMatchObject({
          documentId: { id },
          searchText: "order",
          searchStatus: "COMPLETED",
          lastPageSearched: 1
        })
        expect(Object.keys(across.json.pagesResults)).toEqual(["1"])
        const hit = across.json.pagesResults["1"][0].positionText
        expect(hit.text).toBe("order")
        expect(hit.position.w).toBeLessThan(run.position.w / 3)
        expect((yield* call(`${base}/documents/${id}/search?fromPage=1&toPage=1&searchText=café`)).json.pagesResults)
          .toEqual({})
        expect((yield* call(`${base}/documents/${id}/search?searchText=x`)).status).toBe(400)
        expect((yield* call(`${base}/documents/${id}/search?fromPage=0`)).status).toBe(400)
        expect((yield* call(`${base}/documents/${id}/search?fromPage=5&searchText=x`)).status).toBe(400)

        const pages = yield* call(`${base}/documents/${id}/pages?searchText=o`)
        expect(pages.json).toEqual({ uuid: { id }, searchText: "o", pageList: [0, 1] })
        expect((yield* call(`${base}/documents/${id}/pages`)).status).toBe(400)
        for (
          const suffix of [
            "pages/0/text/position",
            "pages/0/text?searchText=a",
            "search?fromPage=0&searchText=a",
            "pages?searchText=a"
          ]
        ) {
          expect((yield* call(`${base}/documents/unknown-${Date.now()}/${suffix}`)).status, suffix).toBe(404)
        }
      }))

    it.effect("text of a PDF whose runs hold control characters (standard_fonts.pdf) is served", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, corpusFile("pdf/standard_fonts.pdf"))
        const positions = yield* call(`${base}/documents/${id}/pages/0/text/position`)
        expect(positions.status).toBe(200)
        expect(positions.json.positionTextList.length).toBeGreaterThan(0)
        expect((yield* call(`${base}/documents/${id}/pages?searchText=the`)).status).toBe(200)
      }))

    it.effect("bookmarks, destinations, signatures and printable: 200 for a document, 404 for none", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const signed = yield* uploadOk(base, corpusFile("pdf/signed_verified.pdf"))
        const signatures = yield* call(`${base}/documents/${signed}/signatures`)
        expect(signatures.status).toBe(200)
        expect(signatures.json.signatures.map((s: { name: string }) => s.name)).toEqual(["Signature1"])
        const plain = yield* uploadOk(base, tracemonkey)
        expect((yield* call(`${base}/documents/${plain}/signatures`)).json).toEqual({
          signatures: [],
          wronglySigned: false,
          integrity: true
        })
        expect((yield* call(`${base}/documents/${plain}/bookmarks`)).json).toEqual({ bookmarks: [] })
        expect((yield* call(`${base}/documents/${plain}/destinations`)).json).toEqual({
          documentId: { id: plain },
          namedDestinations: []
        })
        const printable = yield* call(`${base}/documents/${plain}/printable`)
        expect(printable.status).toBe(200)
        expect(printable.headers.get("content-type")).toBe("application/pdf")
        expect(new TextDecoder().decode(printable.bytes.subarray(0, 5))).toBe("%PDF-")
        for (const suffix of ["bookmarks", "destinations", "signatures", "printable"]) {
          expect((yield* call(`${base}/documents/unknown-${Date.now()}/${suffix}`)).status, suffix).toBe(404)
        }
      }))

    it.effect("unknown routes are 404; OpenAPI and the explorer are served", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        expect((yield* call(`${base}/no/such/route`)).status).toBe(404)
        const openApi = yield* call(`${base}/v3/api-docs`)
        expect(openApi.json.openapi).toMatch(/^3\./)
        expect(Object.keys(openApi.json.paths)).toContain("/documents/{documentId}/pages/{page}/image")
        const explorer = yield* call(`${base}/swagger-ui/index.html`)
        expect(explorer.headers.get("content-type")).toContain("text/html")
        expect(explorer.text).toContain("SwaggerUIBundle")
        expect(explorer.text).not.toMatch(/https?:\/\/(cdn|unpkg)/)
      }))
  }
)
