/**
 * downloadServlet/mergedWithCompareResult against a real broker: two versions of a text that
 * differ in known words; the result holds the left's pages then the right's, the changed words
 * drawn red and the shared ones green, where the words are; the 400s and 404s.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { PDFDocument, StandardFonts } from "pdf-lib"
import sharp from "sharp"
import { BrokerUrl } from "../../src/layers/Test.ts"
import { uploadOk } from "../support/http.ts"
import { servlet, viewerAndBroker } from "./support.ts"

const LINE = "The quick brown fox jumps over the lazy dog near the river bank."
const SECOND_PAGE = "Every morning the old keeper opens the gate and counts the sheep."
const SIZE = 14
const X = 50
const BASELINE = 780

/** A PDF of `LINE` with `replace` applied on its first page, and `SECOND_PAGE` on a second when asked. */
const version = (replace: Readonly<Record<string, string>>, secondPage: boolean) =>
  Effect.promise(async () => {
    const pdf = await PDFDocument.create()
    const font = await pdf.embedFont(StandardFonts.Helvetica)
    const text = LINE.split(" ").map((w) => replace[w] ?? w).join(" ")
    pdf.addPage([595, 842]).drawText(text, { x: X, y: BASELINE, size: SIZE, font })
    if (secondPage) pdf.addPage([595, 842]).drawText(SECOND_PAGE, { x: X, y: BASELINE, size: SIZE, font })
    const bytes = await pdf.save()
    // Where each word of the first line is, in points from the top left.
    const boxes = new Map<string, { x0: number; x1: number }>()
    let x = X
    for (const word of text.split(" ")) {
      const width = font.widthOfTextAtSize(word, SIZE)
      boxes.set(word, { x0: x, x1: x + width })
      x += width + font.widthOfTextAtSize(" ", SIZE)
    }
    return { bytes, boxes }
  })

/** Red and green pixels in the middle band of a word's box on a page image `scale` pixels per point. */
const colours = (png: Uint8Array, box: { x0: number; x1: number }, scale: number) =>
  Effect.promise(async () => {
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })
    let red = 0
    let green = 0
    // From the baseline up to about the x-height: the word's ink and the highlight around it.
    for (let y = Math.round((842 - BASELINE - 7) * scale); y < Math.round((842 - BASELINE) * scale); y++) {
      for (let x = Math.round((box.x0 + 1) * scale); x < Math.round((box.x1 - 1) * scale); x++) {
        const i = (y * info.width + x) * 3
        const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!]
        if (r > 180 && g < 100 && b < 100) red++
        if (g > 140 && r < 100 && b < 100) green++
      }
    }
    return { red, green }
  })

describe("mergedWithCompareResult", () => {
  it.layer(viewerAndBroker(), { timeout: 180_000 })((it) => {
    it.effect("the left's pages then the right's; changed words red, shared words green", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const left = yield* version({}, true)
        const right = yield* version({ quick: "slow" }, false)
        const leftId = yield* uploadOk(broker, left.bytes)
        const rightId = yield* uploadOk(broker, right.bytes)

        const reply = yield* servlet(`downloadServlet/mergedWithCompareResult?left=${leftId}&right=${rightId}`)
        expect(reply.status, reply.text).toBe(200)
        expect(reply.contentType).toBe("application/pdf")
        const pdf = yield* Effect.promise(() => PDFDocument.load(reply.bytes))
        expect(pdf.getPageCount()).toBe(3)

        // The result's pages as the broker draws them, 2 pixels per point.
        const result = yield* uploadOk(broker, reply.bytes)
        const page = (n: number) =>
          Effect.map(servlet(`imageServlet?uuid=${result}&pagePosition=${n}&desc=1190`), (r) => r.bytes)
        const [leftPage, deletedPage, rightPage] = [yield* page(0), yield* page(1), yield* page(2)]

        const quick = yield* colours(leftPage, left.boxes.get("quick")!, 2)
        expect(quick.red).toBeGreaterThan(100)
        expect(quick.green).toBe(0)
        const brown = yield* colours(leftPage, left.boxes.get("brown")!, 2)
        expect(brown.green).toBeGreaterThan(100)
        expect(brown.red).toBe(0)

        const slow = yield* colours(rightPage, right.boxes.get("slow")!, 2)
        expect(slow.red).toBeGreaterThan(100)
        expect(slow.green).toBe(0)
        const river = yield* colours(rightPage, right.boxes.get("river")!, 2)
        expect(river.green).toBeGreaterThan(100)
        expect(river.red).toBe(0)

        // The left's second page has no counterpart: every word of it is deleted text.
        const whole = yield* colours(deletedPage, { x0: X, x1: 400 }, 2)
        expect(whole.red).toBeGreaterThan(1000)
        expect(whole.green).toBe(0)
      }))

    it.effect("400 without left or right, 404 when either is unknown", () =>
      Effect.gen(function*() {
        const known = yield* uploadOk(yield* BrokerUrl, (yield* version({}, false)).bytes)
        expect((yield* servlet(`downloadServlet/mergedWithCompareResult?left=${known}`)).status).toBe(400)
        expect((yield* servlet(`downloadServlet/mergedWithCompareResult?right=${known}`)).status).toBe(400)
        expect((yield* servlet(`downloadServlet/mergedWithCompareResult?left=b64_nothing&right=${known}`)).status)
          .toBe(404)
        expect((yield* servlet(`downloadServlet/mergedWithCompareResult?left=${known}&right=b64_nothing`)).status)
          .toBe(404)
      }))
  })
})
