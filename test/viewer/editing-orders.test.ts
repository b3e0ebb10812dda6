/**
 * The order routes against a real broker, with sealed document IDs (encryptedDocumentIdGenerator)
 * as a browser holds them: pages of two documents rearranged into one, their annotations going with
 * their pages; redaction marks applied (the text gone, a note over it left out) or kept as marks;
 * the body checked before any order; an image comparison; polling, long polling and cancelling.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { corpusFile } from "../support/http.ts"
import {
  annotationsCall,
  json,
  listed,
  order,
  pageText,
  processedOrder,
  square,
  transformed
} from "./editing-support.ts"
import { servlet, viewerAndBroker } from "./support.ts"

/** Uploads through the viewer, as a browser does: the viewer's (sealed) ID. */
const uploaded = (bytes: Uint8Array, name: string) =>
  Effect.gen(function*() {
    const form = new FormData()
    form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), name)
    const reply = yield* servlet("uploadServlet", { method: "POST", body: form })
    expect(reply.status, reply.text).toBe(200)
    return reply.text
  })

const pageCount = (uuid: string) =>
  Effect.map(servlet(`documentLayout?uuid=${encodeURIComponent(uuid)}`), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return reply.json.pageDimensionsList.length as number
  })

/** A one-page PDF with a secret line above a public one, and where the secret line's run is. */
const secretPage = Effect.promise(async () => {
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  const page = pdf.addPage([595, 842])
  page.drawText("Secret code 1234 stays hidden", { x: 50, y: 780, size: 14, font })
  page.drawText("Public paragraph for everyone", { x: 50, y: 600, size: 14, font })
  return pdf.save()
})

const runOf = (uuid: string, text: string) =>
  Effect.map(servlet(`pageContent?uuid=${encodeURIComponent(uuid)}&pagePosition=0`), (reply) => {
    const run = (reply.json.positionTextList as ReadonlyArray<{ text: string; position: any }>).find((r) =>
      r.text.includes(text)
    )
    expect(run, reply.text).toBeDefined()
    return run!.position as { x: number; y: number; w: number; h: number }
  })

const SETTINGS = {
  VIEWER_DOCUMENT_ID_GENERATOR: "encryptedDocumentIdGenerator",
  VIEWER_DOCUMENT_ID_KEY: "a key for the orders test, long enough"
}

