/**
 * Redaction judged as a reader and an attacker would judge it: text read with pdftotext, every object
 * of the result decompressed and searched, stored image pixels decoded, painted paths recomputed by
 * a small interpreter of this file's own (not the module's), pages rendered with pdftoppm and
 * compared with the original outside the regions.
 */
import { NodeContext } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import {
  concatTransformationMatrix,
  decodePDFRawStream,
  degrees,
  drawObject,
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  type PDFPage,
  PDFRawStream,
  PDFString,
  popGraphicsState,
  pushGraphicsState,
  rgb,
  StandardFonts
} from "pdf-lib"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import sharp from "sharp"
import { afterAll } from "vitest"
import {
  redact,
  RedactionFailed,
  type RedactionRegion,
  type RedactionSettings
} from "../../../src/services/broker/transformations/Redaction.ts"
import { CORPUS } from "../../support/backends.ts"

type Box = readonly [number, number, number, number]
type Matrix = readonly [number, number, number, number, number, number]

const scratch = mkdtempSync(path.join(tmpdir(), "docstack-redaction-test-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
let files = 0
const saved = (pdf: Uint8Array) => {
  const file = path.join(scratch, `${files++}.pdf`)
  writeFileSync(file, pdf)
  return file
}
const corpus = (name: string) => new Uint8Array(readFileSync(path.join(CORPUS, "pdf", name)))

const pageText = (pdf: Uint8Array, page: number) =>
  execFileSync("pdftotext", ["-enc", "UTF-8", "-f", `${page + 1}`, "-l", `${page + 1}`, saved(pdf), "-"], {
    encoding: "utf8"
  })

const words = (text: string) => text.split(/\s+/).filter((w) => w !== "")

interface Raster {
  readonly data: Buffer
  readonly width: number
  readonly height: number
}
const render = (pdf: Uint8Array, page: number): Promise<Raster> => {
  const prefix = path.join(scratch, `${files++}`)
  execFileSync("pdftoppm", [
    "-r",
    "72",
    "-cropbox",
    "-f",
    `${page + 1}`,
    "-l",
    `${page + 1}`,
    "-singlefile",
    "-png",
    saved(pdf),
    prefix
  ])
  return sharp(`${prefix}.png`).removeAlpha().raw().toBuffer({ resolveWithObject: true }).then(({ data, info }) => ({
    data,
    width: info.width,
    height: info.height
  }))
}

/** Everything an attacker can read out of the file: every object, streams decompressed, hex and UTF-16 strings decoded. */
const attackerView = async (pdf: Uint8Array): Promise<string> => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  return doc.context.enumerateIndirectObjects()
    .map(([, object]) => {
      if (!(object instanceof PDFRawStream)) return object.toString()
      try {
        return object.dict.toString() + Buffer.from(decodePDFRawStream(object).decode()).toString("latin1")
      } catch {
        return object.dict.toString() // an image codec pdf-lib cannot decode
      }
    })
    .join("\n")
    .replace(/<([0-9A-Fa-f\s]+)>/g, (_, hex: string) => Buffer.from(hex.replace(/\s/g, ""), "hex").toString("latin1"))
    .replace(/\0/g, "")
}

const decoded = (stream: unknown) =>
  stream instanceof PDFRawStream ? Buffer.from(decodePDFRawStream(stream).decode()) : Buffer.alloc(0)

/** A page's content streams, decoded and joined. */
const pageContent = (doc: PDFDocument, page: number): Buffer => {
  const contents = doc.getPage(page).node.Contents()
  const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => doc.context.lookup(ref)) : [contents]
  return Buffer.concat(streams.map(decoded))
}

const times = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5]
]
const boxOf = (
  points: ReadonlyArray<readonly [number, number]>
): Box => [
  Math.min(...points.map((p) => p[0])),
  Math.min(...points.map((p) => p[1])),
  Math.max(...points.map((p) => p[0])),
  Math.max(...points.map((p) => p[1]))
]

/**
 * What a page paints with paths, recomputed: a page-space box per filled subpath and per stroked
 * segment (control points included), forms followed. Clips and `n` paint nothing and are skipped.
 */
