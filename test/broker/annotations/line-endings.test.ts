/**
 * Line endings (arrows) of Line and PolyLine annotations: kept by the broker, written into PDF files
 * as /LE and read back, drawn in the appearance (an arrowhead where a plain line has none), and
 * carried by XFDF (head, tail) and FDF (/LE) both ways.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { PDFArray, PDFDict, PDFDocument, PDFName } from "pdf-lib"
import sharp from "sharp"
import { brokerTestLayer } from "../../../src/layers/Test.ts"
import { parseFdf, writeFdf } from "../../../src/services/broker/annotations/Fdf.ts"
import type { PdfAnnotation } from "../../../src/services/broker/annotations/PdfAnnotation.ts"
import { readAnnotations } from "../../../src/services/broker/annotations/PdfAnnotationReader.ts"
import { writeAnnotations } from "../../../src/services/broker/annotations/PdfAnnotations.ts"
import { parseXfdf, writeXfdf } from "../../../src/services/broker/annotations/Xfdf.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, uploadOk } from "../../support/http.ts"
import { latin1 } from "./annotation-files-support.ts"
import { annotatedDocument, json } from "./annotation-http-support.ts"
import { load, save } from "./pdf-annotations-support.ts"

const arrow = {
  type: "Line",
  page: 0,
  position: { x: 300, y: 600, w: 200, h: 0 },
  points: [{ x: 300, y: 600 }, { x: 500, y: 600 }],
  color: { r: 0, g: 0, b: 255 },
  lineWidth: 2,
  lineEndings: ["None", "OpenArrow"]
}
const polyline = {
  type: "PolyLine",
  page: 0,
  position: { x: 300, y: 650, w: 200, h: 40 },
  points: [{ x: 300, y: 690 }, { x: 400, y: 650 }, { x: 500, y: 690 }],
  interiorColor: { r: 255, g: 128, b: 0 },
  lineEndings: ["Circle", "ClosedArrow"]
}

/** The annotation dictionaries of a page, in /Annots order. */
const annotationDicts = (pdf: PDFDocument, pageIndex: number) =>
  (pdf.getPage(pageIndex).node.Annots()?.asArray() ?? []).map((ref) => pdf.context.lookup(ref)).filter((d) =>
    d instanceof PDFDict
  )

layer(brokerTestLayer(defaultBackend.config), { timeout: 180_000 })("line endings", (it) => {
  it.effect("kept and listed; an unknown name or another type is 400; embedded as /LE and read back", () =>
    Effect.gen(function*() {
      const { base, id, list, url } = yield* annotatedDocument("pdf/tracemonkey.pdf")
      expect((yield* call(url, json("PUT", { annotations: [arrow, polyline] }))).status).toBe(200)
      expect(yield* list).toMatchObject([arrow, polyline])

      const unknown = yield* call(url, json("PUT", { annotations: [{ ...arrow, lineEndings: ["None", "Arrow"] }] }))
      expect(unknown.status).toBe(400)
      expect(unknown.json.message).toContain(
        `annotations.0.lineEndings.1: Expected one of "None", "Square", "Circle", "Diamond", "OpenArrow", "ClosedArrow", "Butt", "ROpenArrow", "RClosedArrow", "Slash", actual "Arrow"`
      )
      const notAPair = yield* call(url, json("PUT", { annotations: [{ ...arrow, lineEndings: "OpenArrow" }] }))
      expect(notAPair.json.message).toContain("lineEndings is [start, end], each one of None, Square")
      const square = { type: "Square", page: 0, position: arrow.position, lineEndings: ["None", "OpenArrow"] }
      const notALine = yield* call(url, json("PUT", { annotations: [square] }))
      expect(notALine.status).toBe(400)
      expect(notALine.json.message).toContain("lineEndings is for Line and PolyLine only")
      expect(yield* list).toHaveLength(2)

      const embedded = yield* call(`${base}/documents/${id}/file?format=pdf&annotations=embed`)
      const pdf = yield* Effect.promise(() => PDFDocument.load(embedded.bytes))
      const byName = new Map(
        annotationDicts(pdf, 0).map((d) => [String(d.lookup(PDFName.of("Subtype"))), d.lookup(PDFName.of("LE"))])
      )
      expect((byName.get("/Line") as PDFArray).asArray().map(String)).toEqual(["/None", "/OpenArrow"])
      expect((byName.get("/PolyLine") as PDFArray).asArray().map(String)).toEqual(["/Circle", "/ClosedArrow"])
      // Read back from the file: the endings as they were given.
      const copy = yield* uploadOk(base, embedded.bytes)
      const fromFile = (yield* call(`${base}/annotation?documentId=${copy}`)).json.annotations as Array<any>
      expect(fromFile.map((a) => [a.type, a.origin, a.lineEndings])).toEqual([
        ["Line", "file", ["None", "OpenArrow"]],
        ["PolyLine", "file", ["Circle", "ClosedArrow"]]
      ])
    }))

  it.effect("XFDF export says tail=\"OpenArrow\"; imported into another document, the endings come back", () =>
    Effect.gen(function*() {
      const { base, id, url } = yield* annotatedDocument("pdf/tracemonkey.pdf")
      yield* call(url, json("PUT", { annotations: [arrow, polyline] }))
      const xfdf = (yield* call(`${base}/documents/${id}/file/annotations`)).text
      expect(xfdf).toMatch(/<line [^>]*head="None" tail="OpenArrow"/)
      expect(xfdf).toMatch(/<polyline [^>]*head="Circle" tail="ClosedArrow"/)

      const other = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      const imported = yield* call(`${base}/documents/${other}/file/annotations`, {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body: xfdf
      })
      expect(imported.status).toBe(200)
      const listed = (yield* call(`${base}/annotation?documentId=${other}`)).json.annotations as Array<any>
      expect(listed.map((a) => a.lineEndings)).toEqual([["None", "OpenArrow"], ["Circle", "ClosedArrow"]])
    }))

  it.effect("a flattened download draws the arrowhead: pixels differ from a plain line's at the end only", () =>
    Effect.gen(function*() {
      /** Page 0 of the document flattened with one line, drawn by the broker 1224 pixels wide (2 per point). */
      const drawn = (line: object) =>
        Effect.gen(function*() {
          const { base, id, url } = yield* annotatedDocument("pdf/tracemonkey.pdf")
          yield* call(url, json("PUT", { annotations: [line] }))
          const flattened = yield* call(`${base}/documents/${id}/file?format=pdf&annotations=flatten`)
          const copy = yield* uploadOk(base, flattened.bytes)
          const png = (yield* call(`${base}/documents/${copy}/pages/0/image?pageImageDescription=IM_1224_0`)).bytes
          return yield* Effect.promise(() => sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true }))
        })
      const plain = yield* drawn({ ...arrow, lineEndings: undefined })
      const withArrow = yield* drawn(arrow)
      const width = plain.info.width
      /** Pixels differing by more than 64 in the box (points) around (x, y). */
      const differences = (x: number, y: number, half: number) => {
        let count = 0
        for (let py = (y - half) * 2; py < (y + half) * 2; py++) {
          for (let px = (x - half) * 2; px < (x + half) * 2; px++) {
            if (Math.abs(plain.data[py * width + px]! - withArrow.data[py * width + px]!) > 64) count++
          }
        }
        return count
      }
      // An arrowhead 9 points long (4.5 times the width) at the end; nothing at the start, nor in the middle.
      expect(differences(495, 600, 8)).toBeGreaterThan(40)
      expect(differences(300, 600, 8)).toBe(0)
      expect(differences(400, 600, 8)).toBe(0)
    }))
})

