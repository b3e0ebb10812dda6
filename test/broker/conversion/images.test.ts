/**
 * Images as documents through the real broker: PNG, JPEG, GIF, WebP, BMP and TIFF (one page per
 * frame). Real corpus images where the corpus has them; the other formats are generated here with
 * colour blocks whose pixels are checked at known spots (BMP written by hand: sharp cannot).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import sharp from "sharp"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { CORPUS, defaultBackend } from "../../support/backends.ts"
import { call, pngSize, upload } from "../../support/http.ts"

const scratch = mkdtempSync(path.join(tmpdir(), "docstack-images-"))

type Rgb = readonly [number, number, number]

const RED: Rgb = [255, 0, 0]
const GREEN: Rgb = [0, 160, 0]
const BLUE: Rgb = [0, 0, 255]
const YELLOW: Rgb = [255, 220, 0]
const BLACK: Rgb = [0, 0, 0]
const MAGENTA: Rgb = [200, 0, 200]
const ORANGE: Rgb = [255, 128, 0]
const NAVY: Rgb = [0, 0, 128]

/**
 * Four colour blocks: top left, top right, bottom left, bottom right. No block is white, so an image
 * lost to transparency (drawn on the white page) fails every spot, and no two blocks are alike, so a
 * flipped or turned image fails too.
 */
type Quadrants = readonly [Rgb, Rgb, Rgb, Rgb]

const quadrantOf = (x: number, y: number, width: number, height: number) =>
  (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)

/** Raw interleaved RGB pixels of the four blocks. */
const blocks = (width: number, height: number, colours: Quadrants) => {
  const data = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(colours[quadrantOf(x, y, width, height)]!, (y * width + x) * 3)
  }
  return data
}

const fromRaw = (data: Buffer, width: number, height: number, pageHeight?: number) =>
  sharp(data, { raw: { width, height, channels: 3, ...(pageHeight === undefined ? {} : { pageHeight }) } })

/** A BMP file, BITMAPINFOHEADER, rows bottom-up and padded to 4 bytes, 2835 pixels per metre (72 dpi). */
const bmpFile = (
  width: number,
  height: number,
  bitsPerPixel: 8 | 24,
  pixels: Buffer,
  palette: ReadonlyArray<Rgb> = [],
  rle = false
) => {
  const rowBytes = Math.ceil((width * bitsPerPixel) / 32) * 4
  const rows: Array<Buffer> = []
  for (let y = height - 1; y >= 0; y--) {
    if (rle) {
      // BI_RLE8, encoded mode only: (count 1, index) per pixel, then end of line; end of bitmap last.
      rows.push(
        Buffer.from([...pixels.subarray(y * width, (y + 1) * width)].flatMap((index) => [1, index]).concat([0, 0]))
      )
      continue
    }
    const row = Buffer.alloc(rowBytes)
    for (let x = 0; x < width; x++) {
      if (bitsPerPixel === 8) row[x] = pixels[y * width + x]!
      else {
        const o = (y * width + x) * 3
        row.set([pixels[o + 2]!, pixels[o + 1]!, pixels[o]!], x * 3) // BGR
      }
    }
    rows.push(row)
  }
  if (rle) rows.push(Buffer.from([0, 1]))
  const body = Buffer.concat(rows)
  const colours = Buffer.from(palette.flatMap(([r, g, b]) => [b, g, r, 0]))
  const offset = 14 + 40 + colours.length
  const header = Buffer.alloc(offset)
  header.write("BM", 0, "latin1")
  header.writeUInt32LE(offset + body.length, 2)
  header.writeUInt32LE(offset, 10)
  header.writeUInt32LE(40, 14)
  header.writeInt32LE(width, 18)
  header.writeInt32LE(height, 22)
  header.writeUInt16LE(1, 26)
  header.writeUInt16LE(bitsPerPixel, 28)
  header.writeUInt32LE(rle ? 1 : 0, 30)
  header.writeUInt32LE(body.length, 34)
  header.writeInt32LE(2835, 38)
  header.writeInt32LE(2835, 42)
  header.writeUInt32LE(palette.length, 46)
  colours.copy(header, 54)
  return Buffer.concat([header, body])
}

