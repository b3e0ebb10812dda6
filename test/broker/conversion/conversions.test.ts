/**
 * Conversion orders and office documents as a client sees them: an upload answers at once, the
 * layout waits for the conversion, orders can be listed, polled, cancelled and deleted.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { zipSync } from "fflate"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, upload, uploadOk } from "../../support/http.ts"

const post = (url: string, body: unknown) =>
  call(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Polls an order until it is in one of `states` (or fails the test after `seconds`). */
const awaitState = (base: string, orderId: string, states: ReadonlyArray<string>, seconds = 120) =>
  Effect.gen(function*() {
    for (let i = 0; i < seconds * 10; i++) {
      const order = yield* call(`${base}/conversions/${orderId}`)
      if (order.status === 200 && states.includes(order.json.currentState)) return order.json
      yield* sleep(100)
    }
    throw new Error(`order ${orderId} never reached ${states.join(" or ")}`)
  })

layer(brokerTestLayer(defaultBackend.config), { timeout: 240_000 })("conversions", (it) => {
  it.effect("an uploaded .docx answers at once; its layout waits for the conversion and its text is searchable", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("office/docx-tables.docx"), "?documentTitle=tables.docx")
      const metadata = (yield* call(`${base}/documents/${id}`)).json
      expect(metadata.format).toBe("docx")
      expect(metadata.mimeType).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document")
      expect(metadata.renderedFormat).toBe("pdf")
      const orderId = metadata.conversionOrderIds.pdf.id as string
      expect((yield* call(`${base}/documents/${id}/conversions`)).json).toEqual([{ id: orderId }])

      const layout = (yield* call(`${base}/documents/${id}/layout`)).json
      expect(layout.mimeType).toBe(metadata.mimeType)
      expect(layout.pageDimensionsList.length).toBe(1)
      // Once the layout is there, the order is done.
      const order = (yield* call(`${base}/conversions/${orderId}`)).json
      expect(order).toMatchObject({
        conversionOrderId: { id: orderId },
        documentId: { id },
        currentState: "PROCESSED",
        format: "pdf",
        errorMessage: null
      })
      expect(order.queuedDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(order.processedDate >= order.queuedDate).toBe(true)
      expect(Number.isInteger(order.processingTime) && order.processingTime > 0).toBe(true)
      expect(Number.isInteger(order.queuedTime) && order.queuedTime >= 0).toBe(true)
      const listed = (yield* call(`${base}/conversions`)).json.find((o: { conversionOrderId: { id: string } }) =>
        o.conversionOrderId.id === orderId
      )
      expect(listed.currentState).toBe("PROCESSED")
      expect("queuedTime" in listed).toBe(false)

      const pages = (yield* call(`${base}/documents/${id}/pages?searchText=${encodeURIComponent("Nested Table")}`)).json
      expect(pages.pageList).toEqual([0])
      const pdf = yield* call(`${base}/documents/${id}/file?format=pdf`)
      expect(pdf.contentType).toBe("application/pdf")
      expect(pdf.bytes.subarray(0, 5).toString()).toBe("%PDF-")
      expect((yield* call(`${base}/documents/${id}/file`)).bytes.equals(corpusFile("office/docx-tables.docx"))).toBe(
        true
      )
    }))

  it.effect("POST /conversions queues an order that ends PROCESSED; bad requests get 400 and 404", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("office/fake.odt"))
      const created = yield* post(`${base}/conversions`, { documentId: { id }, format: "pdf" })
      expect(created.status).toBe(200)
      const orderId = created.json.conversionOrderId.id
      expect((yield* awaitState(base, orderId, ["PROCESSED", "FAILED"])).currentState).toBe("PROCESSED")
      expect((yield* call(`${base}/documents/${id}`)).json.conversionOrderIds.pdf.id).toBe(orderId)

      expect((yield* post(`${base}/conversions`, { documentId: { id }, format: "docx" })).status).toBe(400)
      expect((yield* post(`${base}/conversions`, { format: "pdf" })).status).toBe(400)
      expect((yield* post(`${base}/conversions`, { documentId: { id: "nope" }, format: "pdf" })).status).toBe(404)
      const malformed = yield* call(`${base}/conversions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{"
      })
      expect(malformed.status).toBe(400)
      expect(malformed.json).toEqual({
        _tag: "InvalidRequest",
        message: "The request body could not be read: it is not valid JSON"
      })
      const asText = yield* call(`${base}/conversions`, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: JSON.stringify({ documentId: { id }, format: "pdf" })
      })
      expect(asText.status).toBe(400)
      expect(asText.json.message).toMatch(/Content-Type: application\/json/)
      const missing = yield* post(`${base}/conversions`, { format: "pdf" })
      expect(missing.json.message).toBe("The request does not match the API: documentId: is missing")
      const noRoute = yield* call(`${base}/conversion`)
      expect(noRoute.status).toBe(404)
      expect(noRoute.json._tag).toBe("RouteNotFound")
      expect((yield* call(`${base}/conversions/unknown-order`)).status).toBe(404)
      expect((yield* call(`${base}/conversions/unknown-order`, { method: "DELETE" })).status).toBe(404)
      expect((yield* call(`${base}/documents/nope/conversions`)).status).toBe(404)

      expect((yield* call(`${base}/conversions/${orderId}`, { method: "DELETE" })).status).toBe(200)
      expect((yield* call(`${base}/conversions/${orderId}`)).status).toBe(404)
    }))

  it.effect("a file LibreOffice cannot read fails its order with the reason; the layout answers 500 with it", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      // A Word package whose document part is not XML.
      const broken = zipSync({
        "[Content_Types].xml": new TextEncoder().encode(
          `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`
        ),
        "word/document.xml": new Uint8Array([0xde, 0xad, 0xbe, 0xef])
      })
      const id = yield* uploadOk(base, broken, "?documentTitle=broken.docx")
      const layout = yield* call(`${base}/documents/${id}/layout`)
      expect(layout.status).toBe(500)
      const orderId = (yield* call(`${base}/documents/${id}`)).json.conversionOrderIds.pdf.id
      const order = (yield* call(`${base}/conversions/${orderId}`)).json
      expect(order.currentState).toBe("FAILED")
      expect(order.errorMessage.length).toBeGreaterThan(10)
      expect(layout.json.message).toBe(order.errorMessage)
    }))

  it.effect("a password-protected office file is refused at upload with a clear message", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const reply = yield* upload(base, corpusFile("office/password_protected.xlsx"))
      expect(reply.status).toBe(400)
      expect(reply.json.message).toMatch(/password/i)
    }))

  it.effect("DELETE of a running order stops it, the next conversion runs, DELETE /conversions empties the list", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const big = yield* uploadOk(base, corpusFile("office/handbook-872p.docx"))
      const orderId = (yield* call(`${base}/documents/${big}`)).json.conversionOrderIds.pdf.id
      yield* awaitState(base, orderId, ["PROCESSING"])
      const started = Date.now()
      expect((yield* call(`${base}/conversions/${orderId}`, { method: "DELETE" })).status).toBe(200)
      expect((yield* call(`${base}/conversions/${orderId}`)).status).toBe(404)
      // The pool is free again at once: a small document converts without waiting for the big one.
      const small = yield* uploadOk(base, corpusFile("office/fake.odt"))
      expect((yield* call(`${base}/documents/${small}/layout`)).status).toBe(200)
      expect(Date.now() - started).toBeLessThan(30_000)

      expect((yield* call(`${base}/conversions`, { method: "DELETE" })).status).toBe(200)
      expect((yield* call(`${base}/conversions`)).json).toEqual([])
      expect((yield* call(`${base}/documents/${small}`)).json.conversionOrderIds).toEqual({})
    }))

  it.effect("the same bytes named .csv and .txt are two documents, each converted as what it is", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const bytes = new TextEncoder().encode(`alpha,beta\n${Date.now()},2\n`)
      const asText = yield* uploadOk(base, bytes, "?documentTitle=values.txt")
      const asCsv = yield* uploadOk(base, bytes, "?documentTitle=values.csv")
      const textOf = (id: string) =>
        call(`${base}/documents/${id}/pages/0/text/position`).pipe(
          Effect.map((r) => r.json.positionTextList.map((t: { text: string }) => t.text).join(" "))
        )
      expect((yield* call(`${base}/documents/${asText}`)).json.format).toBe("text")
      expect((yield* call(`${base}/documents/${asCsv}`)).json.format).toBe("csv")
      // Plain text keeps the commas; the spreadsheet puts each value in a cell of its own.
      expect(yield* textOf(asText)).toContain("alpha,beta")
      const cells = yield* textOf(asCsv)
      expect(cells).toContain("alpha")
      expect(cells).not.toContain("alpha,beta")
      // The sheet is named as a spreadsheet's first sheet, not after a temporary file.
      expect(cells).not.toMatch(/\bin-\d+|document/)
    }))

  it.effect("a conversion order for a document registered from a layout fails: there is nothing to convert", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const documentId = `layout-${Date.now()}`
      const registered = yield* post(`${base}/documents/layout`, {
        documentId,
        pageDimensionsList: [{ width: 612, height: 792, rotation: 0, dpi: 72 }]
      })
      expect(registered.status).toBe(200)
      const created = (yield* post(`${base}/conversions`, { documentId: { id: documentId }, format: "pdf" })).json
      const order = yield* awaitState(base, created.conversionOrderId.id, ["PROCESSED", "FAILED"])
      expect(order.currentState).toBe("FAILED")
      expect(order.errorMessage).toMatch(/registered from a layout/)
    }))
})
