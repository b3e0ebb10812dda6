/**
 * Annotations inside PDF files (PdfAnnotations.ts): what a user sees. Written annotations come back
 * field for field; the corpus files' annotations are read as pdf.js reads them; appearances are
 * really drawn — rendered with poppler (pdftoppm) and MuPDF (mutool draw) and checked pixel by
 * pixel — flattening draws the same thing into the page, and on a rotated page text stays upright.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { degrees, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRef, rgb, StandardFonts } from "pdf-lib"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import sharp from "sharp"
import {
  pageGeometries,
  type PageGeometry,
  rectToUser,
  toDisplayed
} from "../../../src/services/broker/annotations/PageSpace.ts"
import type {
  PdfAnnotation,
  PdfColor,
  PdfPoint,
  PdfRect
} from "../../../src/services/broker/annotations/PdfAnnotation.ts"
import { readAnnotations } from "../../../src/services/broker/annotations/PdfAnnotationReader.ts"
import { writeAnnotations } from "../../../src/services/broker/annotations/PdfAnnotations.ts"
import { CORPUS } from "../../support/backends.ts"

const PDF = path.join(CORPUS, "pdf")
const scratch = mkdtempSync(path.join(tmpdir(), "docstack-pdf-annotations-"))
let files = 0
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const tool = (command: string, args: ReadonlyArray<string>) => {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
  if (result.error) throw result.error
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")}: ${result.stderr}`)
  return result.stdout
}

const save = async (pdf: PDFDocument, label: string) => {
  const file = path.join(scratch, `${files++}-${label}.pdf`)
  writeFileSync(file, await pdf.save())
  return file
}

const load = (file: string) => PDFDocument.load(readFileSync(file), { updateMetadata: false })

// ---------------------------------------------------------------------------------------------
// Rendering

type Renderer = "pdftoppm" | "mutool"
const RENDERERS: ReadonlyArray<Renderer> = ["pdftoppm", "mutool"]
const DPI = 144
const SCALE = DPI / 72

interface Raster {
  readonly width: number
  readonly height: number
  readonly channels: number
  readonly data: Buffer
  readonly geometry: PageGeometry
}

const render = async (file: string, pageIndex: number, renderer: Renderer): Promise<Raster> => {
  const out = path.join(scratch, `${files++}-render`)
  if (renderer === "pdftoppm") {
    tool("pdftoppm", [
      "-r",
      String(DPI),
      "-png",
      "-f",
      String(pageIndex + 1),
      "-l",
      String(pageIndex + 1),
      "-singlefile",
      file,
      out
    ])
  } else {
    tool("mutool", ["draw", "-q", "-r", String(DPI), "-o", `${out}.png`, file, String(pageIndex + 1)])
  }
  const { data, info } = await sharp(`${out}.png`).raw().toBuffer({ resolveWithObject: true })
  const geometry = pageGeometries(await load(file))[pageIndex]!
  return { width: info.width, height: info.height, channels: info.channels, data, geometry }
}

type Rgb = readonly [number, number, number]

const at = (r: Raster, px: number, py: number): Rgb => {
  const i = (Math.min(r.height - 1, Math.max(0, py)) * r.width + Math.min(r.width - 1, Math.max(0, px))) * r.channels
  return [r.data[i]!, r.data[i + 1]!, r.data[i + 2]!]
}

/** The device pixel showing a user-space point. */
const devicePixel = (r: Raster, p: PdfPoint): readonly [number, number] => {
  const [x, y] = toDisplayed(r.geometry, p)
  return [Math.floor(x * SCALE), Math.floor(y * SCALE)]
}

const pixel = (r: Raster, p: PdfPoint): Rgb => at(r, ...devicePixel(r, p))

