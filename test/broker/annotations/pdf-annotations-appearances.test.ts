/**
 * Annotation appearances are really drawn: rendered with poppler (pdftoppm) and MuPDF (mutool draw)
 * and checked pixel by pixel, every subtype where it belongs and nothing outside its rectangle;
 * flattening draws the same thing into the page (its text is page text), Redact is an outline until
 * flattened, and what Helvetica cannot show is replaced and said so.
 */
import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import { PDFDocument } from "pdf-lib"
import type { PdfAnnotation } from "../../../src/services/broker/annotations/PdfAnnotation.ts"
import { readAnnotations } from "../../../src/services/broker/annotations/PdfAnnotationReader.ts"
import { writeAnnotations } from "../../../src/services/broker/annotations/PdfAnnotations.ts"
import {
  brightness,
  differing,
  insideAny,
  near,
  pixel,
  pixelsIn,
  render,
  RENDERERS,
  yellowish
} from "./pdf-annotations-rendering-support.ts"
import { annotsOf, drawnFixture, load, PDF, pdfjsAnnotations, save, textPage, tool } from "./pdf-annotations-support.ts"

describe("PDF annotations", () => {
  describe("appearances, as rendered", () => {
    const byName = (annotations: ReadonlyArray<PdfAnnotation>, name: string) =>
      annotations.find((a) => a.name === name)!

    for (const renderer of RENDERERS) {
      it(`draws every subtype where it belongs (objects, ${renderer})`, async () => {
        const blank = await textPage()
        const base = await render(await save(blank.pdf, "base"), 0, renderer)
        const { pdf, annotations } = await drawnFixture()
        writeAnnotations(pdf, annotations, "objects")
        const r = await render(await save(pdf, "objects"), 0, renderer)

        // Highlight: yellow over the words, and the words stay dark under it (multiply).
        const hl = pixelsIn(r, byName(annotations, "hl").rect, 0.5)
        expect(hl.filter(yellowish).length / hl.length).toBeGreaterThan(0.6)
        expect(Math.min(...hl.map(brightness))).toBeLessThan(70)
        expect(hl.filter((c) => brightness(c) < 70).length).toBeGreaterThan(50)

        // Underline under the words, strike-out through them, squiggle under them.
        const ul = byName(annotations, "ul").rect
        expect(pixelsIn(r, [ul[0] + 2, ul[1], ul[2] - 2, ul[1] + 2]).filter((c) => near(c, [0, 0, 1], 60)).length)
          .toBeGreaterThan(100)
        const so = byName(annotations, "so").rect
        const middle = (so[1] + so[3]) / 2
        expect(pixelsIn(r, [so[0] + 2, middle - 1, so[2] - 2, middle + 1]).filter((c) => near(c, [1, 0, 0], 60)).length)
          .toBeGreaterThan(100)
        const sq = byName(annotations, "sq").rect
        expect(pixelsIn(r, [sq[0], sq[1], sq[2], sq[1] + 3]).filter((c) => near(c, [0, 0.6, 0], 70)).length)
          .toBeGreaterThan(60)

        // Square: red border, light blue inside; circle: half-transparent green inside, blue ring.
        const square = byName(annotations, "square-1").rect
        expect(near(pixel(r, [square[0] + 2, (square[1] + square[3]) / 2]), [1, 0, 0])).toBe(true)
        expect(near(pixel(r, [square[2] - 2, square[1] + 30]), [1, 0, 0])).toBe(true)
        expect(near(pixel(r, [(square[0] + square[2]) / 2, (square[1] + square[3]) / 2]), [0.8, 0.9, 1])).toBe(true)
        const circle = byName(annotations, "circle-1").rect
        expect(near(pixel(r, [(circle[0] + circle[2]) / 2, (circle[1] + circle[3]) / 2]), [0.5, 1, 0.5], 12)).toBe(true)
        expect(near(pixel(r, [circle[0] + 0.75, (circle[1] + circle[3]) / 2]), [0.5, 0.5, 1], 40)).toBe(true)
        // Circle's corner: outside the ellipse, untouched.
        expect(near(pixel(r, [circle[0] + 3, circle[1] + 3]), [1, 1, 1], 5)).toBe(true)

        // Ink passes through its points; line through its middle; polygon filled, polyline not.
        for (const stroke of byName(annotations, "ink-1").inkList!) {
          for (const p of stroke) expect(near(pixel(r, p), [0, 0, 1], 60)).toBe(true)
        }
        expect(near(pixel(r, [455, 505]), [0.5, 0, 0.5], 60)).toBe(true)
        expect(near(pixel(r, [135, 340]), [1, 1, 0.6], 20)).toBe(true)
        expect(near(pixel(r, [285, 330]), [1, 1, 1], 5)).toBe(true)

        // The note icon, the FreeText's background and text, the stamp's green frame and letters.
        expect(pixelsIn(r, byName(annotations, "note-1").rect).filter((c) => near(c, [1, 0.82, 0], 40)).length)
          .toBeGreaterThan(300)
        const freeText = pixelsIn(r, byName(annotations, "ft-1").rect, 1.5)
        expect(freeText.filter((c) => near(c, [1, 1, 0.85], 10)).length / freeText.length).toBeGreaterThan(0.7)
        expect(freeText.filter((c) => near(c, [0, 0, 0.6], 50)).length).toBeGreaterThan(200)
        const stamp = pixelsIn(r, byName(annotations, "stamp-1").rect)
        expect(stamp.filter((c) => near(c, [0, 0.5, 0], 50)).length).toBeGreaterThan(1500)

        // Nothing outside the rectangles: the thick ink at the corner of its box is cut at the box.
        const stray = differing(base, r, 24).filter((p) => !insideAny(r, annotations.map((a) => a.rect), p))
        expect(stray).toEqual([])
        expect(near(pixel(r, [580, 120]), [1, 0, 0], 40)).toBe(true)
        expect(near(pixel(r, [559, 99]), [1, 1, 1], 5)).toBe(true)
      })

      it(`flattens into the page what objects mode shows, adding no annotation (${renderer})`, async () => {
        const objects = await drawnFixture()
        writeAnnotations(objects.pdf, objects.annotations, "objects")
        const flat = await drawnFixture()
        const annotsBefore = annotsOf(flat.pdf, 0)
        writeAnnotations(flat.pdf, flat.annotations, "flatten")
        const flatFile = await save(flat.pdf, "flatten")
        const reloaded = await load(flatFile)
        expect(annotsOf(reloaded, 0)).toBe(annotsBefore)
        expect(readAnnotations(reloaded)).toEqual([])
        expect(await pdfjsAnnotations(flatFile)).toEqual([])
        const a = await render(await save(objects.pdf, "objects"), 0, renderer)
        const b = await render(flatFile, 0, renderer)
        expect(differing(a, b)).toEqual([])
      })
    }

    it("flattened text is page text: pdftotext finds the stamp's and the FreeText's words", async () => {
      const { pdf, annotations } = await drawnFixture()
      writeAnnotations(pdf, annotations, "flatten")
      const text = tool("pdftotext", [await save(pdf, "flat-text"), "-"])
      expect(text).toContain("APPROVED")
      expect(text).toContain("Budget approved by the board")
    })

    it("flattens into a file's page with annotations of its own, keeping them", async () => {
      const pdf = await load(path.join(PDF, "annotation-highlight.pdf"))
      const before = annotsOf(pdf, 0)
      writeAnnotations(pdf, [{
        subtype: "Stamp",
        page: 0,
        name: "s",
        rect: [300, 400, 500, 460],
        iconName: "Confidential"
      }], "flatten")
      const file = await save(pdf, "flat-corpus")
      expect(annotsOf(await load(file), 0)).toBe(before)
      expect(readAnnotations(await load(file)).map((a) => a.subtype)).toEqual(["Highlight"])
      expect(tool("pdftotext", [file, "-"])).toContain("CONFIDENTIAL")
    })

    it("Redact: an outline to be applied in objects mode, a black box when flattened", async () => {
      const redact: PdfAnnotation = {
        subtype: "Redact",
        page: 0,
        name: "r",
        rect: [70, 605, 200, 715],
        color: [1, 0, 0],
        overlayText: "WITHHELD"
      }
      const objects = await textPage()
      writeAnnotations(objects.pdf, [redact], "objects")
      const flat = await textPage()
      writeAnnotations(flat.pdf, [redact], "flatten")
      for (const renderer of RENDERERS) {
        const o = await render(await save(objects.pdf, "redact-objects"), 0, renderer)
        expect(near(pixel(o, [70.5, 650]), [1, 0, 0], 60)).toBe(true)
        // The text is still there to read until the redaction is applied.
        expect(Math.min(...pixelsIn(o, objects.lines[0]!.rect, 1).map(brightness))).toBeLessThan(70)
        expect(pixelsIn(o, [80, 620, 190, 700]).filter((c) => brightness(c) > 200).length).toBeGreaterThan(1000)
        const f = await render(await save(flat.pdf, "redact-flat"), 0, renderer)
        expect(pixelsIn(f, redact.rect).every((c) => brightness(c) < 30)).toBe(true)
      }
    })

    it("replaces what Helvetica cannot show, says so, and keeps the text in /Contents", async () => {
      const note: PdfAnnotation = {
        subtype: "FreeText",
        page: 0,
        name: "snow",
        rect: [72, 600, 400, 640],
        contents: "Snow ☃ in Kraków, Ωmega",
        fontSize: 14
      }
      for (const mode of ["objects", "flatten"] as const) {
        const pdf = await PDFDocument.create()
        pdf.addPage()
        const warnings = writeAnnotations(pdf, [note], mode)
        expect(warnings).toHaveLength(1)
        expect(warnings[0]!.name).toBe("snow")
        expect(warnings[0]!.message).toContain("☃")
        const file = await save(pdf, `replaced-${mode}`)
        if (mode === "objects") expect(readAnnotations(await load(file))[0]!.contents).toBe(note.contents)
        // ó is in Helvetica's encoding; the snowman and Ω (no base letter it has) become "?".
        else expect(tool("pdftotext", [file, "-"])).toContain("Snow ? in Kraków, ?mega")
      }
    })
  })
})
