/**
 * Comparisons as a client sees them: an image comparison of a document with itself (nothing
 * highlighted), of two versions differing in known words (highlights where they differ, nowhere
 * else), of two corpus PDFs of different lengths; the word-level /difference of the two versions;
 * the errors and the order endpoints.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { PDFDocument, StandardFonts } from "pdf-lib"
import sharp from "sharp"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, uploadOk } from "../../support/http.ts"

const json = (method: string, body: unknown) => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body)
})

const PARAGRAPH = [
  "The quick brown fox jumps over the lazy dog near the river bank.",
  "Every morning the old keeper opens the gate and counts the sheep.",
  "In the evening the lights of the village shine across the water."
]

/** A one-page PDF of the paragraph, with `changes` applied (word → replacement). */
const version = (changes: Readonly<Record<string, string>>) =>
  Effect.promise(async () => {
    const pdf = await PDFDocument.create()
    const font = await pdf.embedFont(StandardFonts.Helvetica)
    const page = pdf.addPage([595, 842])
    PARAGRAPH.forEach((line, i) => {
      const text = line.split(" ").map((w) => changes[w] ?? w).filter((w) => w !== "").join(" ")
      page.drawText(text, { x: 50, y: 780 - i * 20, size: 12, font })
    })
    pdf.setTitle(JSON.stringify(changes))
    return pdf.save()
  })

/** The pixels of the highlight colour (#E8112D, the default) on a page image of the result. */
const highlighted = (png: Uint8Array) =>
  Effect.promise(async () => {
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })
    const hits: Array<{ x: number; y: number }> = []
    for (let i = 0; i < data.length; i += 3) {
      if (data[i]! > 180 && data[i + 1]! < 90 && data[i + 2]! < 110) {
        hits.push({ x: (i / 3) % info.width, y: Math.floor(i / 3 / info.width) })
      }
    }
    return { hits, width: info.width, height: info.height }
  })