/** The device pixels inside a user-space rectangle, shrunk by `inset` points. */
const pixelsIn = (r: Raster, rect: PdfRect, inset = 0): Array<Rgb> => {
  const [ax, ay] = toDisplayed(r.geometry, [rect[0] + inset, rect[1] + inset])
  const [bx, by] = toDisplayed(r.geometry, [rect[2] - inset, rect[3] - inset])
  const out: Array<Rgb> = []
  for (let py = Math.ceil(Math.min(ay, by) * SCALE); py < Math.floor(Math.max(ay, by) * SCALE); py++) {
    for (let px = Math.ceil(Math.min(ax, bx) * SCALE); px < Math.floor(Math.max(ax, bx) * SCALE); px++) {
      out.push(at(r, px, py))
    }
  }
  return out
}

const near = (c: Rgb, expected: PdfColor, tolerance = 40) =>
  c.every((v, i) => Math.abs(v - expected[i]! * 255) <= tolerance)
const brightness = (c: Rgb) => (c[0] + c[1] + c[2]) / 3
const yellowish = (c: Rgb) => c[0] > 200 && c[1] > 200 && c[2] < 110

/** Pixels that differ (by more than `threshold` in a channel) between two renders of one page. */
const differing = (a: Raster, b: Raster, threshold = 48): Array<readonly [number, number]> => {
  expect([a.width, a.height]).toEqual([b.width, b.height])
  const out: Array<readonly [number, number]> = []
  for (let py = 0; py < a.height; py++) {
    for (let px = 0; px < a.width; px++) {
      const p = at(a, px, py)
      const q = at(b, px, py)
      if (p.some((v, i) => Math.abs(v - q[i]!) > threshold)) out.push([px, py])
    }
  }
  return out
}

/** Whether a device pixel lies in one of the user-space rectangles (give or take a pixel of anti-aliasing). */
const insideAny = (r: Raster, rects: ReadonlyArray<PdfRect>, [px, py]: readonly [number, number]) =>
  rects.some((rect) => {
    const [ax, ay] = toDisplayed(r.geometry, [rect[0], rect[1]])
    const [bx, by] = toDisplayed(r.geometry, [rect[2], rect[3]])
    return (
      px >= Math.min(ax, bx) * SCALE - 1.5 &&
      px <= Math.max(ax, bx) * SCALE + 1.5 &&
      py >= Math.min(ay, by) * SCALE - 1.5 &&
      py <= Math.max(ay, by) * SCALE + 1.5
    )
  })

// ---------------------------------------------------------------------------------------------
// pdf.js

interface PdfjsAnnotation {
  readonly subtype: string
  readonly page: number
  readonly id: string
  readonly rect: ReadonlyArray<number>
  readonly color: ArrayLike<number> | null
  readonly contentsObj?: { readonly str: string }
  readonly inReplyTo?: string
  readonly borderStyle?: { readonly width: number }
  readonly defaultAppearanceData?: { readonly fontSize: number; readonly fontColor: ArrayLike<number> }
}

const pdfjsAnnotations = async (file: string): Promise<Array<PdfjsAnnotation>> => {
  const doc = await pdfjs.getDocument({
    data: new Uint8Array(readFileSync(file)),
    verbosity: 0,
    isEvalSupported: false
  }).promise
  try {
    const out: Array<PdfjsAnnotation> = []
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i)
      for (const a of (await page.getAnnotations()) as Array<Omit<PdfjsAnnotation, "page">>) {
        out.push({ ...a, page: i - 1 })
      }
    }
    return out
  } finally {
    await doc.destroy()
  }
}

/** Our colour (0–1) against pdf.js's (0–255), give or take pdf.js's rounding. */
const expectSameColor = (ours: PdfColor | undefined, theirs: ArrayLike<number> | null | undefined) => {
  if (!ours || !theirs) return expect([ours ?? null, theirs ?? null]).toEqual([null, null])
  expect(Array.from(theirs).map((v, i) => Math.abs(v - ours[i]! * 255) <= 1)).toEqual([true, true, true])
}

// ---------------------------------------------------------------------------------------------
// Fixtures

const AUTHOR = "Zoë Reviewer"
const T1 = "2024-03-01T10:20:30.000Z"
const T2 = "2024-03-02T11:22:33.000Z"
const common = { author: AUTHOR, subject: "Review", modified: T2, created: T1, flags: 4 } as const

