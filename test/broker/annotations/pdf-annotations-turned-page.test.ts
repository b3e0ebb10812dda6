/**
 * Annotations on a turned page (/Rotate 90): FreeText and Stamp read upright, as on an upright page
 * of the displayed size, in objects and flatten mode; a note's icon stays upright for viewers and is
 * turned back when flattened.
 */
import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import { PDFDocument } from "pdf-lib"
import { pageGeometries, rectToUser } from "../../../src/services/broker/annotations/PageSpace.ts"
import type { PdfAnnotation, PdfRect } from "../../../src/services/broker/annotations/PdfAnnotation.ts"
import { writeAnnotations } from "../../../src/services/broker/annotations/PdfAnnotations.ts"
import { at, brightness, near, type Raster, render, RENDERERS, SCALE } from "./pdf-annotations-rendering-support.ts"
import { load, PDF, save, tool } from "./pdf-annotations-support.ts"

describe("PDF annotations", () => {
  describe("a turned page", () => {
    // rotation.pdf's second page is /Rotate 90: 612 × 792 in user space, shown 792 wide and 612 high.
    const shown = { x: 100, y: 250, w: 320, h: 90 }
    const words = "Turned page text reads upright"

    /** The same box on an upright page of the displayed size: what the user must see. */
    const reference = async (annotation: Omit<PdfAnnotation, "page" | "rect">) => {
      const pdf = await PDFDocument.create()
      pdf.addPage([792, 612])
      const rect: PdfRect = [shown.x, 612 - shown.y - shown.h, shown.x + shown.w, 612 - shown.y]
      writeAnnotations(pdf, [{ ...annotation, page: 0, rect } as PdfAnnotation], "objects")
      return await save(pdf, "upright-reference")
    }

    for (
      const [label, annotation] of [
        ["FreeText", {
          subtype: "FreeText",
          name: "turned-ft",
          contents: words,
          fontSize: 16,
          fontColor: [0, 0, 0.6],
          color: [1, 1, 1]
        }],
        ["Stamp", { subtype: "Stamp", name: "turned-stamp", iconName: "Confidential", color: [0.8, 0, 0] }]
      ] as const
    ) {
      it(`${label} reads upright, as on an upright page, in objects and flatten mode`, async () => {
        const expected = await reference(annotation)
        for (const mode of ["objects", "flatten"] as const) {
          const pdf = await load(path.join(PDF, "rotation.pdf"))
          const g = pageGeometries(pdf)[1]!
          expect(g.rotation).toBe(90)
          const rect = rectToUser(g, shown)
          writeAnnotations(pdf, [{ ...annotation, page: 1, rect } as PdfAnnotation], mode)
          const file = await save(pdf, `turned-${mode}`)
          for (const renderer of RENDERERS) {
            const turned = await render(file, 1, renderer)
            const upright = await render(expected, 0, renderer)
            let different = 0
            let inked = 0
            for (let py = shown.y * SCALE; py < (shown.y + shown.h) * SCALE; py++) {
              for (let px = shown.x * SCALE; px < (shown.x + shown.w) * SCALE; px++) {
                const a = at(turned, px, py)
                const b = at(upright, px, py)
                if (brightness(b) < 160) inked++
                if (a.some((v, i) => Math.abs(v - b[i]!) > 64)) different++
              }
            }
            expect(inked).toBeGreaterThan(500)
            expect(different / inked).toBeLessThan(0.02)
          }
          if (label === "FreeText" && mode === "flatten") {
            expect(tool("pdftotext", ["-f", "2", "-l", "2", file, "-"])).toContain(words)
          }
        }
      })
    }

    it("a note's icon is drawn unturned for viewers, which keep notes upright themselves, and turned back when flattened", async () => {
      const note: PdfAnnotation = {
        subtype: "Text",
        page: 1,
        name: "n",
        rect: [200, 300, 224, 324],
        color: [1, 0.82, 0]
      }
      const objects = await load(path.join(PDF, "rotation.pdf"))
      writeAnnotations(objects, [note], "objects")
      const flat = await load(path.join(PDF, "rotation.pdf"))
      writeAnnotations(flat, [note], "flatten")
      // poppler honours the implicit NoRotate of notes (so do Acrobat and pdf.js); the flattened
      // icon is page content and must be turned back by the appearance itself. Both look the same.
      const o = await render(await save(objects, "note-objects"), 1, "pdftoppm")
      const f = await render(await save(flat, "note-flat"), 1, "pdftoppm")
      const ink = (r: Raster) => {
        const out: Array<readonly [number, number]> = []
        for (let py = 0; py < r.height; py++) {
          for (let px = 0; px < r.width; px++) if (near(at(r, px, py), [1, 0.82, 0], 30)) out.push([px, py])
        }
        return out
      }
      // The speech bubble's tail points down and left in both: compare the shapes by their bounding boxes' offsets.
      const shape = (points: ReadonlyArray<readonly [number, number]>) => {
        const x0 = Math.min(...points.map((p) => p[0]))
        const y0 = Math.min(...points.map((p) => p[1]))
        return new Set(points.map(([x, y]) => `${x - x0},${y - y0}`))
      }
      const a = shape(ink(o))
      const b = shape(ink(f))
      expect(a.size).toBeGreaterThan(300)
      const common = [...a].filter((p) => b.has(p)).length
      expect(common / Math.max(a.size, b.size)).toBeGreaterThan(0.9)
    })
  })
})