/** The same blocks as 8-bit palette indices. */
const paletteBlocks = (width: number, height: number) => {
  const indices = Buffer.alloc(width * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) indices[y * width + x] = quadrantOf(x, y, width, height)
  }
  return indices
}

// ---- the cases ------------------------------------------------------------------------------

interface Case {
  readonly name: string
  /** Made when the test runs (the generated ones by sharp, which is asynchronous). */
  readonly bytes: () => Promise<Buffer>
  readonly mimeType: string
  /** What each page must look like: colour blocks at known spots, or like the source frame. */
  readonly looks: ReadonlyArray<
    { readonly blocks: Quadrants; readonly tolerance: number } | { readonly like: () => Promise<Buffer> }
  >
  /** Pixel size of each page as displayed, when sharp cannot say (BMP). */
  readonly pixels?: ReadonlyArray<readonly [number, number]>
}

const corpusImage = (name: string) => readFileSync(`${CORPUS}office/${name}`)

/** Exact for lossless formats, up to 12 levels for GIF's palette and the PNG the broker sends. */
const LOSSLESS = 12
/** JPEG's chroma subsampling and quantisation move a flat block's colour by up to ~30 levels. */
const LOSSY = 48

const TIFF_FRAMES: ReadonlyArray<Quadrants> = [
  [RED, GREEN, BLUE, YELLOW],
  [YELLOW, RED, GREEN, BLUE],
  [BLUE, YELLOW, RED, GREEN]
]
const JPEG_STORED: Quadrants = [RED, GREEN, BLUE, YELLOW]

const CASES: ReadonlyArray<Case> = [
  {
    name: "a PNG (corpus: english-and-korean.png, RGBA screenshot)",
    bytes: async () => corpusImage("english-and-korean.png"),
    mimeType: "image/png",
    // Transparent pixels are drawn on white, as the broker flattens them.
    looks: [{
      like: () => sharp(corpusImage("english-and-korean.png")).flatten({ background: "#ffffff" }).png().toBuffer()
    }]
  },
  {
    name: "a PNG at 150 dpi (generated)",
    bytes: () =>
      fromRaw(blocks(300, 200, [RED, GREEN, BLUE, BLACK]), 300, 200).withMetadata({ density: 150 }).png().toBuffer(),
    mimeType: "image/png",
    looks: [{ blocks: [RED, GREEN, BLUE, BLACK], tolerance: LOSSLESS }]
  },
  {
    name: "a JPEG (corpus: double-column-A.jpg, a photographed page)",
    bytes: async () => corpusImage("double-column-A.jpg"),
    mimeType: "image/jpeg",
    looks: [{ like: async () => corpusImage("double-column-A.jpg") }]
  },
  {
    name: "a greyscale JPEG (corpus: jpn-vert.jpeg)",
    bytes: async () => corpusImage("jpn-vert.jpeg"),
    mimeType: "image/jpeg",
    looks: [{ like: async () => corpusImage("jpn-vert.jpeg") }]
  },
  {
    // EXIF orientation 6: stored 160 x 120, shown turned a quarter clockwise, 120 x 160. The
    // stored left column becomes the top row: shown top left is the stored bottom left, and so on.
    name: "a JPEG with EXIF orientation 6 (generated)",
    bytes: () =>
      fromRaw(blocks(160, 120, JPEG_STORED), 160, 120).withMetadata({ orientation: 6 }).jpeg({ quality: 95 })
        .toBuffer(),
    mimeType: "image/jpeg",
    looks: [{ blocks: [JPEG_STORED[2], JPEG_STORED[0], JPEG_STORED[3], JPEG_STORED[1]], tolerance: LOSSY }]
  },
  {
    name: "a GIF (generated)",
    bytes: () => fromRaw(blocks(120, 80, [RED, GREEN, BLUE, YELLOW]), 120, 80).gif().toBuffer(),
    mimeType: "image/gif",
    looks: [{ blocks: [RED, GREEN, BLUE, YELLOW], tolerance: LOSSLESS }]
  },
  {
    name: "a WebP (generated, lossless)",
    bytes: () => fromRaw(blocks(90, 120, [ORANGE, NAVY, GREEN, MAGENTA]), 90, 120).webp({ lossless: true }).toBuffer(),
    mimeType: "image/webp",
    looks: [{ blocks: [ORANGE, NAVY, GREEN, MAGENTA], tolerance: LOSSLESS }]
  },
  {
    // 61 pixels: 183 bytes a row, padded to 184.
    name: "a 24-bit BMP (written by hand)",
    bytes: async () => bmpFile(61, 41, 24, blocks(61, 41, [RED, BLUE, GREEN, BLACK])),
    mimeType: "image/bmp",
    pixels: [[61, 41]],
    looks: [{ blocks: [RED, BLUE, GREEN, BLACK], tolerance: LOSSLESS }]
  },
  {
    name: "an 8-bit palette BMP (written by hand)",
    bytes: async () => bmpFile(37, 29, 8, paletteBlocks(37, 29), [MAGENTA, YELLOW, NAVY, GREEN]),
    mimeType: "image/bmp",
    pixels: [[37, 29]],
    looks: [{ blocks: [MAGENTA, YELLOW, NAVY, GREEN], tolerance: LOSSLESS }]
  },
  {
    name: "a 3-frame TIFF at 300 dpi (generated)",
    bytes: () =>
      fromRaw(Buffer.concat(TIFF_FRAMES.map((colours) => blocks(300, 240, colours))), 300, 720, 240)
        .withMetadata({ density: 300 })
        .tiff({ compression: "deflate" })
        .toBuffer(),
    mimeType: "image/tiff",
    looks: TIFF_FRAMES.map((colours) => ({ blocks: colours, tolerance: LOSSLESS }))
  },
  {
    name: "a 2-page TIFF (corpus: layout-parser-paper-combined.tiff)",
    bytes: async () => corpusImage("layout-parser-paper-combined.tiff"),
    mimeType: "image/tiff",
    looks: [0, 1].map((page) => ({
      like: () => sharp(corpusImage("layout-parser-paper-combined.tiff"), { page }).png().toBuffer()
    }))
  }
]

