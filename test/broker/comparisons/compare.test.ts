/**
 * The two comparisons, as a user sees them: page images diffed pixel by pixel (real renderings by
 * poppler of generated PDFs), and word-level text differences (laid-out paragraphs, then the text
 * positions pdf.js gives for corpus files).
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either } from "effect"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { PDFDocument, type PDFFont, StandardFonts } from "pdf-lib"
import sharp from "sharp"
import { parseColor } from "../../../src/schemas/broker/Comparisons.ts"
import { Rect, TextPosition } from "../../../src/schemas/broker/Content.ts"
import { ComparisonsConfig } from "../../../src/services/broker/comparisons/Comparisons.ts"
import { type DiffColors, diffPageImages } from "../../../src/services/broker/comparisons/ImageDiff.ts"
import { diffText } from "../../../src/services/broker/comparisons/TextDiff.ts"
import { pdfiumPageCount } from "../../../src/services/broker/engine/PdfiumDocuments.ts"
import { pageTextPositions } from "../../../src/services/broker/text/PdfiumText.ts"
import { CORPUS } from "../../support/backends.ts"
import { textRun } from "../../support/text-runs.ts"

const scratch = mkdtempSync(path.join(tmpdir(), "docstack-compare-"))
let files = 0

// ---- image comparison ---------------------------------------------------------------------

/** About the resolution comparisons render at (1240 pixels across a Letter page). */
const DPI = 150
const SCALE = DPI / 72
/** Red differences, blue unchanged content: easy to tell apart pixel by pixel. */
const COLORS: DiffColors = { highlight: [255, 0, 0], lowlight: [0, 0, 255] }

interface Word {
  readonly text: string
  readonly x: number
  /** Distance of the baseline from the top of the page, in points. */
  readonly top: number
}

/** A one-page PDF with words at fixed places (so changing one word moves nothing else). */
const pdfOf = async (
  words: ReadonlyArray<Word>,
  options: { readonly size?: readonly [number, number]; readonly shift?: readonly [number, number] } = {}
) => {
  const [width, height] = options.size ?? [300, 200]
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.TimesRoman)
  const page = doc.addPage([width, height])
  for (const word of words) page.drawText(word.text, { x: word.x, y: height - word.top, size: 12, font })
  page.drawRectangle({ x: 30, y: height - 150, width: 80, height: 30, borderWidth: 1.5 })
  if (options.shift) page.translateContent(options.shift[0], options.shift[1])
  return { bytes: await doc.save(), font }
}

const renderPdf = (bytes: Uint8Array) => {
  const base = path.join(scratch, `page-${files++}`)
  writeFileSync(`${base}.pdf`, bytes)
  execFileSync("pdftoppm", ["-png", "-r", String(DPI), "-singlefile", `${base}.pdf`, base])
  return new Uint8Array(readFileSync(`${base}.png`))
}

const LINE: ReadonlyArray<Word> = [
  { text: "The", x: 30, top: 40 },
  { text: "quick", x: 55, top: 40 },
  { text: "brown", x: 100, top: 40 },
  { text: "fox", x: 145, top: 40 },
  { text: "jumps", x: 30, top: 70 },
  { text: "over", x: 70, top: 70 }
]

/** Classifies every pixel of a result: highlight (red on white), lowlight (blue on white), white. */
const pixelsOf = async (png: Uint8Array) => {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true })
  const highlighted: Array<readonly [number, number]> = []
  let lowlit = 0
  let other = 0
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const i = (y * info.width + x) * info.channels
      const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!]
      if (r === 255 && g === 255 && b === 255) continue
      if (r === 255 && g === b) highlighted.push([x, y])
      else if (b === 255 && r === g) lowlit++
      else other++
    }
  }
  return { width: info.width, height: info.height, highlighted, lowlit, other }
}

const bounds = (points: ReadonlyArray<readonly [number, number]>) => ({
  left: Math.min(...points.map((p) => p[0])),
  right: Math.max(...points.map((p) => p[0])),
  top: Math.min(...points.map((p) => p[1])),
  bottom: Math.max(...points.map((p) => p[1]))
})