const paintedPaths = async (pdf: Uint8Array, page: number) => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  const fills: Array<Box> = []
  const strokes: Array<Box> = []
  const walk = (content: string, resources: PDFDict | undefined, start: Matrix) => {
    const tokens = content.replace(/\bBI\b[\s\S]*?\bID\b[\s\S]*?\sEI\b/g, " ")
      .match(/\((?:\\[\s\S]|[^\\)])*\)|<<|>>|<[0-9A-Fa-f\s]*>|\[|\]|\/[^\s/[\]()<>{}%]*|[^\s/[\]()<>{}%]+/g) ?? []
    const stack: Array<Matrix> = []
    let ctm = start
    let operands: Array<string> = []
    let subpaths: Array<
      { start: readonly [number, number]; points: Array<readonly [number, number]>; segments: Array<Box> }
    > = []
    let current: readonly [number, number] = [0, 0]
    const at = (x: number, y: number) => [ctm[0] * x + ctm[2] * y + ctm[4], ctm[1] * x + ctm[3] * y + ctm[5]] as const
    const segment = (...points: Array<readonly [number, number]>) => {
      const sub = subpaths[subpaths.length - 1] ?? { start: current, points: [at(...current)], segments: [] }
      if (subpaths.length === 0) subpaths.push(sub)
      const mapped = points.map((p) => at(...p))
      sub.points.push(...mapped)
      sub.segments.push(boxOf([at(...current), ...mapped]))
      current = points[points.length - 1]!
    }
    // Closing where the subpath started draws nothing.
    const close = () => {
      const start = subpaths[subpaths.length - 1]?.start ?? current
      if (start[0] !== current[0] || start[1] !== current[1]) segment(start)
    }
    for (const token of tokens) {
      if (!/^[A-Za-z'"]/.test(token) || ["true", "false", "null"].includes(token)) {
        operands.push(token)
        continue
      }
      const n = operands.filter((o) => /^[+-]?(\d+\.?\d*|\.\d+)$/.test(o)).map(Number)
      const name = operands.find((o) => o.startsWith("/"))?.slice(1)
      operands = []
      if (token === "q") stack.push(ctm)
      else if (token === "Q") ctm = stack.pop() ?? ctm
      else if (token === "cm") ctm = times(n as unknown as Matrix, ctm)
      else if (token === "m") {
        current = [n[0]!, n[1]!]
        subpaths.push({ start: current, points: [at(...current)], segments: [] })
      } else if (token === "l") segment([n[0]!, n[1]!])
      else if (token === "c") segment([n[0]!, n[1]!], [n[2]!, n[3]!], [n[4]!, n[5]!])
      else if (token === "v") segment([n[0]!, n[1]!], [n[2]!, n[3]!])
      else if (token === "y") segment([n[0]!, n[1]!], [n[2]!, n[3]!])
      else if (token === "h") close()
      else if (token === "re") {
        const [x, y, w, h] = n as [number, number, number, number]
        current = [x, y]
        subpaths.push({ start: current, points: [at(x, y)], segments: [] })
        segment([x + w, y], [x + w, y + h])
        segment([x, y + h])
        segment([x, y])
      } else if (["S", "s", "f", "F", "f*", "B", "B*", "b", "b*", "n"].includes(token)) {
        if (["s", "b", "b*"].includes(token)) close()
        if (!["S", "s", "n"].includes(token)) fills.push(...subpaths.map((sub) => boxOf(sub.points)))
        if (["S", "s", "B", "B*", "b", "b*"].includes(token)) strokes.push(...subpaths.flatMap((sub) => sub.segments))
        subpaths = []
      } else if (token === "Do" && name !== undefined) {
        const xobject = doc.context.lookup(
          resources?.lookupMaybe(PDFName.of("XObject"), PDFDict)?.get(PDFName.of(name))
        )
        if (xobject instanceof PDFRawStream && xobject.dict.get(PDFName.of("Subtype"))?.toString() === "/Form") {
          const matrix = xobject.dict.lookupMaybe(PDFName.of("Matrix"), PDFArray)?.asArray().map((v) =>
            (v as PDFNumber).asNumber()
          ) ?? [1, 0, 0, 1, 0, 0]
          walk(
            decoded(xobject).toString("latin1"),
            xobject.dict.lookupMaybe(PDFName.of("Resources"), PDFDict) ?? resources,
            times(matrix as unknown as Matrix, ctm)
          )
        }
      }
    }
  }
  walk(pageContent(doc, page).toString("latin1"), doc.getPage(page).node.Resources(), [1, 0, 0, 1, 0, 0])
  return { fills, strokes }
}

/** Boxes reaching into a region by more than a rounding error. */
const into = (boxes: ReadonlyArray<Box>, r: Box) =>
  boxes.filter((b) => b[0] < r[2] - 0.001 && r[0] + 0.001 < b[2] && b[1] < r[3] - 0.001 && r[1] + 0.001 < b[3])
const grow = ([x0, y0, x1, y1]: Box, by: number): Box => [x0 - by, y0 - by, x1 + by, y1 + by]