/**
 * The resolution a page should have, from sharp's reading of the image. A density counts only with
 * its unit: a unit-less resolution (TIFF ResolutionUnit 1, "no absolute unit"; PNG pHYs unit 0) only
 * gives the pixels' aspect, and libvips reads it as pixels per millimetre, so sharp reports 25.4
 * times the value with no resolutionUnit (page 0 of the corpus TIFF: 72 becomes 1829).
 */
const expectedDpi = (metadata: sharp.Metadata) =>
  metadata.resolutionUnit !== undefined && metadata.density !== undefined ? Math.round(metadata.density) : 72

/** Pixel size as displayed (EXIF orientation applied) and resolution of each page, from sharp. */
const expectedPages = async (testCase: Case, bytes: Buffer) => {
  if (testCase.pixels) return testCase.pixels.map(([width, height]) => ({ width, height, dpi: 72 }))
  const metadata = await sharp(bytes).metadata()
  const frames = metadata.format === "tiff" ? metadata.pages ?? 1 : 1
  return Promise.all(
    Array.from({ length: frames }, async (_, page) => {
      const frame = metadata.format === "tiff" ? await sharp(bytes, { page }).metadata() : metadata
      return { width: frame.autoOrient.width, height: frame.autoOrient.height, dpi: expectedDpi(frame) }
    })
  )
}

// ---- helpers ----------------------------------------------------------------------------------

const pdfinfo = (pdf: Buffer) => {
  const file = path.join(scratch, `rendition-${Math.random().toString(36).slice(2)}.pdf`)
  writeFileSync(file, pdf)
  const summary = spawnSync("pdfinfo", [file], { encoding: "utf8" })
  expect(summary.status, summary.stderr).toBe(0)
  const count = Number(/^Pages:\s+(\d+)/m.exec(summary.stdout)![1])
  const detail = spawnSync("pdfinfo", ["-f", "1", "-l", String(count), file], { encoding: "utf8" }).stdout
  return Array.from(
    detail.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gm),
    ([, w, h]) => ({ width: Number(w), height: Number(h) })
  )
}