/** The pixels a word of LINE covers, with a pixel of antialiasing around. */
const wordPixels = (font: PDFFont, words: ReadonlyArray<Word>) => ({
  left: Math.floor(Math.min(...words.map((w) => w.x)) * SCALE) - 2,
  right: Math.ceil(Math.max(...words.map((w) => w.x + font.widthOfTextAtSize(w.text, 12))) * SCALE) + 2,
  top: Math.floor((Math.min(...words.map((w) => w.top)) - 12) * SCALE) - 2,
  bottom: Math.ceil((Math.max(...words.map((w) => w.top)) + 4) * SCALE) + 2
})

describe("diffPageImages", () => {
  it("paints only the changed word, over a faint copy of the page", async () => {
    const before = await pdfOf(LINE)
    const after = await pdfOf(LINE.map((w) => (w.text === "quick" ? { ...w, text: "slow" } : w)))
    const left = renderPdf(before.bytes)
    const right = renderPdf(after.bytes)
    const area = wordPixels(before.font, [{ text: "quick", x: 55, top: 40 }])
    for (const fuzz of [0, 5]) {
      const result = await diffPageImages(left, right, { fuzz, colors: COLORS })
      const seen = await pixelsOf(result.png)
      expect([result.width, result.height]).toEqual([Math.ceil(300 * SCALE), Math.ceil(200 * SCALE)])
      expect(seen.highlighted.length).toBe(result.differingPixels)
      expect(result.differingPixels).toBeGreaterThan(100)
      const box = bounds(seen.highlighted)
      expect(box.left).toBeGreaterThanOrEqual(area.left)
      expect(box.right).toBeLessThanOrEqual(area.right)
      expect(box.top).toBeGreaterThanOrEqual(area.top)
      expect(box.bottom).toBeLessThanOrEqual(area.bottom)
      // The rest of the page (the other words, the box) is there, in the lowlight colour.
      expect(seen.lowlit).toBeGreaterThan(1000)
      expect(seen.other).toBe(0)
    }
  })

  it("draws the new word in full and the removed one fainter", async () => {
    const left = renderPdf((await pdfOf(LINE)).bytes)
    const right = renderPdf((await pdfOf(LINE.filter((w) => w.text !== "quick"))).bytes)
    const result = await diffPageImages(left, right, { fuzz: 0, colors: COLORS })
    const { data, info } = await sharp(result.png).raw().toBuffer({ resolveWithObject: true })
    const greens = new Set<number>()
    for (let i = 0; i < data.length; i += info.channels) {
      if (data[i] === 255 && data[i + 1] === data[i + 2] && data[i + 1]! < 255) greens.add(data[i + 1]!)
    }
    // Only removed ink: every difference in the lighter red.
    expect([...greens]).toEqual([Math.round(255 * 0.55)])
  })

  it("finds nothing between identical renderings", async () => {
    const page = renderPdf((await pdfOf(LINE)).bytes)
    for (const fuzz of [0, 5]) {
      const result = await diffPageImages(page, page, { fuzz, colors: COLORS })
      expect(result.differingPixels).toBe(0)
      const seen = await pixelsOf(result.png)
      expect(seen.highlighted).toHaveLength(0)
      expect(seen.lowlit).toBeGreaterThan(1000)
    }
  })

  it("ignores text moved by a fraction of a pixel at fuzz 5, not at fuzz 0", async () => {
    const left = renderPdf((await pdfOf(LINE)).bytes)
    const right = renderPdf((await pdfOf(LINE, { shift: [0.17, 0.11] })).bytes)
    const strict = await diffPageImages(left, right, { fuzz: 0, colors: COLORS })
    const tolerant = await diffPageImages(left, right, { fuzz: 5, colors: COLORS })
    const plainFuzz = await diffPageImages(left, right, { fuzz: 5, colors: COLORS, shiftTolerance: false })
    expect(strict.differingPixels).toBeGreaterThan(500)
    expect(tolerant.differingPixels).toBeLessThan(strict.differingPixels / 20)
    // Colour tolerance alone (ImageMagick's -fuzz) hardly helps with moved antialiased edges.
    expect(plainFuzz.differingPixels).toBeGreaterThan(strict.differingPixels / 2)
  })

  it("still shows a word changed within text that moved a fraction of a pixel", async () => {
    const left = renderPdf((await pdfOf(LINE)).bytes)
    const right = renderPdf(
      (await pdfOf(LINE.map((w) => (w.text === "fox" ? { ...w, text: "cat" } : w)), { shift: [0.17, 0.11] })).bytes
    )
    const result = await diffPageImages(left, right, { fuzz: 5, colors: COLORS })
    const seen = await pixelsOf(result.png)
    const area = wordPixels((await pdfOf([])).font, [{ text: "fox", x: 145, top: 40 }])
    const inWord = seen.highlighted.filter(([x, y]) =>
      x >= area.left && x <= area.right && y >= area.top && y <= area.bottom
    )
    expect(inWord.length).toBeGreaterThan(100)
    expect(inWord.length).toBeGreaterThan(0.85 * seen.highlighted.length)
  })

  it("measures fuzz as ImageMagick does: Euclidean RGB distance against a percentage of 255", async () => {
    const flat = (v: number) =>
      sharp({ create: { width: 10, height: 10, channels: 3, background: { r: v, g: v, b: v } } }).png().toBuffer()
    const [a, b] = [new Uint8Array(await flat(100)), new Uint8Array(await flat(108))]
    // Distance 8·√3 = 13.9, i.e. 5.4% of 255.
    expect((await diffPageImages(a, b, { fuzz: 5, colors: COLORS })).differingPixels).toBe(100)
    expect((await diffPageImages(a, b, { fuzz: 6, colors: COLORS })).differingPixels).toBe(0)
    expect((await diffPageImages(a, a, { fuzz: 0, colors: COLORS })).differingPixels).toBe(0)
  })

  it("shows a page present on one side only as changed all over, its content legible", async () => {
    const page = renderPdf((await pdfOf(LINE)).bytes)
    for (const [left, right] of [[page, undefined], [undefined, page]] as const) {
      const result = await diffPageImages(left, right, { fuzz: 5, colors: COLORS })
      expect(result.differingPixels).toBe(result.width * result.height)
      const { data, info } = await sharp(result.png).raw().toBuffer({ resolveWithObject: true })
      // Every pixel is a shade of the highlight: a light wash for the paper, full for the ink.
      const shades = new Set<number>()
      let others = 0
      for (let i = 0; i < data.length; i += info.channels) {
        if (data[i] === 255 && data[i + 1] === data[i + 2] && data[i + 1]! <= 204) shades.add(data[i + 1]!)
        else others++
      }
      expect(others).toBe(0)
      expect(shades.has(204)).toBe(true)
      expect(shades.has(0)).toBe(true)
    }
  })

  it("aligns pages of different sizes at the top left; the part only one page has is a difference", async () => {
    const small = renderPdf((await pdfOf(LINE, { size: [300, 200] })).bytes)
    const tall = renderPdf((await pdfOf(LINE, { size: [360, 260] })).bytes)
    const result = await diffPageImages(small, tall, { fuzz: 0, colors: COLORS })
    const size = async (png: Uint8Array) => sharp(png).metadata().then((m) => [m.width, m.height] as const)
    const [w, h] = await size(small)
    const [W, H] = await size(tall)
    expect(W).toBeGreaterThan(w)
    expect(H).toBeGreaterThan(h)
    expect([result.width, result.height]).toEqual([W, H])
    // The same content, at the same place from the top: the shared area is unchanged.
    expect(result.differingPixels).toBe(W * H - w * h)
    const seen = await pixelsOf(result.png)
    expect(seen.highlighted.every(([x, y]) => x >= w || y >= h)).toBe(true)
  })

  it("pads both when one page is wider and the other taller", async () => {
    const wide = renderPdf((await pdfOf(LINE, { size: [360, 200] })).bytes)
    const tall = renderPdf((await pdfOf(LINE, { size: [300, 260] })).bytes)
    const result = await diffPageImages(wide, tall, { fuzz: 0, colors: COLORS })
    const [wideSize, tallSize] = await Promise.all([wide, tall].map((png) => sharp(png).metadata()))
    expect([result.width, result.height]).toEqual([wideSize!.width, tallSize!.height])
    const shared = tallSize!.width! * wideSize!.height!
    expect(result.differingPixels).toBe(result.width * result.height - shared)
  })

  it("rejects a comparison of nothing", async () => {
    await expect(diffPageImages(undefined, undefined, { fuzz: 0, colors: COLORS })).rejects.toThrow()
  })
})

