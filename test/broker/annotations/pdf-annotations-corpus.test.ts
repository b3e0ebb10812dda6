/**
 * The annotations of the corpus's PDF files, read as pdf.js reads them (subtype, page, rectangle,
 * colour, contents), the pop-ups, links and attachments left out; and a file's own annotations kept
 * when more are written.
 */
import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import { PDFName, PDFRef } from "pdf-lib"
import { readAnnotations } from "../../../src/services/broker/annotations/PdfAnnotationReader.ts"
import { writeAnnotations } from "../../../src/services/broker/annotations/PdfAnnotations.ts"
import { expectSameColor, load, PDF, pdfjsAnnotations, save } from "./pdf-annotations-support.ts"

describe("PDF annotations", () => {
  describe("the corpus files", () => {
    const kept = new Set([
      "Highlight",
      "Underline",
      "StrikeOut",
      "Squiggly",
      "Text",
      "FreeText",
      "Square",
      "Circle",
      "Line",
      "Polygon",
      "PolyLine",
      "Ink",
      "Stamp",
      "Redact"
    ])

    const compareWithPdfjs = async (name: string) => {
      const file = path.join(PDF, name)
      const ours = readAnnotations(await load(file))
      const theirs = (await pdfjsAnnotations(file)).filter((a) => kept.has(a.subtype) && !a.inReplyTo)
      expect(ours.map((a) => [a.subtype, a.page])).toEqual(theirs.map((a) => [a.subtype, a.page]))
      ours.forEach((a, i) => {
        const b = theirs[i]!
        a.rect.forEach((v, k) => expect(v).toBeCloseTo(b.rect[k]!, 2))
        expectSameColor(a.color, b.color)
        expect(a.contents ?? "").toBe(b.contentsObj?.str ?? "")
      })
      return { ours, theirs, all: await pdfjsAnnotations(file) }
    }

    it("annotation-highlight.pdf: one highlight with its quad, colour and comment; the pop-up is left out", async () => {
      const { ours, all } = await compareWithPdfjs("annotation-highlight.pdf")
      expect(all.map((a) => a.subtype)).toEqual(["Highlight", "Popup"])
      expect(ours).toEqual([
        {
          subtype: "Highlight",
          page: 0,
          name: "cb2fc71b-2d0a-42a6-a4fe-c3140f145972",
          rect: [70.86, 736.177, 193.88, 745.586],
          color: [1, 0.929412, 0],
          opacity: 1,
          author: "Tim van der Meij",
          subject: "Highlight",
          contents: "Highlight content",
          modified: "2015-12-30T14:22:48.000Z",
          created: "2015-12-30T14:22:31.000Z",
          flags: 4,
          lineWidth: 1,
          quadPoints: [70.86, 745.586, 193.88, 745.586, 70.86, 736.177, 193.88, 736.177]
        }
      ])
    })

    it("annotation-freetext.pdf: two FreeTexts, font size from /DA, text colour from the appearance as pdf.js reports it", async () => {
      const { ours, theirs } = await compareWithPdfjs("annotation-freetext.pdf")
      expect(ours.map((a) => a.contents)).toEqual(["FreeText content", undefined])
      expect(ours.map((a) => a.fontSize)).toEqual([9, 9])
      expectSameColor(ours[0]!.fontColor, theirs[0]!.defaultAppearanceData!.fontColor)
    })

    it("annotation-square-circle-without-appearance.pdf: squares and circles with border widths and fills", async () => {
      const { ours, theirs } = await compareWithPdfjs("annotation-square-circle-without-appearance.pdf")
      expect(ours.map((a) => a.subtype)).toEqual(["Square", "Square", "Circle", "Circle"])
      expect(ours.map((a) => a.lineWidth)).toEqual(theirs.map((a) => a.borderStyle!.width))
      expect(ours.map((a) => a.interiorColor !== undefined)).toEqual([false, true, false, true])
      expect(ours.map((a) => a.author)).toEqual(Array(4).fill("Tim van der Meij"))
      // "D:20190407192035+02'00" (no closing quote) is still a date.
      expect(ours[0]!.modified).toBe("2019-04-07T17:20:35.000Z")
    })

    it("annotation-link-text-popup.pdf: the sticky note only; Link and Popup are left out", async () => {
      const { ours, all } = await compareWithPdfjs("annotation-link-text-popup.pdf")
      expect(all.map((a) => a.subtype).sort()).toEqual(["Link", "Popup", "Text"])
      expect(ours).toMatchObject([{
        subtype: "Text",
        contents: "Text content",
        iconName: "Comment",
        color: [1, 1, 0],
        flags: 28,
        rect: [71.0252, 657.344, 91.0252, 677.344]
      }])
    })

    it("annotation-fileattachment.pdf and rotation.pdf: nothing to keep", async () => {
      expect((await pdfjsAnnotations(path.join(PDF, "annotation-fileattachment.pdf"))).map((a) => a.subtype)).toEqual([
        "FileAttachment"
      ])
      expect(readAnnotations(await load(path.join(PDF, "annotation-fileattachment.pdf")))).toEqual([])
      expect(readAnnotations(await load(path.join(PDF, "rotation.pdf")))).toEqual([])
    })

    it("keeps a file's own annotations when writing more", async () => {
      // Its /Annots is an indirect array: it stays one, with the new annotation added.
      const squares = await load(path.join(PDF, "annotation-square-circle-without-appearance.pdf"))
      expect(squares.getPage(0).node.get(PDFName.of("Annots"))).toBeInstanceOf(PDFRef)
      writeAnnotations(squares, [{
        subtype: "Ink",
        page: 0,
        name: "added-ink",
        rect: [300, 100, 400, 200],
        inkList: [[[310, 110], [390, 190]]]
      }], "objects")
      const squaresAgain = await load(await save(squares, "kept-indirect"))
      expect(readAnnotations(squaresAgain).map((a) => a.name.slice(0, 9))).toEqual([
        "okular-{c",
        "okular-{a",
        "okular-{5",
        "okular-{f",
        "added-ink"
      ])

      const pdf = await load(path.join(PDF, "annotation-link-text-popup.pdf"))
      const before = readAnnotations(pdf)
      writeAnnotations(pdf, [{
        subtype: "Square",
        page: 0,
        name: "added",
        rect: [300, 300, 400, 400],
        color: [1, 0, 0]
      }], "objects")
      const file = await save(pdf, "kept")
      expect(readAnnotations(await load(file))).toEqual([...before, {
        subtype: "Square",
        page: 0,
        name: "added",
        rect: [300, 300, 400, 400],
        color: [1, 0, 0],
        flags: 4
      }])
      expect((await pdfjsAnnotations(file)).map((a) => a.subtype).sort()).toEqual(["Link", "Popup", "Square", "Text"])
    })
  })
})