/**
 * Mean absolute difference (0 to 255) between a rendered page and its source as 48-pixel-wide grey
 * thumbnails, and, to show the comparison can tell, between the source and its upside-down copy and
 * between the source and a blank page. The rendered page and the source are the same picture
 * resampled by different filters (pdf.js drawing it, libvips shrinking it), which moves thumbnail
 * pixels by a few levels along edges.
 */
const thumbnails = async (rendered: Buffer, source: Buffer) => {
  const { width, height } = await sharp(rendered).metadata()
  const size = { width: 48, height: Math.max(1, Math.round((48 * height) / width)) }
  // Decoded in full first: libvips shrinks a JPEG while decoding it when asked for a small size,
  // which gives a blockier thumbnail than the rendered page's (jpn-vert.jpeg: 6.3 instead of 1.9).
  const decoded = await sharp(source).rotate().png().toBuffer()
  const thumb = (image: sharp.Sharp) =>
    image.flatten({ background: "#ffffff" }).greyscale().resize(size.width, size.height, { fit: "fill" }).raw()
      .toBuffer()
  const [x, y, flipped] = await Promise.all([
    thumb(sharp(rendered)),
    thumb(sharp(decoded)),
    thumb(sharp(decoded).flip())
  ])
  const difference = (p: Buffer, q: Buffer) => p.reduce((sum, value, i) => sum + Math.abs(value - q[i]!), 0) / p.length
  return {
    rendered: difference(x, y),
    flipped: difference(y, flipped),
    blank: difference(y, Buffer.alloc(y.length, 255))
  }
}

/**
 * Largest accepted difference between a rendered page and its source. Measured on the corpus
 * images: 0.6 to 3.0 (the most for the screenshot's sharp text edges); each source against its
 * upside-down copy 7.0 to 43.8, against a blank page 9.2 to 39.6, so both mistakes would fail.
 */
const MAX_DIFFERENCE = 5

// ---- the suite ------------------------------------------------------------------------------