/** One annotation of every subtype with the fields it uses, a note with a state and two replies; page 1 is turned 90°. */
const EVERY_SUBTYPE: ReadonlyArray<PdfAnnotation> = [
  {
    ...common,
    subtype: "Highlight",
    page: 0,
    name: "hl-1",
    rect: [70, 695, 230, 715],
    color: [1, 0.929412, 0],
    opacity: 0.8,
    contents: "Highlight — see “this”",
    quadPoints: [70, 715, 230, 715, 70, 695, 230, 695]
  },
  {
    ...common,
    subtype: "Underline",
    page: 0,
    name: "ul-1",
    rect: [70, 665, 190, 685],
    color: [0, 0, 1],
    quadPoints: [70, 685, 190, 685, 70, 665, 190, 665]
  },
  {
    ...common,
    subtype: "StrikeOut",
    page: 0,
    name: "so-1",
    rect: [70, 635, 160, 655],
    color: [1, 0, 0],
    quadPoints: [70, 655, 160, 655, 70, 635, 160, 635, 70, 625, 120, 625, 70, 615, 120, 615]
  },
  {
    ...common,
    subtype: "Squiggly",
    page: 0,
    name: "sq-1",
    rect: [70, 605, 175, 625],
    color: [0, 0.6, 0],
    quadPoints: [70, 625, 175, 625, 70, 605, 175, 605]
  },
  {
    ...common,
    subtype: "Text",
    page: 0,
    name: "note-1",
    rect: [300, 690, 324, 714],
    color: [1, 0.82, 0],
    opacity: 1,
    contents: "Is this figure right? 日本語",
    iconName: "Comment",
    state: "Accepted",
    replies: [
      { name: "reply-1", author: "Ann", contents: "Yes, checked.", modified: T2, created: T1 },
      { name: "reply-2", author: "Bob", contents: "Thanks (and a ) paren", created: T2 }
    ]
  },
  {
    ...common,
    subtype: "FreeText",
    page: 0,
    name: "ft-1",
    rect: [300, 560, 520, 660],
    contents: "Budget approved by the board",
    fontSize: 14,
    fontColor: [0, 0, 0.6],
    color: [1, 1, 0.85],
    lineWidth: 1
  },
  {
    ...common,
    subtype: "Square",
    page: 0,
    name: "square-1",
    rect: [70, 450, 200, 560],
    color: [1, 0, 0],
    interiorColor: [0.8, 0.9, 1],
    lineWidth: 4
  },
  {
    ...common,
    subtype: "Circle",
    page: 0,
    name: "circle-1",
    rect: [220, 450, 350, 560],
    color: [0, 0, 1],
    interiorColor: [0, 1, 0],
    lineWidth: 3,
    opacity: 0.5
  },
  {
    ...common,
    subtype: "Line",
    page: 0,
    name: "line-1",
    rect: [370, 450, 540, 560],
    color: [0.5, 0, 0.5],
    lineWidth: 2,
    vertices: [[375, 455], [535, 555]]
  },
  {
    ...common,
    subtype: "Polygon",
    page: 0,
    name: "polygon-1",
    rect: [70, 300, 200, 430],
    color: [0, 0.5, 0],
    interiorColor: [1, 1, 0.6],
    lineWidth: 2,
    vertices: [[80, 310], [190, 310], [135, 420]]
  },
  {
    ...common,
    subtype: "PolyLine",
    page: 0,
    name: "polyline-1",
    rect: [220, 300, 350, 430],
    color: [0, 0, 0],
    lineWidth: 2,
    vertices: [[230, 310], [280, 420], [340, 310]]
  },
  {
    ...common,
    subtype: "Ink",
    page: 0,
    name: "ink-1",
    rect: [370, 300, 540, 430],
    color: [0, 0, 1],
    lineWidth: 3,
    opacity: 0.9,
    inkList: [[[380, 310], [420, 400], [460, 320], [530, 420]], [[380, 420], [530, 310]]]
  },
  {
    ...common,
    subtype: "Stamp",
    page: 0,
    name: "stamp-1",
    rect: [70, 200, 270, 260],
    color: [0, 0.5, 0],
    iconName: "Approved",
    contents: "Approved for release"
  },
  {
    ...common,
    subtype: "Redact",
    page: 1,
    name: "redact-1",
    rect: [100, 100, 300, 140],
    color: [1, 0, 0],
    interiorColor: [0, 0, 0],
    overlayText: "WITHHELD",
    fontSize: 10,
    fontColor: [1, 1, 1],
    quadPoints: [100, 140, 300, 140, 100, 100, 300, 100]
  },
  {
    ...common,
    subtype: "FreeText",
    page: 1,
    name: "ft-rotated",
    rect: [400, 300, 460, 500],
    contents: "On a turned page",
    fontSize: 12
  },
  {
    ...common,
    subtype: "Stamp",
    page: 1,
    name: "stamp-2",
    rect: [400, 550, 460, 750],
    color: [0, 0, 0.7],
    iconName: "Geprüft",
    opacity: 0.6
  }
]

