/**
 * Text positions as PDFium reads them (PdfiumText.ts), checked against what a reader sees: the
 * words poppler finds on the page, the ink mutool draws, the text poppler reads in order.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { PDFDocument, PDFName } from "pdf-lib"
import sharp from "sharp"
import type { TextPosition } from "../../../src/schemas/broker/Content.ts"
import { pageTextPositions } from "../../../src/services/broker/text/PdfiumText.ts"
import { popplerWords } from "../pages/corpus-support.ts"

const PDF_DIR = "test/corpus/pdf/"

const runsOf = (file: string, page: number) => {
  const source = { hash: createHash("sha256").update(readFileSync(PDF_DIR + file)).digest("hex"), path: PDF_DIR + file }
  return pageTextPositions(source, page)
}

/** A one-page PDF showing "AB" in Helvetica, whose ToUnicode maps 'A' to `unicodeOfA` (hex UTF-16). */
const withToUnicode = async (unicodeOfA: string) => {
  const doc = await PDFDocument.create()
  const page = doc.addPage([300, 200])
  const cmap = "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def " +
    "1 begincodespacerange <00> <FF> endcodespacerange " +
    `2 beginbfchar <41> <${unicodeOfA}> <42> <0042> endbfchar endcmap CMapName currentdict /CMap defineresource pop end end`
  const font = doc.context.obj({
    Type: "Font",
    Subtype: "Type1",
    BaseFont: "Helvetica",
    ToUnicode: doc.context.register(doc.context.stream(cmap))
  })
  page.node.setFontDictionary(PDFName.of("F1"), doc.context.register(font))
  page.node.set(PDFName.of("Contents"), doc.context.register(doc.context.stream("BT /F1 24 Tf 72 100 Td (AB) Tj ET")))
  const file = path.join(mkdtempSync(path.join(tmpdir(), "docstack-text-")), "page.pdf")
  const bytes = await doc.save()
  writeFileSync(file, bytes)
  return pageTextPositions({ hash: createHash("sha256").update(bytes).digest("hex"), path: file }, 0)
}

const sum = (widths: ReadonlyArray<number>) => widths.reduce((a, b) => a + b, 0)

/** Columns of a page mutool draws with ink on them, in points, as [first, last] ranges. */
const inkColumns = async (file: string) => {
  const out = path.join(mkdtempSync(path.join(tmpdir(), "docstack-ink-")), "page.png")
  execFileSync("mutool", ["draw", "-q", "-r", "72", "-o", out, PDF_DIR + file, "1"], { stdio: "ignore" })
  const { data, info } = await sharp(out).greyscale().raw().toBuffer({ resolveWithObject: true })
  const columns: Array<[number, number]> = []
  for (let x = 0; x < info.width; x++) {
    let ink = false
    for (let y = 0; y < info.height && !ink; y++) ink = data[y * info.width + x]! < 128
    if (!ink) continue
    const last = columns.at(-1)
    if (last !== undefined && last[1] === x - 1) last[1] = x
    else columns.push([x, x])
  }
  return columns
}