describe("line endings in files", () => {
  const line: PdfAnnotation = {
    subtype: "Line",
    page: 0,
    name: "line-1",
    rect: [100, 100, 300, 110],
    vertices: [[100, 105], [300, 105]],
    lineWidth: 1,
    lineEndings: ["ROpenArrow", "Slash"]
  }
  const poly: PdfAnnotation = {
    subtype: "PolyLine",
    page: 0,
    name: "poly-1",
    rect: [100, 200, 300, 260],
    vertices: [[100, 200], [200, 260], [300, 200]],
    lineEndings: ["Diamond", "None"]
  }

  it.effect("XFDF and FDF written and read give back the endings", () =>
    Effect.gen(function*() {
      expect(yield* parseXfdf(writeXfdf([line, poly]))).toEqual([line, poly])
      const fdf = writeFdf([line, poly])
      expect(latin1(fdf)).toContain("/LE [ /ROpenArrow /Slash ]")
      expect(yield* parseFdf(fdf)).toEqual([line, poly])
    }))

  it.effect("an unknown name is None, as PDF says; None at both ends is no endings", () =>
    Effect.gen(function*() {
      const read = yield* parseXfdf(
        `<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>` +
          `<line page="0" rect="0,0,10,10" start="0,0" end="10,10" head="Arrowish" tail="ClosedArrow"/>` +
          `<line page="0" rect="0,0,10,10" start="0,0" end="10,10" head="None"/>` +
          `<square page="0" rect="0,0,10,10" head="OpenArrow"/>` +
          `</annots></xfdf>`
      )
      expect(read.map((a) => a.lineEndings)).toEqual([["None", "ClosedArrow"], undefined, undefined])
    }))

  it("written into a PDF as /LE, its /Rect grown to hold the arrowhead, and read back", async () => {
    const pdf = await PDFDocument.create()
    pdf.addPage([612, 792])
    writeAnnotations(pdf, [{ ...line, lineEndings: ["OpenArrow", "ClosedArrow"] }, poly], "objects")
    const again = await load(await save(pdf, "line-endings"))
    expect(annotationDicts(again, 0).map((d) => String(d.lookup(PDFName.of("LE"))))).toEqual([
      "[ /OpenArrow /ClosedArrow ]",
      "[ /Diamond /None ]"
    ])
    const [readLine, readPoly] = readAnnotations(again)
    expect(readLine!.lineEndings).toEqual(["OpenArrow", "ClosedArrow"])
    expect(readPoly!.lineEndings).toEqual(["Diamond", "None"])
    // 6-point arrowheads at 30 degrees reach 3 points across the line: the rectangle (5 points
    // each side of the line) holds them, and grows along the line by half the stroke width.
    const [x1, y1, x2, y2] = readLine!.rect
    expect([x1, y1, x2, y2]).toEqual([99.5, 100, 300.5, 110])
  })
})