/** A Letter page with lines of black text for markup to mark. */
const textPage = async (rotation = 0) => {
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  const page = pdf.addPage([612, 792])
  page.setRotation(degrees(rotation))
  const lines: Array<{ text: string; y: number; rect: PdfRect }> = []
  for (
    const [text, y] of [["Highlighted words", 700], ["Underlined words", 670], ["Struck out words", 640], [
      "Squiggly words",
      610
    ]] as const
  ) {
    page.drawText(text, { x: 72, y, size: 14, font, color: rgb(0, 0, 0) })
    lines.push({ text, y, rect: [70, y - 4, 74 + font.widthOfTextAtSize(text, 14), y + 12] })
  }
  return { pdf, lines }
}

const quadOf = (r: PdfRect) => [r[0], r[3], r[2], r[3], r[0], r[1], r[2], r[1]]

/** What the appearance tests draw: every subtype but Redact (tested on its own), on the text page. */
const drawnFixture = async (rotation = 0) => {
  const { pdf, lines } = await textPage(rotation)
  const [hl, ul, so, sq] = lines.map((l) => l.rect) as [PdfRect, PdfRect, PdfRect, PdfRect]
  const annotations: ReadonlyArray<PdfAnnotation> = [
    { subtype: "Highlight", page: 0, name: "hl", rect: hl, color: [1, 1, 0], quadPoints: quadOf(hl) },
    { subtype: "Underline", page: 0, name: "ul", rect: ul, color: [0, 0, 1], quadPoints: quadOf(ul) },
    { subtype: "StrikeOut", page: 0, name: "so", rect: so, color: [1, 0, 0], quadPoints: quadOf(so) },
    { subtype: "Squiggly", page: 0, name: "sq", rect: sq, color: [0, 0.6, 0], quadPoints: quadOf(sq) },
    ...EVERY_SUBTYPE.filter((a) =>
      a.page === 0 && a.subtype !== "Highlight" && a.subtype !== "Underline" && a.subtype !== "StrikeOut" &&
      a.subtype !== "Squiggly"
    ),
    {
      subtype: "Ink",
      page: 0,
      name: "ink-edge",
      rect: [560, 100, 600, 140],
      color: [1, 0, 0],
      lineWidth: 8,
      inkList: [[[560, 100], [600, 140]]]
    }
  ]
  return { pdf, annotations }
}

const annotsOf = (pdf: PDFDocument, pageIndex: number) => {
  const annots = pdf.getPage(pageIndex).node.Annots()
  return annots ? annots.size() : 0
}

// ---------------------------------------------------------------------------------------------