describe("colour settings", () => {
  it.effect("are read as requests' colours are; one that is not a colour is refused with its name", () =>
    Effect.gen(function*() {
      const read = (settings: ReadonlyArray<readonly [string, string]>) =>
        Effect.either(Effect.withConfigProvider(ComparisonsConfig, ConfigProvider.fromMap(new Map(settings))))
      const fine = yield* read([["COMPARISON_HIGHLIGHT_COLOR", "blue"]])
      expect(Either.getOrThrow(fine)).toMatchObject({ defaultHighlight: "#0000FF", defaultLowlight: "#B4B4B4" })
      const refused = yield* read([["COMPARISON_LOWLIGHT_COLOR", "dull"]])
      expect(Either.isLeft(refused) && String(refused.left)).toContain("COMPARISON_LOWLIGHT_COLOR")
    }))
})

describe("parseColor", () => {
  it("reads CSS colours: hex, rgb() in its forms, every name; refuses the rest and transparent ones", () => {
    expect(parseColor("#FF8000")).toEqual([255, 128, 0])
    expect(parseColor("#f80")).toEqual([255, 136, 0])
    expect(parseColor("00ff00")).toEqual([0, 255, 0])
    expect(parseColor(" rgb(12, 34,56) ")).toEqual([12, 34, 56])
    expect(parseColor("rgb(1 2 3)")).toEqual([1, 2, 3])
    expect(parseColor("rgb(10%, 20%, 30%)")).toEqual([26, 51, 77])
    // Out of range, as CSS does: clamped.
    expect(parseColor("rgb(300, 0, 0)")).toEqual([255, 0, 0])
    expect(parseColor("Red")).toEqual([255, 0, 0])
    expect(parseColor("grey")).toEqual([128, 128, 128])
    expect(parseColor("RebeccaPurple")).toEqual([102, 51, 153])
    for (const bad of ["", "#12345", "#GGGGGG", "rgb(1,2)", "reddish", "rgba(1,2,3,0.5)", "transparent"]) {
      expect(parseColor(bad)).toBeUndefined()
    }
  })
})

