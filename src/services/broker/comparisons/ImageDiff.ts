/**
 * Image comparison of one page: two renderings in, one PNG out that shows the page faintly in the
 * lowlight colour with every difference painted in the highlight colour. Pure apart from sharp's
 * decoding and encoding; the comparison order renders the pages and calls this once per page.
 */
import sharp from "sharp"
import type { Rgb } from "../../../schemas/broker/Comparisons.ts"

export interface DiffColors {
  readonly highlight: Rgb
  readonly lowlight: Rgb
}

export interface DiffOptions {
  /** Colour tolerance in percent (0-100) of the RGB range, as ImageMagick's `-fuzz`. */
  readonly fuzz: number
  readonly colors: DiffColors
  /**
   * Also accept a pixel whose colour is explained by moving the other rendering by up to one pixel
   * (antialiased edges of text that moved by a fraction of a pixel). Defaults to `fuzz > 0`, so fuzz 0
   * compares pixel for pixel.
   */
  readonly shiftTolerance?: boolean
}

export interface PageDiff {
  readonly png: Uint8Array
  readonly differingPixels: number
  readonly width: number
  readonly height: number
}

/** Strength of the highlight where the left page had ink that the right page lost. */
const REMOVED_INK = 0.45

/** Share of the highlight colour in the background of a region only one side has. */
const ONE_SIDED_WASH = 0.2

interface Raster {
  readonly data: Uint8Array
  readonly width: number
  readonly height: number
}

const NONE: Raster = { data: new Uint8Array(0), width: 0, height: 0 }

/** Decodes to 8-bit sRGB, 3 channels, transparency flattened onto white. */
const decode = async (png: Uint8Array): Promise<Raster> => {
  const { data, info } = await sharp(png)
    .flatten({ background: { r: 255, g: 255, b: 255 } })
    .toColourspace("srgb")
    .raw({ depth: "uchar" })
    .toBuffer({ resolveWithObject: true })
  if (info.channels !== 3) throw new Error(`Unexpected page image with ${info.channels} channels`)
  return { data, width: info.width, height: info.height }
}

const WHITE: Rgb = [255, 255, 255]
const distance2 = (p: Uint8Array, i: number, q: Uint8Array, j: number) => {
  const dr = p[i]! - q[j]!
  const dg = p[i + 1]! - q[j + 1]!
  const db = p[i + 2]! - q[j + 2]!
  return dr * dr + dg * dg + db * db
}

/** How far a pixel is from white, 0 (white) to 1 (black or a saturated colour). */
const inkOf = (data: Uint8Array, i: number) => (255 - Math.min(data[i]!, data[i + 1]!, data[i + 2]!)) / 255

/**
 * Whether the colour at `data[i]` is what `other` shows at (x, y) moved by up to a pixel towards
 * one of its eight neighbours: a rendering moved by a fraction of a pixel mixes each pixel with its
 * neighbour (not linearly: renderers apply gamma and hinting), so its colour lies on the segment
 * from the pixel's colour to the neighbour's. Within `limit2` (squared RGB distance) of it counts.
 */
const explainedByShift = (data: Uint8Array, i: number, other: Raster, x: number, y: number, limit2: number) => {
  const j = (y * other.width + x) * 3
  const vr = data[i]! - other.data[j]!
  const vg = data[i + 1]! - other.data[j + 1]!
  const vb = data[i + 2]! - other.data[j + 2]!
  for (let ny = Math.max(0, y - 1); ny <= Math.min(other.height - 1, y + 1); ny++) {
    for (let nx = Math.max(0, x - 1); nx <= Math.min(other.width - 1, x + 1); nx++) {
      const n = (ny * other.width + nx) * 3
      const dr = other.data[n]! - other.data[j]!
      const dg = other.data[n + 1]! - other.data[j + 1]!
      const db = other.data[n + 2]! - other.data[j + 2]!
      const d2 = dr * dr + dg * dg + db * db
      if (d2 === 0) continue
      const t = Math.min(1, Math.max(0, (vr * dr + vg * dg + vb * db) / d2))
      const er = vr - t * dr
      const eg = vg - t * dg
      const eb = vb - t * db
      if (er * er + eg * eg + eb * eb <= limit2) return true
    }
  }
  return false
}

