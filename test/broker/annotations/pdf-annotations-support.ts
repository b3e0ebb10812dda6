/**
 * What the PDF-annotation tests share: a scratch folder for the files they write, the command-line
 * tools they call, the annotations as pdf.js reads them, and the fixtures (one annotation of every
 * subtype; a page of text for markup to mark).
 */
import { afterAll, expect } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { degrees, PDFDocument, rgb, StandardFonts } from "pdf-lib"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import type { PdfAnnotation, PdfColor, PdfRect } from "../../../src/services/broker/annotations/PdfAnnotation.ts"
import { CORPUS } from "../../support/backends.ts"

export const PDF = path.join(CORPUS, "pdf")
// One scratch folder per test file that imports this module (the hook is that file's).
const scratch = mkdtempSync(path.join(tmpdir(), "docstack-pdf-annotations-"))
let files = 0
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A path in the scratch folder, numbered so that no two files share one. */
export const scratchFile = (label: string) => path.join(scratch, `${files++}-${label}`)

export const tool = (command: string, args: ReadonlyArray<string>) => {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
  if (result.error) throw result.error
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")}: ${result.stderr}`)
  return result.stdout
}

export const save = async (pdf: PDFDocument, label: string) => {
  const file = scratchFile(`${label}.pdf`)
  writeFileSync(file, await pdf.save())
  return file
}

export const load = (file: string) => PDFDocument.load(readFileSync(file), { updateMetadata: false })

// ---------------------------------------------------------------------------------------------
// pdf.js

export interface PdfjsAnnotation {
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

export const pdfjsAnnotations = async (file: string): Promise<Array<PdfjsAnnotation>> => {
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
export const expectSameColor = (ours: PdfColor | undefined, theirs: ArrayLike<number> | null | undefined) => {
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
export const EVERY_SUBTYPE: ReadonlyArray<PdfAnnotation> = [
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
export const textPage = async (rotation = 0) => {
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
export const drawnFixture = async (rotation = 0) => {
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

export const annotsOf = (pdf: PDFDocument, pageIndex: number) => {
  const annots = pdf.getPage(pageIndex).node.Annots()
  return annots ? annots.size() : 0
}