layer(brokerTestLayer(defaultBackend.config), { timeout: 300_000 })("comparisons", (it) => {
  const compare = (base: string, body: unknown) =>
    Effect.gen(function*() {
      const queued = yield* call(`${base}/comparisons`, json("POST", body))
      expect(queued.status).toBe(200)
      const id = queued.json.comparisonOrderId.id as string
      const order = (yield* call(`${base}/comparisons/${id}?timeoutMs=120000`)).json
      expect(order).toMatchObject({ currentState: "PROCESSED", errorMessage: null })
      return { id, order }
    })

  it.effect("a document against itself: nothing highlighted; against a version with other words: highlights there only", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const left = yield* uploadOk(base, yield* version({}))
      const right = yield* uploadOk(base, yield* version({ quick: "slow", keeper: "shepherd" }))

      const same = yield* compare(base, { leftDocumentId: left, rightDocumentId: { id: left } })
      expect(same.order).toMatchObject({
        leftDocumentId: { id: left },
        rightDocumentId: { id: left },
        fuzz: 4,
        highlightColor: "#E8112D"
      })
      const sameTarget = same.order.targetDocumentId.id
      expect((yield* call(`${base}/documents/${sameTarget}/layout`)).json.pageDimensionsList).toHaveLength(1)
      expect((yield* highlighted((yield* call(`${base}/documents/${sameTarget}/pages/0/image`)).bytes)).hits)
        .toHaveLength(0)

      const changed = yield* compare(base, { leftDocumentId: left, rightDocumentId: right })
      const image = yield* highlighted(
        (yield* call(`${base}/documents/${changed.order.targetDocumentId.id}/pages/0/image`)).bytes
      )
      expect(image.hits.length).toBeGreaterThan(50)
      // Every highlighted pixel lies on the first two lines (where the changed words are), in the page's text band.
      const scale = image.width / 595
      for (const hit of image.hits) {
        expect(hit.y / scale).toBeGreaterThan(842 - 780 - 14)
        expect(hit.y / scale).toBeLessThan(842 - 760 + 6)
      }

      // The same versions, word by word.
      const difference = (yield* call(`${base}/difference?leftDocumentId=${left}&rightDocumentId=${right}`)).json
      expect(difference.leftDocumentId).toEqual({ id: left })
      const changes = difference.textChanges as Array<any>
      expect(changes.map((c) => [c.changeType, c.left.text, c.right.text])).toEqual([["MODIFIED", "quick", "slow"], [
        "MODIFIED",
        "keeper",
        "shepherd"
      ]])
      expect(changes[0].left.pageNumber).toBe(0)
      expect(changes[0].fragments).toEqual([
        { text: "quick", type: "DELETED", pageNumber: 0, endOfLine: false },
        { text: "slow", type: "INSERTED", pageNumber: 0, endOfLine: false }
      ])
      expect(changes[0].left.position.x).toBeGreaterThan(50)
      expect((yield* call(`${base}/difference?leftDocumentId=${left}&rightDocumentId=${left}`)).json.textChanges)
        .toEqual([])
    }))

  it.effect("two corpus PDFs of different lengths: one result page per page of the longer, the extra pages all difference", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const paper = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      const sizes = yield* uploadOk(base, corpusFile("pdf/sizes.pdf"))
      const done = yield* compare(base, {
        leftDocumentId: sizes,
        rightDocumentId: paper,
        fuzz: 5,
        highlightColor: "rgb(232,17,45)",
        lowlightColor: "#ccc"
      })
      // Colours are shown as the spec's hex colours, however the request wrote them.
      expect(done.order).toMatchObject({ fuzz: 5, highlightColor: "#E8112D", lowlightColor: "#CCCCCC" })
      const target = done.order.targetDocumentId.id
      const dimensions = (id: string) =>
        call(`${base}/documents/${id}/layout`).pipe(
          Effect.map((r) => r.json.pageDimensionsList as Array<{ width: number; height: number }>)
        )
      const [left, right, result] = [yield* dimensions(sizes), yield* dimensions(paper), yield* dimensions(target)]
      expect(result).toHaveLength(14)
      // Each result page: as wide as the wider page, as tall as the taller one at that width.
      result.forEach((page, i) => {
        const pair = [left[i], right[i]].filter((p) => p !== undefined)
        const width = Math.max(...pair.map((p) => p.width))
        expect(page.width).toBeCloseTo(width, 1)
        expect(page.height).toBeCloseTo(Math.max(...pair.map((p) => (p.height * width) / p.width)), 1)
      })
      const last = yield* highlighted((yield* call(`${base}/documents/${target}/pages/13/image`)).bytes)
      expect(last.hits.length).toBeGreaterThan(1000)
    }))

  it.effect("errors and order endpoints: 400, 404, list, delete", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const doc = yield* uploadOk(base, yield* version({ dog: "cat" }))
      const post = (body: unknown) => call(`${base}/comparisons`, json("POST", body))
      expect((yield* post({ leftDocumentId: doc })).status).toBe(400)
      expect((yield* post({ leftDocumentId: doc, rightDocumentId: doc, fuzz: 101 })).status).toBe(400)
      const badColour = yield* post({ leftDocumentId: doc, rightDocumentId: doc, highlightColor: "bright" })
      expect(badColour.status).toBe(400)
      expect(badColour.json.message).toContain("bright")
      // Every problem of the body is named: both colours and the fuzz.
      const threeBad = yield* post({
        leftDocumentId: doc,
        rightDocumentId: doc,
        fuzz: 101,
        highlightColor: "bright",
        lowlightColor: "dull"
      })
      expect(threeBad.status).toBe(400)
      for (const named of ["fuzz", "'bright' is not a colour", "'dull' is not a colour"]) {
        expect(threeBad.json.message).toContain(named)
      }
      expect((yield* post({ leftDocumentId: doc, rightDocumentId: "b64_missing" })).status).toBe(404)
      const mail = yield* uploadOk(base, corpusFile("office/fake-email-attachment.eml"))
      const composite = yield* post({ leftDocumentId: doc, rightDocumentId: mail })
      expect(composite.status).toBe(400)
      expect(composite.json.message).toContain("composite document")
      expect((yield* call(`${base}/comparisons/nope`)).status).toBe(404)
      expect((yield* call(`${base}/difference?leftDocumentId=${doc}`)).status).toBe(400)
      expect((yield* call(`${base}/difference?leftDocumentId=${doc}&rightDocumentId=b64_missing`)).status).toBe(404)

      const queued = (yield* post({ leftDocumentId: doc, rightDocumentId: doc })).json.comparisonOrderId.id
      expect(((yield* call(`${base}/comparisons`)).json as Array<any>).map((o) => o.comparisonOrderId.id)).toContain(
        queued
      )
      expect((yield* call(`${base}/comparisons/${queued}`, { method: "DELETE" })).status).toBe(200)
      expect((yield* call(`${base}/comparisons/${queued}`)).status).toBe(404)
    }))
})