/** The image XObjects a page draws directly, with their decoded samples. */
const pageImages = (doc: PDFDocument, page: number) => {
  const xobjects = doc.getPage(page).node.Resources()?.lookupMaybe(PDFName.of("XObject"), PDFDict)
  return (xobjects?.values() ?? []).map((ref) => doc.context.lookup(ref))
    .filter((o): o is PDFRawStream =>
      o instanceof PDFRawStream && o.dict.get(PDFName.of("Subtype"))?.toString() === "/Image"
    )
    .map((image) => ({ width: (image.dict.get(PDFName.of("Width")) as PDFNumber).asNumber(), samples: decoded(image) }))
}

/** The bounding box of the pixels that pass `test`, in pixels. */
const pixelBox = (raster: Raster, test: (r: number, g: number, b: number) => boolean): Box => {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity]
  for (let y = 0; y < raster.height; y++) {
    for (let x = 0; x < raster.width; x++) {
      const i = (y * raster.width + x) * 3
      if (!test(raster.data[i]!, raster.data[i + 1]!, raster.data[i + 2]!)) continue
      ;[x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x + 1), Math.max(y1, y + 1)]
    }
  }
  return [x0, y0, x1, y1]
}
const isRed = (r: number, g: number, b: number) => r > 200 && g < 60 && b < 60

/** Where a user-space rectangle is shown, as pdf.js places it (crop box and /Rotate applied). */
const displayedBox = async (pdf: Uint8Array, page: number, [x0, y0, x1, y1]: Box): Promise<Box> => {
  const doc = await pdfjs.getDocument({ data: pdf.slice(), verbosity: 0, isEvalSupported: false }).promise
  const viewport = (await doc.getPage(page + 1)).getViewport({ scale: 1 })
  const corners = [[x0, y0], [x1, y1]].map(([x, y]) => viewport.convertToViewportPoint(x!, y!) as [number, number])
  await doc.destroy()
  return boxOf(corners)
}

// ---- a generated document with one of each kind of content ------------------------------------

const SECRET = "SECRETWORD"
const IMAGE = Buffer.alloc(100 * 100 * 3)
for (let i = 0; i < 100 * 100; i++) IMAGE.set([200, (i % 100) * 2, 50 + Math.floor(i / 100)], i * 3)

const generated = Effect.promise(async () => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  const image = await doc.embedPng(
    await sharp(IMAGE, { raw: { width: 100, height: 100, channels: 3 } }).png().toBuffer()
  )
  const circle = doc.context.register(doc.context.stream(
    "1 0 0 rg 50 0 m 77.6 0 100 22.4 100 50 c 100 77.6 77.6 100 50 100 c 22.4 100 0 77.6 0 50 c 0 22.4 22.4 0 50 0 c f",
    { Type: "XObject", Subtype: "Form", BBox: [0, 0, 100, 100] }
  ))
  const draw = (page: PDFPage, secret: string, description: string) => {
    page.drawText(`Public ${secret} neighbour`, { x: 50, y: 700, size: 20, font })
    page.drawRectangle({ x: 100, y: 500, width: 100, height: 100, color: rgb(0, 0, 1) })
    page.drawLine({ start: { x: 300, y: 450 }, end: { x: 500, y: 650 }, thickness: 2 })
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(1, 0, 0, 1, 400, 200),
      drawObject(page.node.newXObject("Fm", circle)),
      popGraphicsState()
    )
    // The image as a tagged figure, described in its marked content (and, on the first page, in the structure tree).
    const drawn = `/Figure <</Alt (${description}) /MCID 0>> BDC q 200 0 0 200 100 200 cm ${
      page.node.newXObject("Im", image.ref)
    } Do Q EMC`
    page.node.addContentStream(doc.context.register(doc.context.stream(drawn)))
  }
  for (
    const [secret, description] of [[SECRET, `Photo of ${SECRET}`], ["OTHERWORD", "Photo of OTHERWORD"], [
      SECRET,
      "A landscape"
    ]] as const
  ) {
    draw(doc.addPage([600, 800]), secret, description)
  }
  const first = doc.getPage(0)
  const element = doc.context.obj({
    Type: "StructElem",
    S: "Figure",
    Alt: PDFString.of(`Structure of ${SECRET}`),
    Pg: first.ref,
    K: 0
  })
  doc.catalog.set(
    PDFName.of("StructTreeRoot"),
    doc.context.obj({ Type: "StructTreeRoot", K: doc.context.register(element) })
  )
  const note = doc.context.obj({
    Type: "Annot",
    Subtype: "Text",
    Rect: [20, 20, 40, 40],
    Contents: PDFString.of("NOTESECRET")
  })
  const link = doc.context.obj({
    Type: "Annot",
    Subtype: "Link",
    Rect: [400, 740, 500, 760],
    Border: [0, 0, 0],
    A: { S: "URI", URI: PDFString.of("https://example.org/") }
  })
  first.node.set(PDFName.of("Annots"), doc.context.obj([doc.context.register(note), doc.context.register(link)]))
  const field = doc.getForm().createTextField("account")
  field.setText("FIELDSECRET")
  field.addToPage(first, { x: 300, y: 100, width: 150, height: 20, font })
  const x0 = 50 + font.widthOfTextAtSize("Public ", 20)
  const secretBox: Box = [x0 - 1, 694, x0 + font.widthOfTextAtSize(SECRET, 20) + 1, 716]
  return { pdf: await doc.save(), secretBox }
})

