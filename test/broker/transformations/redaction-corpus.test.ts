/**
 * Redaction of the corpus's PDF files: words found with pdf.js, OCR text over a scan (the scan's
 * stored pixels blanked), a CAD plan of ~38,600 paths, rotated and cropped pages (the region lands
 * where the reader sees it), an inline image MuPDF cannot write back, and ten regions of a 400-page
 * document in one call.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as path from "node:path"
import { degrees, PDFDocument, StandardFonts } from "pdf-lib"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import sharp from "sharp"
import { redact } from "../../../src/services/broker/transformations/Redaction.ts"
import { grow, into, paintedPaths } from "./redaction-paths-support.ts"
import {
  type Box,
  corpus,
  displayedBox,
  isRed,
  pageContent,
  pageImages,
  pageText,
  pixelBox,
  render,
  saved,
  scratch,
  SECRET,
  words
} from "./redaction-support.ts"

// On the real clock, which redact's own timeout runs on, as outside tests.
layer(NodeContext.layer, { excludeTestServices: true })("redaction", (it) => {
  it.effect("tracemonkey.pdf: words found with pdf.js leave their pages, the rest of the text stays, other pages keep their content", () =>
    Effect.gen(function*() {
      const pdf = corpus("tracemonkey.pdf")
      const { author, call } = yield* Effect.promise(async () => {
        const doc = await pdfjs.getDocument({ data: pdf.slice(), verbosity: 0, isEvalSupported: false }).promise
        const find = async (page: number, str: string) => {
          const items = (await (await doc.getPage(page + 1)).getTextContent()).items as Array<
            { str: string; transform: Array<number>; width: number; height: number }
          >
          const item = items.find((i) => i.str === str)!
          const [x, y] = [item.transform[4]!, item.transform[5]!]
          return [x + 0.5, y - 0.25 * item.height, x + item.width - 0.5, y + 0.75 * item.height] as const
        }
        const found = { author: await find(0, "Andreas Gal"), call: await find(2, "call js_Array_set") }
        await doc.destroy()
        return found
      })
      const result = yield* redact(pdf, [{ page: 0, rect: author }, { page: 2, rect: call }])
      const [before, after] = [pageText(pdf, 0), pageText(result, 0)]
      expect(before).toContain("Andreas Gal")
      expect(after).not.toContain("Andreas")
      expect(after).toContain("Brendan Eich")
      const left = words(after)
      const missing = words(before).filter((w) => !/Andreas|Gal/.test(w)).filter((w) => {
        const i = left.indexOf(w)
        if (i >= 0) left.splice(i, 1)
        return i < 0
      })
      expect(missing).toEqual([])
      const calls = (text: string) => text.split("call js_Array_set").length - 1
      expect(calls(pageText(result, 2))).toBe(calls(pageText(pdf, 2)) - 1)
      expect(pageText(result, 2)).toMatch(/push esi\s+add esp, 8/)
      const [original, redacted] = yield* Effect.promise(() =>
        Promise.all([PDFDocument.load(pdf), PDFDocument.load(result)])
      )
      for (const page of [1, 3, 13]) expect(pageContent(redacted, page).equals(pageContent(original, page))).toBe(true)
    }))

  it.effect("pdf-with-ocr-text.pdf: the OCR words in the region are gone and the scan's stored pixels there are blank", () =>
    Effect.gen(function*() {
      const pdf = corpus("pdf-with-ocr-text.pdf")
      const region: Box = [236, 284, 267, 293] // "Foundation" in "keep you posted on the progress of the Foundation"
      const result = yield* redact(pdf, [{ page: 0, rect: region }])
      const count = (text: string) => text.split("Foundation").length - 1
      const [before, after] = [pageText(pdf, 0), pageText(result, 0)]
      expect(count(after)).toBe(count(before) - 1)
      expect(after).toContain("keep you posted")
      // The scan (1254 x 1638 at 300 dpi over the whole page), decoded from the file: blank in the region, dark there before.
      const scale = 1254 / 300.96
      const rows = [Math.ceil((393.12 - region[3]) * scale), Math.floor((393.12 - region[1]) * scale)] as const
      const cols = [Math.ceil(region[0] * scale), Math.floor(region[2] * scale)] as const
      const inRegion = (samples: Uint8Array) => {
        const values: Array<number> = []
        for (let y = rows[0]; y < rows[1]; y++) values.push(...samples.subarray(y * 1254 + cols[0], y * 1254 + cols[1]))
        return values
      }
      const doc = yield* Effect.promise(() => PDFDocument.load(result))
      const [image] = pageImages(doc, 0)
      expect(image!.width).toBe(1254)
      expect(new Set(inRegion(image!.samples))).toEqual(new Set([255]))
      execFileSync("pdfimages", ["-j", saved(pdf), path.join(scratch, "scan")])
      const scan = yield* Effect.promise(() =>
        sharp(path.join(scratch, "scan-000.jpg")).extractChannel(0).raw().toBuffer()
      )
      expect(Math.min(...inRegion(scan))).toBeLessThan(100)
    }))

  it.effect("issue12810.pdf (a CAD plan of ~38,600 paths): the paths in the region are gone, every path away from it is kept", () =>
    Effect.gen(function*() {
      const pdf = corpus("issue12810.pdf")
      const region: Box = [700, 1100, 1000, 1400]
      const result = yield* redact(pdf, [{ page: 0, rect: region }])
      const [before, after] = yield* Effect.promise(() => Promise.all([paintedPaths(pdf, 0), paintedPaths(result, 0)]))
      expect(into(before.strokes, region).length + into(before.fills, region).length).toBeGreaterThan(1000)
      expect(into(after.strokes, region)).toEqual([])
      expect(into(after.fills, region)).toEqual([region]) // the black box
      // Every segment and fill more than 20 pt away from the region is still painted where it was (MuPDF
      // rewrites the numbers in single precision, so "where" is within 0.05 pt).
      const near = grow(region, 20)
      const lost = (original: ReadonlyArray<Box>, kept: ReadonlyArray<Box>) => {
        const buckets = new Map<number, Array<Box>>()
        const bucket = (x: number) => buckets.get(x) ?? buckets.set(x, []).get(x)!
        for (const b of kept) bucket(Math.round(b[0])).push(b)
        const found = (b: Box) =>
          [-1, 0, 1].some((d) => {
            const candidates = bucket(Math.round(b[0]) + d)
            const i = candidates.findIndex((k) => k.every((v, j) => Math.abs(v - b[j]!) < 0.05))
            if (i >= 0) candidates.splice(i, 1)
            return i >= 0
          })
        return original.filter((b) => into([b], near).length === 0 && !found(b))
      }
      expect(before.strokes.length - into(before.strokes, near).length).toBeGreaterThan(30_000)
      expect(lost(before.strokes, after.strokes)).toEqual([])
      expect(lost(before.fills, after.fills)).toEqual([])
    }))

  it.effect("rotated and cropped pages: the region lands where the reader sees it", () =>
    Effect.gen(function*() {
      // rotation.pdf page 2 is /Rotate 90 with its text running up the unrotated page.
      const rotation = corpus("rotation.pdf")
      const line: Box = [106, 71, 117, 156] // "Second line here."
      const rotated = yield* redact(rotation, [{ page: 1, rect: line }], { fill: [1, 0, 0] })
      expect(pageText(rotated, 1)).not.toContain("Second line")
      expect(pageText(rotated, 1)).toContain("This is my second page")
      expect(pageText(rotated, 0)).toBe(pageText(rotation, 0))
      const [shown, expected] = yield* Effect.promise(() =>
        Promise.all([render(rotated, 1), displayedBox(rotated, 1, line)])
      )
      expect(shown.width).toBeGreaterThan(shown.height)
      pixelBox(shown, isRed).forEach((v, i) => expect(Math.abs(v - expected[i]!)).toBeLessThanOrEqual(1.5))

      // A crop box that does not start at 0,0, on a page turned by 270 degrees.
      const doc = yield* Effect.promise(() => PDFDocument.create())
      const font = yield* Effect.promise(() => doc.embedFont(StandardFonts.Helvetica))
      const page = doc.addPage([600, 800])
      page.drawText(`Public ${SECRET} neighbour`, { x: 50, y: 700, size: 20, font })
      page.setCropBox(30, 40, 500, 700)
      page.setRotation(degrees(270))
      const cropped = yield* Effect.promise(() => doc.save())
      const x0 = 50 + font.widthOfTextAtSize("Public ", 20)
      const word: Box = [x0 - 1, 694, x0 + font.widthOfTextAtSize(SECRET, 20) + 1, 716]
      const result = yield* redact(cropped, [{ page: 0, rect: word }], { fill: [1, 0, 0] })
      expect(pageText(result, 0)).toMatch(/Public\s+neighbour/)
      expect(pageText(result, 0)).not.toContain("SECRET")
      const [shownCropped, expectedCropped] = yield* Effect.promise(() =>
        Promise.all([render(result, 0), displayedBox(result, 0, word)])
      )
      pixelBox(shownCropped, isRed).forEach((v, i) =>
        expect(Math.abs(v - expectedCropped[i]!)).toBeLessThanOrEqual(1.5)
      )
    }))

  it.effect("TAMReview.pdf: a page with an inline image MuPDF cannot write back (an indexed palette) is redacted all the same", () =>
    Effect.gen(function*() {
      const pdf = corpus("TAMReview.pdf")
      const header: Box = [72, 700, 300, 780] // the Sprouts logo (inline images) and the start of the title
      const result = yield* redact(pdf, [{ page: 0, rect: header }])
      const heading = (text: string) => text.split("Working Papers on Information Systems").length - 1 // also in the reference at the foot
      expect(heading(pageText(result, 0))).toBe(heading(pageText(pdf, 0)) - 1)
      expect(pageText(result, 0)).toContain("Mohammad Chuttur")
      const paths = yield* Effect.promise(() => paintedPaths(result, 0))
      expect(into(paths.fills, header).filter((b) => !b.every((v, i) => Math.abs(v - header[i]!) < 0.001))).toEqual([])
      const content = yield* Effect.promise(() =>
        PDFDocument.load(result).then((doc) => pageContent(doc, 0).toString("latin1"))
      )
      expect(content).not.toMatch(/\bBI\b/)
    }))

  it.effect("ten regions on ten pages of a 400-page document in one call", () =>
    Effect.gen(function*() {
      const pdf = corpus("pdf2image-memory-error-test-400p.pdf")
      const rect = [100, 300, 300, 400] as const
      const pages = Array.from({ length: 10 }, (_, i) => i * 40 + 3)
      const result = yield* redact(pdf, pages.map((page) => ({ page, rect })))
      // pdftotext's crop area is in points from the top left of the page (792 pt high).
      const textIn = (file: Uint8Array, page: number) =>
        execFileSync("pdftotext", [
          "-f",
          `${page + 1}`,
          "-l",
          `${page + 1}`,
          "-x",
          "100",
          "-y",
          `${792 - 400}`,
          "-W",
          "200",
          "-H",
          "100",
          saved(file),
          "-"
        ], { encoding: "utf8" }).trim()
      expect(pages.filter((page) => textIn(pdf, page) !== "").length).toBeGreaterThanOrEqual(7)
      for (const page of pages) {
        expect(textIn(result, page)).toBe("")
        expect(words(pageText(result, page)).length).toBeGreaterThan(20)
      }
      const [before, after] = yield* Effect.promise(() =>
        Promise.all([PDFDocument.load(pdf), PDFDocument.load(result)])
      )
      expect(after.getPageCount()).toBe(400)
      for (const page of [0, 2, 4, 200, 399]) {
        expect(pageContent(after, page).equals(pageContent(before, page))).toBe(true)
      }
    }))
})