layer(brokerTestLayer(defaultBackend.config), { timeout: 120_000 })("images as documents", (it) => {
  it("every format of the brief is covered", () => {
    expect(new Set(CASES.map((c) => c.mimeType))).toEqual(
      new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff"])
    )
  })

  for (const testCase of CASES) {
    it.effect(`${testCase.name}: pages, sizes, PDF rendition and pixels`, () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const bytes = yield* Effect.promise(() => testCase.bytes())
        const expected = yield* Effect.promise(() => expectedPages(testCase, bytes))
        expect(testCase.looks).toHaveLength(expected.length)

        const uploaded = yield* upload(base, bytes)
        expect(uploaded.status, uploaded.bytes.toString("utf8")).toBe(200)
        const id = uploaded.json.id as string

        // Layout: one page per frame, each the image's own size at its own resolution.
        const layout = yield* call(`${base}/documents/${id}/layout`)
        expect(layout.status).toBe(200)
        expect(layout.json.mimeType).toBe(testCase.mimeType)
        const pages = layout.json.pageDimensionsList as Array<
          { width: number; height: number; rotation: number; dpi: number }
        >
        expect(pages).toHaveLength(expected.length)
        pages.forEach((page, i) => {
          expect(page.dpi, `dpi of page ${i}`).toBe(expected[i]!.dpi)
          expect(page.rotation).toBe(0)
          expect(page.width, `width of page ${i}`).toBeCloseTo((expected[i]!.width * 72) / expected[i]!.dpi, 2)
          expect(page.height, `height of page ${i}`).toBeCloseTo((expected[i]!.height * 72) / expected[i]!.dpi, 2)
        })

        // The original comes back untouched; its PDF rendition has the same pages.
        const original = yield* call(`${base}/documents/${id}/file`)
        expect(original.status).toBe(200)
        expect(original.contentType).toBe(testCase.mimeType)
        expect(original.bytes.equals(bytes)).toBe(true)
        const pdf = yield* call(`${base}/documents/${id}/file?format=pdf`)
        expect(pdf.status).toBe(200)
        expect(pdf.contentType).toBe("application/pdf")
        const rendition = pdfinfo(pdf.bytes)
        expect(rendition).toHaveLength(expected.length)
        rendition.forEach((box, i) => {
          expect(box.width).toBeCloseTo(pages[i]!.width, 1)
          expect(box.height).toBeCloseTo(pages[i]!.height, 1)
        })

        for (const [i, look] of testCase.looks.entries()) {
          const image = yield* call(`${base}/documents/${id}/pages/${i}/image?pageImageDescription=IM_600_0`)
          expect(image.status).toBe(200)
          expect(image.contentType).toBe("image/png")
          const size = pngSize(image.bytes)
          expect(size.width).toBe(600)
          expect(Math.abs(size.height - (600 * pages[i]!.height) / pages[i]!.width)).toBeLessThanOrEqual(1)
          if ("blocks" in look) {
            const { data, info } = yield* Effect.promise(() =>
              sharp(image.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true })
            )
            expect([info.width, info.height]).toEqual([size.width, size.height])
            // The centre of each block, well away from the edges the resampling blurs.
            look.blocks.forEach((colour, q) => {
              const x = Math.floor(info.width * (q % 2 === 0 ? 0.25 : 0.75))
              const y = Math.floor(info.height * (q < 2 ? 0.25 : 0.75))
              const at = Array.from(data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3))
              at.forEach((channel, c) =>
                expect(Math.abs(channel - colour[c]!), `page ${i} block ${q} at ${x},${y}: ${at} for ${colour}`)
                  .toBeLessThanOrEqual(look.tolerance)
              )
            })
          } else {
            const source = yield* Effect.promise(() => look.like())
            const difference = yield* Effect.promise(() => thumbnails(image.bytes, source))
            // The comparison can tell: an upside-down or a blank rendering of this source would fail it.
            expect(difference.flipped).toBeGreaterThan(MAX_DIFFERENCE)
            expect(difference.blank).toBeGreaterThan(MAX_DIFFERENCE)
            expect(difference.rendered, `page ${i} differs from its source`).toBeLessThan(MAX_DIFFERENCE)
          }
        }
      }), 120_000)
  }

  it.effect("the page image has the width asked for, at any width", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const uploaded = yield* upload(base, corpusImage("english-and-korean.png"))
      const id = uploaded.json.id as string
      for (const width of [1, 250, 1300]) {
        const image = yield* call(`${base}/documents/${id}/pages/0/image?pageImageDescription=IM_${width}_0`)
        expect(image.status).toBe(200)
        const size = pngSize(image.bytes)
        expect(size.width).toBe(width)
        expect(Math.abs(size.height - (width * 814) / 650)).toBeLessThanOrEqual(1)
      }
    }))

  it.effect("the corpus TIFF's unit-less resolution leaves its pages at 72 dpi (Letter for the paper's page)", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      // Page 0 carries XResolution = YResolution = 72 with ResolutionUnit 1 (no absolute unit).
      const metadata = yield* Effect.promise(() => sharp(corpusImage("layout-parser-paper-combined.tiff")).metadata())
      expect([metadata.density, metadata.resolutionUnit]).toEqual([1829, undefined])
      const uploaded = yield* upload(base, corpusImage("layout-parser-paper-combined.tiff"))
      const layout = yield* call(`${base}/documents/${uploaded.json.id}/layout`)
      expect(
        layout.json.pageDimensionsList.map((
          p: { width: number; height: number; dpi: number }
        ) => [p.width, p.height, p.dpi])
      ).toEqual([
        [612, 792, 72],
        [791, 1024, 72]
      ])
    }))

  it.effect("a run-length encoded BMP, which the decoder gets wrong, is refused with a clear message", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const reply = yield* upload(base, bmpFile(37, 29, 8, paletteBlocks(37, 29), [MAGENTA, YELLOW, NAVY, GREEN], true))
      expect(reply.status).toBe(400)
      expect(reply.contentType).toMatch(/^application\/json/)
      expect(reply.json.message).toMatch(/RLE/)
    }))
})