const SHAPES: ReadonlyArray<Box> = [
  [120, 520, 160, 560], // inside the blue square
  [380, 530, 420, 570], // across the line
  [150, 250, 250, 300], // over the image
  [430, 230, 470, 270], // inside the circle drawn by the form
  [10, 10, 50, 50], // the sticky note
  [295, 95, 455, 125] // the text field
]

// On the real clock, so that the timeout can pass.
layer(NodeContext.layer, { excludeTestServices: true })("redaction", (it) => {
  it.effect("removes text, line art, image pixels, descriptions, annotations and field values under the regions, and nothing else", () =>
    Effect.gen(function*() {
      const { pdf, secretBox } = yield* generated
      const regions: Array<RedactionRegion> = [...[secretBox, ...SHAPES].map((rect) => ({ page: 0, rect })), {
        page: 2,
        rect: secretBox
      }]
      const result = yield* redact(pdf, regions)
      const [before, after] = yield* Effect.promise(() =>
        Promise.all([PDFDocument.load(pdf), PDFDocument.load(result)])
      )

      // Text: neither the word nor a piece of it, the words around it still there.
      for (const page of [0, 2]) {
        const text = pageText(result, page)
        expect(text).toMatch(/Public\s+neighbour/)
        for (let i = 0; i + 3 <= SECRET.length; i++) expect(text).not.toContain(SECRET.slice(i, i + 3))
      }
      const view = yield* Effect.promise(() => attackerView(result))
      expect(view).not.toContain("SECRET") // the word, the note, the field's value, both descriptions of the figure
      expect(view).toContain("OTHERWORD") // the page without regions keeps its text and its figure's description
      expect(view).toContain("Photo of OTHERWORD")
      expect(view).toContain("https://example.org/") // the link outside the regions stays

      // Paths: nothing painted reaches into a region (the form included) but the boxes themselves.
      const [paths, original] = yield* Effect.promise(() =>
        Promise.all([paintedPaths(result, 0), paintedPaths(pdf, 0)])
      )
      const isBox = (b: Box) =>
        regions.some(({ page, rect }) => page === 0 && rect.every((v, i) => Math.abs(v - b[i]!) < 0.001))
      for (const region of [SHAPES[0]!, SHAPES[1]!, SHAPES[3]!]) {
        expect(into(original.fills, region).length + into(original.strokes, region).length).toBeGreaterThan(0)
        expect(into(paths.fills, region).filter((b) => !isBox(b))).toEqual([])
        expect(into(paths.strokes, region)).toEqual([])
      }

      // The stored image: the covered pixels replaced, the others as they were.
      const images = pageImages(after, 0)
      expect(images).toHaveLength(1)
      const { samples, width } = images[0]!
      expect(width).toBe(100)
      for (let y = 0; y < 100; y++) {
        for (let x = 0; x < 100; x++) {
          const pixel = [...samples.subarray((y * 100 + x) * 3, (y * 100 + x) * 3 + 3)]
          if (x >= 25 && x < 75 && y >= 50 && y < 75) expect(pixel).toEqual([255, 255, 255])
          else if (x < 24 || x > 75 || y < 49 || y > 75) {
            expect(pixel).toEqual([...IMAGE.subarray((y * 100 + x) * 3, (y * 100 + x) * 3 + 3)])
          }
        }
      }

      // Annotations over a region gone, the field with them; no Redact annotation left behind.
      const subtypes = (after.getPage(0).node.Annots()?.asArray() ?? []).map((a) =>
        after.context.lookup(a, PDFDict).get(PDFName.of("Subtype"))?.toString()
      )
      expect(subtypes).toEqual(["/Link"])
      expect(after.getForm().getFields()).toHaveLength(0)

      // Rendered: outside the regions (and a 3-point band around them) the page looks as it did, but for
      // anti-aliasing at the edges of cut shapes (a cut circle is flattened, a cut square is no longer one rectangle).
      const [shown, expected] = yield* Effect.promise(() => Promise.all([render(result, 0), render(pdf, 0)]))
      let differing = 0
      for (let y = 0; y < shown.height; y++) {
        for (let x = 0; x < shown.width; x++) {
          const [ux, uy] = [x + 0.5, 800 - y - 0.5]
          if (
            regions.some((r) =>
              r.page === 0 && ux > r.rect[0] - 3 && ux < r.rect[2] + 3 && uy > r.rect[1] - 3 && uy < r.rect[3] + 3
            )
          ) continue
          const i = (y * shown.width + x) * 3
          if (Math.max(...[0, 1, 2].map((c) => Math.abs(shown.data[i + c]! - expected.data[i + c]!))) > 48) differing++
        }
      }
      expect(differing).toBe(0)

      // The page without regions: the same content, byte for byte, and the original image.
      expect(pageContent(after, 1).equals(pageContent(before, 1))).toBe(true)
      expect(pageImages(after, 1)[0]!.samples.equals(IMAGE)).toBe(true)
    }))

  it.effect("with fill null draws no box, and the content is gone all the same", () =>
    Effect.gen(function*() {
      const { pdf, secretBox } = yield* generated
      const result = yield* redact(pdf, [{ page: 0, rect: secretBox }, { page: 0, rect: [150, 250, 250, 300] }], {
        fill: null
      })
      const shown = yield* Effect.promise(() => render(result, 0))
      const dark = pixelBox(shown, (r, g, b) => r + g + b < 600)
      // Nothing drawn where the word was nor inside the image's hole (rendered y runs down from the top).
      for (
        const [x0, y0, x1, y1] of [[secretBox[0], 800 - secretBox[3], secretBox[2], 800 - secretBox[1]], [
          152,
          502,
          248,
          548
        ]] as const
      ) {
        for (let y = Math.ceil(y0); y < y1; y++) {
          for (let x = Math.ceil(x0); x < x1; x++) {
            const i = (y * shown.width + x) * 3
            expect([shown.data[i], shown.data[i + 1], shown.data[i + 2]]).toEqual([255, 255, 255])
          }
        }
      }
      expect(dark[0]).toBeLessThan(60) // "Public" is still drawn
      expect(pageText(result, 0)).not.toContain(SECRET)
    }))

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

  /** The message of the RedactionFailed a call ends with ("succeeded" if it does not fail). */
  const failure = (pdf: Uint8Array, regions: ReadonlyArray<RedactionRegion>, settings: RedactionSettings = {}) =>
    Effect.flip(redact(pdf, regions, settings).pipe(Effect.as("succeeded"))).pipe(
      Effect.map((error) =>
        error instanceof RedactionFailed ? error.message : `not a RedactionFailed: ${String(error)}`
      )
    )
  const anywhere = [{ page: 0, rect: [10, 10, 100, 100] as const }]

  it.effect("refuses, saying why: an unreadable file, a password, a page out of range, a bad rectangle", () =>
    Effect.gen(function*() {
      expect(yield* failure(new TextEncoder().encode("this is not a PDF at all\n"), anywhere)).toMatch(
        /^The file is not a readable PDF: /
      )
      expect(yield* failure(corpus("bug1020226.pdf"), anywhere)).toMatch(/^The file is not a readable PDF: /)
      expect(yield* failure(corpus("issue6010_1.pdf"), anywhere)).toMatch(/password-protected/)
      expect(yield* failure(corpus("Pages-tree-refs.pdf"), anywhere)).toMatch(/^The PDF's page tree cannot be read/)
      expect(yield* failure(corpus("xfa_filled_imm1344e.pdf"), anywhere)).toMatch(/dynamic XFA form/)
      expect(yield* failure(corpus("rotation.pdf"), [{ page: 5, rect: [10, 10, 100, 100] }])).toBe(
        "Page 6 does not exist: the document has 2 pages"
      )
      expect(yield* failure(corpus("rotation.pdf"), [{ page: 0, rect: [100, 10, 50, 100] }])).toMatch(/x1 <= x2/)
    }))

  it.effect("stops work that takes longer than the timeout", () =>
    Effect.gen(function*() {
      expect(yield* failure(corpus("tracemonkey.pdf"), anywhere, { timeoutMs: 1 })).toMatch(
        /^The redaction took longer than 1ms/
      )
    }))
})