// ---- text difference ----------------------------------------------------------------------

const CHAR = 5
const LEADING = 14

const run = (text: string, x: number, y: number, page: number) => textRun(text, x, y, { page, charWidth: CHAR })

/** Line `i` of a page starts at (50, 50 + 14 i); characters are 5 wide. */
const lineY = (i: number) => 50 + i * LEADING

/** One run per line, or one run per word (placed where the line would put it). */
const pageOf = (lines: ReadonlyArray<string>, page = 0, perWord = false) =>
  lines.flatMap((line, i) => {
    if (!perWord) return [run(line, 50, lineY(i), page)]
    const runs: Array<TextPosition> = []
    let column = 0
    for (const word of line.split(" ")) {
      runs.push(run(word, 50 + column * CHAR, lineY(i), page))
      column += word.length + 1
    }
    return runs
  })

/** Greedy line breaking at `width` characters. */
const wrap = (text: string, width: number) =>
  text.split(" ").reduce<Array<string>>((lines, word) => {
    const last = lines[lines.length - 1]
    if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`
    else lines.push(word)
    return lines
  }, [])

/** Where the `nth` occurrence of `word` is in a run-per-line page: what a change's box should be. */
const boxOf = (lines: ReadonlyArray<string>, word: string, nth = 0) => {
  let seen = 0
  for (let i = 0; i < lines.length; i++) {
    const words = lines[i]!.split(" ")
    let column = 0
    for (const w of words) {
      if (w === word && seen++ === nth) return { x: 50 + column * CHAR, y: lineY(i), w: word.length * CHAR, h: 10 }
      column += w.length + 1
    }
  }
  throw new Error(`${word} not in the text`)
}

const PARAGRAPH =
  "The quick brown fox jumps over the lazy dog while the farmer watches from the old wooden gate near the barn, far away."

const plain = (value: unknown) => JSON.parse(JSON.stringify(value))

describe("diffText", () => {
  it("reports a replaced, a deleted and an inserted word, with their pages and boxes", () => {
    const leftLines = wrap(PARAGRAPH, 40)
    const rightText = PARAGRAPH.replace("quick", "slow").replace("lazy ", "").replace("the barn", "the red barn")
    const rightLines = wrap(rightText, 40)
    const changes = plain(diffText([[], pageOf(leftLines, 1)], [[], pageOf(rightLines, 1)]))
    expect(changes).toEqual([
      {
        changeType: "MODIFIED",
        left: { text: "quick", pageNumber: 1, position: boxOf(leftLines, "quick") },
        right: { text: "slow", pageNumber: 1, position: boxOf(rightLines, "slow") },
        fragments: [
          { text: "quick", type: "DELETED", pageNumber: 1, endOfLine: false },
          { text: "slow", type: "INSERTED", pageNumber: 1, endOfLine: false }
        ]
      },
      {
        changeType: "DELETED",
        left: { text: "lazy", pageNumber: 1, position: boxOf(leftLines, "lazy") },
        // Nothing on the right: a zero-width box after "the", where "lazy" was.
        right: {
          text: "",
          pageNumber: 1,
          position: { ...boxOf(rightLines, "the", 0), x: boxOf(rightLines, "the", 0).x + 15, w: 0 }
        },
        fragments: [{ text: "lazy", type: "DELETED", pageNumber: 1, endOfLine: true }]
      },
      {
        changeType: "INSERTED",
        left: {
          text: "",
          pageNumber: 1,
          position: { ...boxOf(leftLines, "the", 3), x: boxOf(leftLines, "the", 3).x + 15, w: 0 }
        },
        right: { text: "red", pageNumber: 1, position: boxOf(rightLines, "red") },
        fragments: [{ text: "red", type: "INSERTED", pageNumber: 1, endOfLine: false }]
      }
    ])
  })

  it("sees no change in the same text reflowed: other line breaks, runs per word, a hyphenated line end, a page break", () => {
    const left = [pageOf(wrap(PARAGRAPH, 40))]
    const narrow = wrap(PARAGRAPH, 24)
    expect(diffText(left, [pageOf(narrow)])).toEqual([])
    expect(diffText(left, [pageOf(narrow, 0, true)])).toEqual([])
    const hyphenated = [
      "The quick brown fox jumps over the la-",
      "zy dog while the far-",
      "mer watches from the old wooden gate near",
      "the barn, far away."
    ]
    expect(diffText(left, [pageOf(hyphenated)])).toEqual([])
    expect(diffText(left, [pageOf(hyphenated.slice(0, 2)), pageOf(hyphenated.slice(2), 1)])).toEqual([])
    // A compound broken at its hyphen matches it written whole, with or without the hyphen.
    expect(diffText([pageOf(["a well-known fact"])], [pageOf(["a well-", "known fact"])])).toEqual([])
    expect(diffText([pageOf(["a wellknown fact"])], [pageOf(["a well-", "known fact"])])).toEqual([])
    // Runs of one line that touch are one word.
    expect(diffText([pageOf(["the barn"])], [[run("the", 50, 50, 0), run("ba", 70, 50, 0), run("rn", 80, 50, 0)]]))
      .toEqual([])
  })

  it("counts case and punctuation; changes two words apart are one change", () => {
    const changes = plain(diffText([pageOf(["The quick brown fox."])], [pageOf(["the quick brown fox,"])]))
    expect(changes).toHaveLength(1)
    expect(changes[0].changeType).toBe("MODIFIED")
    expect(changes[0].left.text).toBe("The quick brown fox.")
    expect(changes[0].right.text).toBe("the quick brown fox,")
    expect(changes[0].left.position).toEqual({ x: 50, y: 50, w: 100, h: 10 })
    expect(changes[0].fragments.map((f: { text: string; type: string }) => `${f.type} ${f.text}`)).toEqual([
      "DELETED The",
      "INSERTED the",
      "DELETED fox.",
      "INSERTED fox,"
    ])
    // Three unchanged words apart: two changes.
    expect(diffText([pageOf(["The quick brown red fox."])], [pageOf(["the quick brown red fox,"])])).toHaveLength(2)
    // Two insertions a word apart stay two insertions: the word between them was not inserted.
    const inserted = plain(
      diffText([pageOf(["This is confidential."])], [pageOf(["This is strictly confidential. A new clause."])])
    )
    expect(inserted.map((c: { changeType: string; right: { text: string } }) => [c.changeType, c.right.text])).toEqual([
      ["INSERTED", "strictly"],
      ["INSERTED", "A new clause."]
    ])
  })

  it("cuts fragments at line ends and keeps a change's box on its first page", () => {
    const left = [pageOf(["alpha beta gamma", "delta epsilon zeta"]), pageOf(["eta theta iota"], 1)]
    const right = [pageOf(["alpha beta", "zeta"]), pageOf(["theta iota"], 1)]
    const changes = plain(diffText(left, right))
    expect(changes).toEqual([
      {
        changeType: "DELETED",
        left: { text: "gamma delta epsilon", pageNumber: 0, position: { x: 50, y: 50, w: 80, h: 24 } },
        right: { text: "", pageNumber: 0, position: { x: 100, y: 50, w: 0, h: 10 } },
        fragments: [
          { text: "gamma", type: "DELETED", pageNumber: 0, endOfLine: true },
          { text: "delta epsilon", type: "DELETED", pageNumber: 0, endOfLine: false }
        ]
      },
      {
        changeType: "DELETED",
        left: { text: "eta", pageNumber: 1, position: { x: 50, y: 50, w: 15, h: 10 } },
        // "eta" began a line: the place it left is before the next word.
        right: { text: "", pageNumber: 1, position: { x: 50, y: 50, w: 0, h: 10 } },
        fragments: [{ text: "eta", type: "DELETED", pageNumber: 1, endOfLine: false }]
      }
    ])
    // A deletion running over a page break: its box is on the first page, its fragments on both.
    const across = plain(
      diffText([pageOf(["one two"]), pageOf(["three four"], 1)], [pageOf(["one"]), pageOf(["four"], 1)])
    )
    expect(across).toHaveLength(1)
    expect(across[0].left).toEqual({ text: "two three", pageNumber: 0, position: { x: 70, y: 50, w: 15, h: 10 } })
    expect(across[0].fragments).toEqual([
      { text: "two", type: "DELETED", pageNumber: 0, endOfLine: true },
      { text: "three", type: "DELETED", pageNumber: 1, endOfLine: false }
    ])
  })

  it("prints a hyphenated word's fragments as on the page, one per line", () => {
    const changes = plain(diffText([pageOf(["a reflow-", "ed line"])], [pageOf(["a line"])]))
    expect(changes).toHaveLength(1)
    expect(changes[0].left.text).toBe("reflowed")
    expect(changes[0].fragments).toEqual([
      { text: "reflow-", type: "DELETED", pageNumber: 0, endOfLine: true },
      { text: "ed", type: "DELETED", pageNumber: 0, endOfLine: false }
    ])
  })

  it("cuts a word's box from its run along the run's direction", () => {
    const vertical = (text: string) =>
      new TextPosition({
        ...run(text, 20, 100, 0),
        position: new Rect({ x: 20, y: 100, w: 10, h: Array.from(text).length * CHAR }),
        rotation: 90
      })
    const down = plain(diffText([[vertical("going down here")]], [[vertical("going up here")]]))
    expect(down[0].left).toEqual({ text: "down", pageNumber: 0, position: { x: 20, y: 130, w: 10, h: 20 } })
    const upsideDown = (text: string) => new TextPosition({ ...run(text, 100, 100, 0), rotation: 180 })
    const turned = plain(diffText([[upsideDown("abc def")]], [[upsideDown("abc xyz")]]))
    // Drawn right to left: "def" is at the left end of the box.
    expect(turned[0].left.position).toEqual({ x: 100, y: 100, w: 15, h: 10 })
  })

  it("reports everything of a document compared with an empty one", () => {
    const changes = plain(diffText([pageOf(["some words here"])], [[]]))
    expect(changes).toHaveLength(1)
    expect(changes[0].changeType).toBe("DELETED")
    expect(changes[0].right).toEqual({ text: "", pageNumber: 0, position: { x: 0, y: 0, w: 0, h: 0 } })
    expect(diffText([[]], [[]])).toEqual([])
  })
})

// ---- corpus text ----------------------------------------------------------------------------

/** Text positions of every page, read as the PDF engine reads them. */
const textPositionsOf = async (file: string) => {
  const source = { hash: createHash("sha256").update(readFileSync(file)).digest("hex"), path: file }
  const pages: Array<ReadonlyArray<TextPosition>> = []
  for (let i = 0, count = await pdfiumPageCount(source); i < count; i++) pages.push(await pageTextPositions(source, i))
  return pages
}

/** A copy with word `index` of run `runIndex` on `page` replaced (the run keeps its box). */
const replaceWord = (
  pages: ReadonlyArray<ReadonlyArray<TextPosition>>,
  page: number,
  runIndex: number,
  index: number,
  replacement: string
) =>
  pages.map((runs, p) =>
    p !== page ? runs : runs.map((r, i) => {
      if (i !== runIndex) return r
      const text = r.text.split(" ").map((w, k) => (k === index ? replacement : w)).join(" ")
      const chars = Array.from(text)
      return new TextPosition({ ...r, text, individualWidths: chars.map(() => r.position.w / chars.length) })
    })
  )

/** Runs of a page that hold at least `words` words, none of them hyphenated at the end. */
const wordyRuns = (runs: ReadonlyArray<TextPosition>, words: number) =>
  runs.flatMap((r, i) => (r.text.split(" ").length >= words && !/-$/.test(r.text) ? [i] : []))

describe("diffText on real documents", () => {
  it("finds no change between tracemonkey.pdf and itself, and exactly the words altered in a copy", async () => {
    const pages = await textPositionsOf(path.join(CORPUS, "pdf", "tracemonkey.pdf"))
    expect(pages).toHaveLength(14)
    expect(diffText(pages, pages)).toEqual([])

    const edits = [[1, "ALTERED"], [5, "CHANGED"], [12, "REPLACED"]] as const
    let altered: ReadonlyArray<ReadonlyArray<TextPosition>> = pages
    const expected: Array<{ page: number; old: string; replacement: string; run: Rect }> = []
    for (const [page, replacement] of edits) {
      const runIndex = wordyRuns(pages[page]!, 6)[3]!
      const run = pages[page]![runIndex]!
      expected.push({ page, old: run.text.split(" ")[2]!, replacement, run: run.position })
      altered = replaceWord(altered, page, runIndex, 2, replacement)
    }
    const changes = diffText(pages, altered)
    expect(changes.map((c) => [c.changeType, c.left!.text, c.right!.text, c.left!.pageNumber, c.right!.pageNumber]))
      .toEqual(
        expected.map((e) => ["MODIFIED", e.old, e.replacement, e.page, e.page])
      )
    changes.forEach((change, k) => {
      const { run } = expected[k]!
      // The word's box lies inside its run's box, on its line.
      const box = change.left!.position
      expect(box.y).toBeCloseTo(run.y, 1)
      expect(box.h).toBeCloseTo(run.h, 1)
      expect(box.x).toBeGreaterThan(run.x)
      expect(box.x + box.w).toBeLessThan(run.x + run.w + 0.01)
      expect(change.fragments.map((f) => [f.type, f.text, f.pageNumber])).toEqual([
        ["DELETED", expected[k]!.old, expected[k]!.page],
        ["INSERTED", expected[k]!.replacement, expected[k]!.page]
      ])
    })
  })

  it("diffs a 400-page document against a copy with a few changes quickly", async () => {
    let started = performance.now()
    const pages = await textPositionsOf(path.join(CORPUS, "pdf", "pdf2image-memory-error-test-400p.pdf"))
    const extraction = performance.now() - started
    expect(pages).toHaveLength(400)

    const targets = [20, 150, 333].map((page) => ({ page, runIndex: wordyRuns(pages[page]!, 4)[0]! }))
    let altered: ReadonlyArray<ReadonlyArray<TextPosition>> = pages
    for (const { page, runIndex } of targets) altered = replaceWord(altered, page, runIndex, 1, "Zyzzyva")
    // And a page taken out.
    altered = [...altered.slice(0, 250), ...altered.slice(251)]

    started = performance.now()
    expect(diffText(pages, pages)).toEqual([])
    const identical = performance.now() - started
    started = performance.now()
    const changes = diffText(pages, altered)
    const changed = performance.now() - started
    console.log(
      `400 pages: text positions ${extraction.toFixed(0)} ms; diff identical ${identical.toFixed(0)} ms, with changes ${
        changed.toFixed(0)
      } ms`
    )

    const replaced = changes.filter((c) => c.changeType === "MODIFIED")
    expect(replaced.map((c) => [c.left!.pageNumber, c.right!.text])).toEqual(targets.map((t) => [t.page, "Zyzzyva"]))
    // The page's words, give or take the running header it shares with the next page (which copy
    // of "Exhibit 2.3.59-66 (Cont." went is a matter of alignment).
    const removed = changes.filter((c) => c.changeType === "DELETED")
    expect(removed).toHaveLength(1)
    expect(removed[0]!.left!.pageNumber).toBe(250)
    expect(removed[0]!.left!.text).toContain("page 245")
    expect(removed[0]!.left!.text.split(" ")).toHaveLength(
      pages[250]!.flatMap((r) => r.text.split(" ").filter((w) => w !== "")).length
    )
    expect(new Set(removed[0]!.fragments.map((f) => f.pageNumber))).toEqual(new Set([250, 251]))
    expect(changes).toHaveLength(4)
    expect(changed).toBeLessThan(5_000)
  })
})