/**
 * Compares two renderings of a page (PNG bytes; either may be absent when the page exists on one
 * side only) and draws the result, a PNG of the larger size with both aligned at the top left:
 * - pixels that differ are painted in `highlight` (lighter where ink was removed, see below);
 * - unchanged content is drawn in `lowlight`, as faint as the original is dark (antialiasing and
 *   greys kept), on a white background;
 * - where only one side has a page (a page added or removed, or the part of the larger page outside
 *   the smaller one) everything counts as different: its content is drawn in `highlight` on a light
 *   wash of `highlight`, so the whole area shows as changed and stays legible.
 *
 * `fuzz` is ImageMagick's: two pixels are equal when their Euclidean RGB distance is at most
 * `fuzz`% of 255 (fuzz 0 wants identical pixels). With `shiftTolerance` (the default when fuzz > 0)
 * a pixel is also equal when each side's colour is, within that distance, a mix of the other side's
 * pixel and one of its neighbours, as when content moved by up to a pixel: the antialiased edges
 * of text drawn a fraction of a pixel apart (another producer, rounding) stop showing, while new,
 * removed or recoloured ink still does. Content that moved further is a difference.
 *
 * Where the right page has more ink, the highlight is full; where it lost ink (the left page's
 * content that is gone), it is lighter, so a new word drawn where an old one was reads over the
 * old one's ghost.
 *
 * Memory: the two decoded pages (3 bytes a pixel) and two rows; the result is written over an
 * input when one has the output's size.
 */
export const diffPageImages = async (
  left: Uint8Array | undefined,
  right: Uint8Array | undefined,
  options: DiffOptions
): Promise<PageDiff> => {
  if (left === undefined && right === undefined) throw new Error("diffPageImages needs at least one page image")
  const a = left === undefined ? NONE : await decode(left)
  const b = right === undefined ? NONE : await decode(right)
  const width = Math.max(a.width, b.width)
  const height = Math.max(a.height, b.height)
  const fuzz = Math.min(100, Math.max(0, Number.isFinite(options.fuzz) ? options.fuzz : 0))
  const limit = (fuzz / 100) * 255
  const limit2 = limit * limit
  const tolerant = options.shiftTolerance ?? fuzz > 0
  const wash = options.colors.highlight.map((c) => Math.round(255 + (c - 255) * ONE_SIDED_WASH)) as unknown as Rgb

  // Written over an input when one has the output's size, each row one row late: the shift test
  // still reads the inputs' row above.
  const target = a.width === width && a.height === height
    ? a.data
    : b.width === width && b.height === height
    ? b.data
    : new Uint8Array(width * height * 3)
  const rows = [new Uint8Array(width * 3), new Uint8Array(width * 3)] as const
  let differingPixels = 0
  for (let y = 0; y < height; y++) {
    const row = rows[y % 2]!
    /** Paints `color` over `base` at `strength` (0-1) at x. */
    const paint = (x: number, base: Rgb, color: Rgb, strength: number) => {
      for (let c = 0; c < 3; c++) row[x * 3 + c] = Math.round(base[c]! + (color[c]! - base[c]!) * strength)
    }
    for (let x = 0; x < width; x++) {
      const inA = y < a.height && x < a.width
      const inB = y < b.height && x < b.width
      const ia = (y * a.width + x) * 3
      const ib = (y * b.width + x) * 3
      if (inA && inB) {
        const inkA = inkOf(a.data, ia)
        const inkB = inkOf(b.data, ib)
        const same = distance2(a.data, ia, b.data, ib) <= limit2 ||
          (tolerant && explainedByShift(a.data, ia, b, x, y, limit2) && explainedByShift(b.data, ib, a, x, y, limit2))
        if (same) {
          paint(x, WHITE, options.colors.lowlight, Math.max(inkA, inkB))
        } else {
          differingPixels++
          // Ink the right page gained (or changed) in full, ink it lost fainter: where an old word
          // and a new one overlap, the new one reads over the old one's ghost.
          paint(x, WHITE, options.colors.highlight, inkA > inkB ? REMOVED_INK : 1)
        }
      } else {
        differingPixels++
        paint(x, wash, options.colors.highlight, inA ? inkOf(a.data, ia) : inB ? inkOf(b.data, ib) : 0)
      }
    }
    if (y > 0) target.set(rows[(y - 1) % 2]!, (y - 1) * width * 3)
  }
  if (height > 0) target.set(rows[(height - 1) % 2]!, (height - 1) * width * 3)

  const png = await sharp(target, { raw: { width, height, channels: 3 } }).png().toBuffer()
  return { png: new Uint8Array(png.buffer, png.byteOffset, png.byteLength), differingPixels, width, height }
}
