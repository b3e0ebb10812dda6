/**
 * Redaction of a generated document with one of each kind of content (text, a filled square, a line,
 * an image, a circle drawn by a form, a sticky note, a link, a text field, figure descriptions),
 * judged as a reader and an attacker would judge it: text read with pdftotext, every object of the
 * result decompressed and searched, stored image pixels decoded, painted paths recomputed, the page
 * rendered with pdftoppm and compared with the original outside the regions. The corpus files and
 * the refusals are tested beside this file.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import {
  concatTransformationMatrix,
  drawObject,
  PDFDict,
  PDFDocument,
  PDFName,
  type PDFPage,
  PDFString,
  popGraphicsState,
  pushGraphicsState,
  rgb,
  StandardFonts
} from "pdf-lib"
import sharp from "sharp"
import { redact, type RedactionRegion } from "../../../src/services/broker/transformations/Redaction.ts"
import { into, paintedPaths } from "./redaction-paths-support.ts"
import {
  attackerView,
  type Box,
  pageContent,
  pageImages,
  pageText,
  pixelBox,
  render,
  SECRET
} from "./redaction-support.ts"

// ---- a generated document with one of each kind of content ------------------------------------

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

// On the real clock, which redact's own timeout runs on, as outside tests.
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
})
