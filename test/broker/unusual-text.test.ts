/**
 * Text PostgreSQL cannot keep as it is (NUL, unpaired surrogates) reaching the broker from a
 * document or a request body: the document opens and keeps its title without the NUL, annotations
 * are stored cleaned (docs/storage.md, "What text may hold"), on every storage backend.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { PDFDocument } from "pdf-lib"
import { brokerTestLayer, BrokerUrl } from "../../src/layers/Test.ts"
import { backends } from "../support/backends.ts"
import { call, pngSize, upload, uploadOk } from "../support/http.ts"

const json = (method: string, body: unknown) => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body)
})

/** A one-page PDF whose Info dictionary holds a NUL, as the fuzzer's mutated files did. */
const pdfTitled = (title: string, author = "Finance") =>
  Effect.promise(async () => {
    const doc = await PDFDocument.create()
    doc.addPage([300, 200]).drawText("Quarterly figures", { x: 20, y: 100, size: 18 })
    doc.setTitle(title)
    doc.setAuthor(author)
    return doc.save()
  })

for (const backend of backends) {
  layer(brokerTestLayer(backend.config), { timeout: 120_000 })(`unusual text (${backend.name})`, (it) => {
    it.effect("a PDF whose title holds a NUL opens, and keeps its title without the NUL", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, yield* pdfTitled("Quarterly\u0000report", "Finance\u0000Team"))
        const metadata = yield* call(`${base}/documents/${id}`)
        expect(metadata.status).toBe(200)
        expect(JSON.parse(metadata.json.documentMetadata)).toMatchObject({
          Title: "Quarterlyreport",
          Author: "FinanceTeam",
          pageCount: "1"
        })
        expect((yield* call(`${base}/documents/${id}/layout`)).json.pageDimensionsList).toHaveLength(1)
        const image = yield* call(`${base}/documents/${id}/pages/0/image?pageImageDescription=IM_300_0`)
        expect(image.status).toBe(200)
        expect(pngSize(image.bytes).width).toBe(300)
        const text = yield* call(`${base}/documents/${id}/pages/0/text/position`)
        expect(JSON.stringify(text.json)).toContain("Quarterly")
      }))

    it.effect("a title given with the upload: control characters are refused, naming the field", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const reply = yield* upload(base, yield* pdfTitled("plain"), `?documentTitle=${encodeURIComponent("a\u0000b")}`)
        expect(reply.status).toBe(400)
        expect(reply.json.message).toContain("documentTitle must not contain control characters")
      }))

    it.effect("annotation fields with NUL and unpaired surrogates are stored cleaned, and read back", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, yield* pdfTitled("annotated"))
        const note = (subject: string, contents: string) => ({
          type: "Text",
          page: 0,
          position: { x: 10, y: 10, w: 20, h: 20 },
          subject,
          contents,
          creator: "Ann\u0000e",
          replies: [{ creator: "Bob", contents: "ok\u0000" }]
        })
        const created = yield* call(
          `${base}/annotation?documentId=${id}`,
          json("PUT", { annotations: [note("a\u0000b", "c\ud800d"), note("e\udc00", "\u0000")] })
        )
        expect(created.status).toBe(200)
        const listed = (yield* call(`${base}/annotation?documentId=${id}`)).json.annotations
        expect(listed.map((a: { subject: string; contents: string }) => [a.subject, a.contents]).sort()).toEqual([[
          "ab",
          "c\uFFFDd"
        ], ["e\uFFFD", ""]])
        expect(
          listed.every((a: { creator: string; replies: Array<{ contents: string }> }) =>
            a.creator === "Anne" && a.replies[0]!.contents === "ok"
          )
        ).toBe(true)
        // The XFDF export (written from what is stored) is well-formed and holds the cleaned text.
        const xfdf = yield* call(`${base}/documents/${id}/file/annotations`)
        expect(xfdf.status).toBe(200)
        expect(xfdf.text).toContain("Anne")
        expect(xfdf.text).not.toContain("\u0000")
      }))
  })
}