describe("order routes", () => {
  it.layer(viewerAndBroker(SETTINGS), { timeout: 300_000 })((it) => {
    it.effect("transformation: parts' pages in order, titled, their annotations on the pages they came from", () =>
      Effect.gen(function*() {
        const trace = yield* uploaded(corpusFile("pdf/tracemonkey.pdf"), "tracemonkey.pdf")
        const basic = yield* uploaded(corpusFile("pdf/basicapi.pdf"), "basicapi.pdf")
        const noted = yield* annotationsCall("POST", trace, {
          annotations: [square(2, { x: 100, y: 100, w: 80, h: 40 }, { contents: "On page three" })]
        })
        expect(noted.status, noted.text).toBe(200)
        yield* annotationsCall("POST", basic, {
          annotations: [{ type: "Text", page: 0, position: { x: 40, y: 40, w: 20, h: 20 }, contents: "Basic note" }]
        })

        const started = yield* transformed({
          title: "Bundle",
          parts: [
            { uuid: trace, pages: [{ from: 2, to: 3 }] },
            { uuid: basic, pages: [{ from: 0, to: 0 }] },
            { uuid: trace, pages: [{ from: 0, to: 0 }] }
          ]
        })
        expect(started).toMatchObject({ kind: "transformation", uuid: trace })
        expect(typeof started.orderId).toBe("string")
        const done = yield* processedOrder(trace, "transformation", started.orderId)
        expect(Object.keys(done).sort()).toEqual(
          ["error", "kind", "orderId", "processingTime", "queuedTime", "result", "results", "state"]
        )
        expect(done).toMatchObject({ kind: "transformation", orderId: started.orderId, error: null })
        expect(done.results).toEqual([done.result])
        expect(done.queuedTime).toBeGreaterThanOrEqual(0)
        expect(done.processingTime).toBeGreaterThanOrEqual(0)
        // A sealed ID, as every ID this viewer gives out.
        expect(done.result.startsWith("b64_")).toBe(true)
        expect(done.result.length).toBeGreaterThan(40)

        const result = done.result
        expect(yield* pageCount(result)).toBe(4)
        expect((yield* servlet(`documentLayout?uuid=${encodeURIComponent(result)}`)).json.documentTitle).toBe("Bundle")
        expect(yield* pageText(result, 0)).toBe(yield* pageText(trace, 2))
        expect(yield* pageText(result, 1)).toBe(yield* pageText(trace, 3))
        expect(yield* pageText(result, 2)).toBe(yield* pageText(basic, 0))
        expect(yield* pageText(result, 3)).toBe(yield* pageText(trace, 0))

        // Written into the result's PDF: they are its file's annotations now, on the pages they came with.
        const carried = (yield* listed(result)).annotations
        expect(carried.map((a) => [a.type, a.page, a.contents, a.origin])).toEqual([
          ["Square", 0, "On page three", "file"],
          ["Text", 2, "Basic note", "file"]
        ])
      }))

    it.effect("redact: the marks applied for real, an annotation over one left out, the others carried", () =>
      Effect.gen(function*() {
        const id = yield* uploaded(yield* secretPage, "secret.pdf")
        const secret = yield* runOf(id, "Secret")
        const kept = yield* annotationsCall("POST", id, {
          annotations: [
            { type: "Redact", page: 0, position: secret, redactReason: "PERSONAL_DATA" },
            { type: "Text", page: 0, position: { x: secret.x + 5, y: secret.y, w: 10, h: 10 }, contents: "It is 1234" },
            square(0, { x: 50, y: 400, w: 60, h: 30 }, { contents: "Far away" })
          ]
        })
        expect(kept.status, kept.text).toBe(200)

        const started = yield* transformed({ parts: [{ uuid: id }], redact: true })
        const result = (yield* processedOrder(id, "transformation", started.orderId)).result
        const text = yield* pageText(result, 0)
        expect(text).not.toContain("Secret")
        expect(text).not.toContain("1234")
        expect(text).toContain("Public paragraph")
        expect((yield* listed(result)).annotations.map((a) => [a.type, a.contents])).toEqual([["Square", "Far away"]])
        // The source keeps its marks, and its text.
        expect((yield* listed(id)).annotations).toHaveLength(3)
        expect(yield* pageText(id, 0)).toContain("Secret code 1234")
      }))

    it.effect("without redact the marks stay marks, on every page made from theirs", () =>
      Effect.gen(function*() {
        const id = yield* uploaded(yield* secretPage, "secret.pdf")
        const secret = yield* runOf(id, "Secret")
        yield* annotationsCall("POST", id, {
          annotations: [
            { type: "Redact", page: 0, position: secret, redactReason: "PERSONAL_DATA" },
            { type: "Text", page: 0, position: { x: secret.x + 5, y: secret.y, w: 10, h: 10 }, contents: "It is 1234" }
          ]
        })
        const started = yield* transformed({ parts: [{ uuid: id, pages: [{ from: 0, to: 0 }, { from: 0, to: 0 }] }] })
        const result = (yield* processedOrder(id, "transformation", started.orderId)).result
        expect(yield* pageText(result, 1)).toContain("Secret code 1234")
        const annotations = (yield* listed(result)).annotations
        const marks = annotations.filter((a) => a.type === "Redact")
        expect(marks.map((a) => [a.page, a.origin, a.redactReason])).toEqual([
          [0, "store", "PERSONAL_DATA"],
          [1, "store", "PERSONAL_DATA"]
        ])
        for (const mark of marks) {
          expect(mark.position.x).toBeCloseTo(secret.x, 1)
          expect(mark.position.y).toBeCloseTo(secret.y, 1)
        }
        // The note is written into the PDF (the broker lists a page taken twice's copy on its first page).
        expect(annotations.filter((a) => a.type === "Text").map((a) => [a.page, a.origin])).toContainEqual([0, "file"])
      }))

    it.effect("the body checked before any order: 400 naming the part and page; 404 for an unknown document", () =>
      Effect.gen(function*() {
        const id = yield* uploaded(corpusFile("pdf/basicapi.pdf"), "basicapi.pdf")
        const refused = (body: unknown) => servlet("transformation", json("POST", body))
        const cases: ReadonlyArray<[unknown, string]> = [
          [{ parts: [] }, "at least one part"],
          [{ parts: [{ uuid: id, pages: [{ from: 2, to: 1 }] }] }, "from 2 is after to 1"],
          [{ parts: [{ uuid: id }, { uuid: id, pages: [{ from: 0, to: 7 }] }] }, `parts[1] (${id}): page 7`],
          [{ parts: [{ uuid: id, pages: [{ from: -1, to: 0 }] }] }, "0-based"],
          [{ parts: [{ uuid: "" }] }, "uuid is required"]
        ]
        for (const [body, message] of cases) {
          const reply = yield* refused(body)
          expect(reply.status, JSON.stringify(body)).toBe(400)
          expect(reply.json.message).toContain(message)
        }
        const archive = yield* uploaded(corpusFile("office/nested.zip"), "nested.zip")
        const composite = yield* refused({ parts: [{ uuid: id }, { uuid: archive }] })
        expect(composite.status).toBe(400)
        expect(composite.json.message).toContain("composite document")
        const unknown = yield* refused({ parts: [{ uuid: "b64_nothing" }] })
        expect(unknown.status).toBe(400)
        expect(unknown.json.message).toContain("not a document ID of this viewer")
      }))

    it.effect("comparison: the broker's image comparison, polled with waitMs; orders cancelled; 404 and 400s", () =>
      Effect.gen(function*() {
        const left = yield* uploaded(corpusFile("pdf/basicapi.pdf"), "basicapi.pdf")
        const right = yield* uploaded(corpusFile("pdf/tracemonkey.pdf"), "tracemonkey.pdf")
        const compare = (query: string) => servlet(`comparison?${query}`, { method: "POST" })
        const started = yield* compare(`left=${encodeURIComponent(left)}&right=${encodeURIComponent(right)}&fuzz=5`)
        expect(started.status, started.text).toBe(200)
        expect(started.json).toMatchObject({ kind: "comparison", uuid: left })
        const done = yield* processedOrder(left, "comparison", started.json.orderId)
        expect(yield* pageCount(done.result)).toBeGreaterThan(0)

        expect((yield* compare(`left=${encodeURIComponent(left)}`)).status).toBe(400)
        expect((yield* compare(`left=${encodeURIComponent(left)}&right=${encodeURIComponent(right)}&fuzz=200`)).status)
          .toBe(400)

        // Cancelled and removed: the order goes, its result stays.
        const cancelled = yield* servlet(
          `order?uuid=${encodeURIComponent(left)}&kind=comparison&orderId=${started.json.orderId}`,
          { method: "DELETE" }
        )
        expect([cancelled.status, cancelled.text]).toEqual([200, "OK"])
        const gone = yield* order(left, "comparison", started.json.orderId)
        expect(gone.status).toBe(404)
        expect(gone.json._tag).toBe("OrderNotFound")
        expect(yield* pageCount(done.result)).toBeGreaterThan(0)

        // An order is found by its kind; an ID that is no order, or not one of that kind, is 404.
        expect((yield* order(left, "transformation", "no/such order")).status).toBe(404)
        const queued = yield* transformed({ parts: [{ uuid: left }] })
        expect((yield* order(left, "comparison", queued.orderId)).status).toBe(404)
        const polled = yield* order(left, "transformation", queued.orderId, 20_000)
        expect(polled.json.state).toBe("PROCESSED")
        expect((yield* servlet(`order?uuid=${encodeURIComponent(left)}&kind=merge&orderId=x`)).status).toBe(400)
        expect((yield* order(left, "transformation", queued.orderId, 40_000)).status).toBe(400)
      }))
  })
})