describe("text positions read by PDFium", () => {
  it("every word poppler finds on tracemonkey.pdf p1 lies in a run holding it, named by its real font", async () => {
    const runs = await runsOf("tracemonkey.pdf", 0)
    const words = popplerWords(PDF_DIR + "tracemonkey.pdf", 0).filter((w) => /^[A-Za-z]{4,}$/.test(w.text))
    expect(words.length).toBeGreaterThan(300)
    const missing = words.filter((word) =>
      !runs.some((run) =>
        run.text.includes(word.text) &&
        run.position.x <= word.x0 + 1 && run.position.x + run.position.w >= word.x1 - 1 &&
        run.position.y <= word.y0 + 1 && run.position.y + run.position.h >= word.y1 - 1
      )
    )
    expect(missing.map((w) => w.text)).toEqual([])
    expect(runs[0]).toMatchObject({
      text: "Trace-based Just-in-Time Type Specialization for Dynamic",
      font: "NimbusRomNo9L-Medi"
    })
    expect(runs.every((run) => !["serif", "sans-serif", "monospace"].includes(run.font))).toBe(true)
  })

  it("gives each character its width in the file's own font: every word starts where poppler sees it", async () => {
    const runs = await runsOf("tracemonkey.pdf", 0)
    for (const run of runs) {
      expect(run.individualWidths).toHaveLength(Array.from(run.text).length)
      expect(Math.abs(sum(run.individualWidths) - run.position.w)).toBeLessThan(0.1)
    }
    // Where each word of a line starts by the widths before it, against poppler's word boxes.
    const words = popplerWords(PDF_DIR + "tracemonkey.pdf", 0)
    let checked = 0
    for (const run of runs.filter((r) => r.rotation === 0 && !r.rightToLeftText)) {
      const chars = Array.from(run.text)
      let x = run.position.x
      chars.forEach((ch, i) => {
        if (ch !== " " && (i === 0 || chars[i - 1] === " ")) {
          const word = run.text.slice(chars.slice(0, i).join("").length).split(" ")[0]!
          const onLine = words.filter((w) => w.text === word && Math.abs(w.y0 - run.position.y) < run.fontSize)
          if (onLine.length > 0 && word.length > 3) {
            const nearest = Math.min(...onLine.map((w) => Math.abs(w.x0 - x)))
            expect(nearest, `${word} in "${run.text}"`).toBeLessThan(0.5)
            checked++
          }
        }
        x += run.individualWidths[i]!
      })
    }
    expect(checked).toBeGreaterThan(300)
  })

  it("keeps a hyphen that ends a line, and the font size a scaled text matrix gives (copy-protected.pdf)", async () => {
    const runs = await runsOf("copy-protected.pdf", 0)
    // The title is set with Tf 1 and scaled by its text matrix to 14.35 pt.
    expect(runs[0]).toMatchObject({ text: "LayoutParser", fontSize: 14.35, font: "CMTT12" })
    const text = runs.map((run) => run.text).join("\n")
    expect(text).toContain("im-")
    expect(text).not.toMatch(/[\u0001-\u0003]/u)
    // "fi" drawn as one glyph: both letters read, the glyph's width shared between them.
    const unified = runs.find((run) => run.text.includes("Unified"))!
    const at = unified.text.indexOf("fi")
    expect(unified.individualWidths[at]).toBeCloseTo(unified.individualWidths[at + 1]!, 1)
  })

  it("gives each run the size its text is set in, as mutool reads it (tracemonkey.pdf p1: title, authors, marks, body)", async () => {
    const runs = await runsOf("tracemonkey.pdf", 0)
    const stext = execFileSync("mutool", ["draw", "-q", "-F", "stext", "-o", "-", PDF_DIR + "tracemonkey.pdf", "1"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"]
    })
    const mutoolSizes = new Set(
      Array.from(
        stext.matchAll(/<font name="[^"]*" size="([\d.]+)"/g),
        ([, size]) => Math.round(Number(size) * 100) / 100
      )
    )
    expect(new Set(runs.map((run) => run.fontSize))).toEqual(mutoolSizes)
    expect(runs.find((run) => run.text.startsWith("Trace-based"))!.fontSize).toBe(17.93)
    expect(runs.find((run) => run.text === "Andreas Gal")!.fontSize).toBe(10.96)
    expect(runs.find((run) => run.text === "∗")!.fontSize).toBe(7.97)
  })

  it("takes no space PDFium makes up as text: each word of a justified line is one run, as poppler finds it (DA-619p.pdf p9)", async () => {
    // The line is set word by word with wide gaps; PDFium puts a space of its own in each gap.
    const runs = await runsOf("DA-619p.pdf", 8)
    const first = runs.findIndex((run) => run.text === "however,")
    const line = runs.slice(first).filter((run) => Math.abs(run.position.y - runs[first]!.position.y) < 1)
    expect(line.map((run) => run.text)).toEqual(
      [
        "however,",
        "become",
        "the",
        "grotesque",
        "broodmothers.",
        "These",
        "giant,",
        "twisted",
        "behemoths",
        "birth",
        "many"
      ]
    )
    const words = popplerWords(PDF_DIR + "DA-619p.pdf", 8)
    for (const run of line) {
      expect(words.some((word) => word.text === run.text && Math.abs(word.x0 - run.position.x) < 1), run.text).toBe(
        true
      )
    }
  })

  it("reads right-to-left text in reading order, each word one run flagged right to left (ArabicCIDTrueType.pdf)", async () => {
    const runs = await runsOf("ArabicCIDTrueType.pdf", 0)
    const popplerLine = execFileSync("pdftotext", ["-f", "1", "-l", "1", PDF_DIR + "ArabicCIDTrueType.pdf", "-"], {
      encoding: "utf8"
    }).split("\n")[0]!.replace(/[\u202a-\u202e]/gu, "").normalize("NFKC")
    const firstLine = runs.filter((run) => run.paragraphId === runs[0]!.paragraphId)
    expect(firstLine.map((run) => run.text.normalize("NFKC")).join(" ")).toBe(popplerLine)
    expect(firstLine.every((run) => run.rightToLeftText)).toBe(true)
    // Reading order: each word left of the one before.
    for (let i = 1; i < firstLine.length; i++) {
      expect(firstLine[i]!.position.x).toBeLessThan(firstLine[i - 1]!.position.x)
    }
  })

  it("places vertical writing in its columns, turned a quarter (vertical.pdf)", async () => {
    const runs: ReadonlyArray<TextPosition> = await runsOf("vertical.pdf", 0)
    expect(runs.map((run) => [run.text, run.rotation])).toEqual([["日本語", 90], ["あいうえお", 90]])
    const columns = await inkColumns("vertical.pdf")
    expect(columns).toHaveLength(2)
    runs.forEach((run, i) => {
      const [first, last] = columns[i]!
      expect(run.position.x).toBeLessThanOrEqual(first + 1)
      expect(run.position.x + run.position.w).toBeGreaterThanOrEqual(last)
      expect(run.position.w).toBeLessThan(2 * (last - first + 1))
      expect(run.position.h).toBeGreaterThan(run.position.w * (Array.from(run.text).length - 0.5))
    })
  })

  it("reads a glyph mapped to half a surrogate pair as U+FFFD, which any text can hold", async () => {
    const [run] = await withToUnicode("D800")
    expect(run!.text).toBe("\ufffdB")
    expect(run!.text.isWellFormed()).toBe(true)
    expect(run!.individualWidths).toHaveLength(2)
  })
})
