/**
 * The page image descriptor `IM_{width}_{rotation}[_FILTERS~C~v~B~v~I~v~A~v]`.
 */
import { ParseResult, Schema } from "effect"

/**
 * C contrast, B brightness, I invert (pixel filters, applied in order), and A: `A~0` leaves out the
 * annotations GET /annotation lists, for a client that draws them itself (docs/page-images.md).
 */
export const FilterCode = Schema.Literal("C", "B", "I", "A")
export type FilterCode = typeof FilterCode.Type

/** Whether the image leaves out the annotations GET /annotation lists (`A~0`). */
export const leavesOutListedAnnotations = (
  filters: ReadonlyArray<{ readonly code: FilterCode; readonly value: number }>
) => filters.some((f) => f.code === "A" && f.value === 0)

export class PageImageDescriptor extends Schema.Class<PageImageDescriptor>("PageImageDescriptor")({
  /** Width of the returned image in pixels, after rotation. */
  width: Schema.Int,
  /** Extra clockwise rotation on top of the page's own, a multiple of 90. */
  rotation: Schema.Int,
  filters: Schema.Array(Schema.Struct({ code: FilterCode, value: Schema.Int }))
}) {
  /** The canonical text form; also the cache key, so equivalent spellings share a cached image. */
  get key(): string {
    const filters = this.filters.map((f) => `~${f.code}~${f.value}`).join("")
    return `IM_${this.width}_${this.rotation}${filters ? `_FILTERS${filters}` : ""}`
  }
}

const pattern = /^IM_(\d{1,6})_(-?\d{1,4})(?:_FILTERS((?:~[A-Za-z]~-?\d{1,4})+))?$/

/** Parses the query value; any mistake is a 400 naming what is wrong. */
export const PageImageDescriptorFromString = Schema.transformOrFail(Schema.String, PageImageDescriptor, {
  strict: true,
  decode: (text, _, ast) => {
    const match = pattern.exec(text)
    if (!match) {
      return ParseResult.fail(
        new ParseResult.Type(
          ast,
          text,
          `pageImageDescription must look like IM_{width}_{rotation} optionally followed by _FILTERS~C~{contrast}~B~{brightness}~I~{0|1}~A~{0|1}, got '${text}'`
        )
      )
    }
    const rotation = Number(match[2])
    if (rotation % 90 !== 0) {
      return ParseResult.fail(new ParseResult.Type(ast, text, `rotation must be a multiple of 90, got ${rotation}`))
    }
    const filters: Array<{ code: FilterCode; value: number }> = []
    let annotations = 1
    for (const [, code, value] of (match[3] ?? "").matchAll(/~([A-Za-z])~(-?\d+)/g)) {
      const upper = code!.toUpperCase()
      if (!Schema.is(FilterCode)(upper)) {
        return ParseResult.fail(
          new ParseResult.Type(
            ast,
            text,
            `unknown filter code '${code}': use C (contrast), B (brightness), I (invert) or A (A~0 leaves out the annotations GET /annotation lists)`
          )
        )
      }
      if (upper === "A") annotations = Number(value)
      else filters.push({ code: upper, value: Number(value) })
    }
    // A is no pixel filter: the last one given decides, and drawing them (the default) is not
    // written, so that every spelling of one image shares its cache key.
    if (annotations === 0) filters.push({ code: "A", value: 0 })
    return ParseResult.succeed({ width: Number(match[1]), rotation: ((rotation % 360) + 360) % 360, filters })
  },
  encode: (descriptor) => ParseResult.succeed(new PageImageDescriptor(descriptor).key)
})

/** A rectangle of a page image, in pixels of the image as drawn (its width and rotation). */
export class PageImageCrop extends Schema.Class<PageImageCrop>("PageImageCrop")({
  x: Schema.Int.pipe(Schema.nonNegative()),
  y: Schema.Int.pipe(Schema.nonNegative()),
  w: Schema.Int.pipe(Schema.positive()),
  h: Schema.Int.pipe(Schema.positive())
}) {}

const cropPattern = /^(\d{1,9}),(\d{1,9}),(\d{1,9}),(\d{1,9})$/

/** `crop=x,y,w,h`: four non-negative integers, w and h at least 1; any mistake is a 400 saying so. */
export const PageImageCropFromString = Schema.transformOrFail(Schema.String, PageImageCrop, {
  strict: true,
  decode: (text, _, ast) => {
    const match = cropPattern.exec(text)
    const [x, y, w, h] = match ? match.slice(1).map(Number) : []
    if (x === undefined || y === undefined || w === undefined || h === undefined || w < 1 || h < 1) {
      return ParseResult.fail(
        new ParseResult.Type(
          ast,
          text,
          `crop must be x,y,w,h: four non-negative integers (pixels of the image as drawn), w and h at least 1, got '${text}'`
        )
      )
    }
    return ParseResult.succeed({ x, y, w, h })
  },
  encode: (crop) => ParseResult.succeed(`${crop.x},${crop.y},${crop.w},${crop.h}`)
})

export const PageImageParams = Schema.Struct({
  pageImageDescription: Schema.optional(PageImageDescriptorFromString),
  crop: Schema.optional(PageImageCropFromString).annotations({
    description:
      "x,y,w,h: only this rectangle of the image as drawn (at the descriptor's width and rotation), clipped to the image"
  })
})