describe("PDF annotations", () => {
  it("gives back every subtype with all its fields, replies and state, after a save and a load", async () => {
    const pdf = await PDFDocument.create()
    pdf.addPage([612, 792])
    pdf.addPage([612, 792]).setRotation(degrees(90))
    const warnings = writeAnnotations(pdf, EVERY_SUBTYPE, "objects")
    // The note's Japanese contents stay in /Contents; only the Helvetica drawing of FreeText would
    // need replacements, and these FreeTexts are plain ASCII.
    expect(warnings).toEqual([])
    const again = await load(await save(pdf, "round-trip"))
    expect(readAnnotations(again)).toEqual(EVERY_SUBTYPE)
  })

  it("writes what pdf.js sees: the subtypes, pop-ups for notes, replies in reply to their note", async () => {
    const pdf = await PDFDocument.create()
    pdf.addPage([612, 792])
    pdf.addPage([612, 792]).setRotation(degrees(90))
    writeAnnotations(pdf, EVERY_SUBTYPE, "objects")
    const seen = await pdfjsAnnotations(await save(pdf, "pdfjs"))
    const kept = seen.filter((a) => a.subtype !== "Popup" && !a.inReplyTo)
    expect(kept.map((a) => [a.subtype, a.page])).toEqual(EVERY_SUBTYPE.map((a) => [a.subtype, a.page]))
    kept.forEach((a, i) => {
      const written = EVERY_SUBTYPE[i]!
      expect(a.rect.map((v) => Math.round(v))).toEqual([...written.rect])
      expectSameColor(written.color, a.color)
    })
    const note = kept.find((a) => a.subtype === "Text")!
    expect(seen.filter((a) => a.inReplyTo === note.id).map((a) => a.contentsObj?.str)).toEqual([
      "Yes, checked.",
      "Thanks (and a ) paren"
    ])
    expect(seen.filter((a) => a.subtype === "Popup")).toHaveLength(1)
    const freeText = kept.find((a) => a.subtype === "FreeText")!
    expect(freeText.defaultAppearanceData?.fontSize).toBe(14)
  })

  it("names an annotation without /NM after its page and object, the same way every time", async () => {
    const pdf = await PDFDocument.create()
    pdf.addPage()
    writeAnnotations(pdf, [{ subtype: "Square", page: 0, name: "temporary", rect: [10, 10, 50, 50] }], "objects")
    const ref = pdf.getPage(0).node.Annots()!.get(0) as PDFRef
    pdf.context.lookup(ref, PDFDict).delete(PDFName.of("NM"))
    const file = await save(pdf, "no-nm")
    const expected = `pdf-0-${ref.objectNumber}-${ref.generationNumber}`
    expect(readAnnotations(await load(file)).map((a) => a.name)).toEqual([expected])
    expect(readAnnotations(await load(file)).map((a) => a.name)).toEqual([expected])
  })

  it("reads an Acrobat review state as the note's state, not as a reply", async () => {
    const pdf = await PDFDocument.create()
    const page = pdf.addPage()
    writeAnnotations(pdf, [{
      subtype: "Text",
      page: 0,
      name: "note",
      rect: [10, 10, 30, 30],
      contents: "Please check"
    }], "objects")
    const noteRef = page.node.Annots()!.get(0) as PDFRef
    for (
      const [state, model, m] of [["Rejected", "Review", "D:20240101000000Z"], [
        "Accepted",
        "Review",
        "D:20240102000000Z"
      ], ["Marked", "Marked", "D:20240103000000Z"]]
    ) {
      const dict = pdf.context.obj({
        Type: "Annot",
        Subtype: "Text",
        Rect: [10, 10, 30, 30],
        IRT: noteRef,
        State: PDFHexString.fromText(state!),
        StateModel: PDFHexString.fromText(model!),
        M: PDFHexString.fromText(m!)
      })
      page.node.addAnnot(pdf.context.register(dict))
    }
    const [note, ...rest] = readAnnotations(await load(await save(pdf, "review-state")))
    expect(rest).toEqual([])
    expect(note).toMatchObject({ name: "note", state: "Accepted" })
    expect(note!.replies).toBeUndefined()
  })

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
