/**
 * The corpus tests' side of the broker: uploads, the layout, page images, and how they are judged
 * (against poppler's rendering, by the ink under a box, by boxes inside the page).
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import sharp from "sharp"
import { call, type Reply } from "../../support/http.ts"
import { PDF_DIR } from "./corpus-support.ts"

export const get = (base: string, route: string) => call(`${base}${route}`)

/**
 * Uploads to the broker of one test file: one upload per corpus file for the whole test file (the
 * broker would give a second upload a new ID). Each test file serves a broker of its own, hence one
 * of these each, made once beside its layer.
 */
export const corpusUploads = () => {
  const uploads = new Map<string, Reply>()
  const upload = (base: string, file: string) =>
    uploads.has(file)
      ? Effect.succeed(uploads.get(file)!)
      : call(`${base}/documents?documentTitle=${encodeURIComponent(file)}`, {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body: readFileSync(`${PDF_DIR}${file}`)
      }).pipe(Effect.tap((reply) => Effect.sync(() => uploads.set(file, reply))))

  const uploadOk = (base: string, file: string) =>
    upload(base, file).pipe(
      Effect.map((reply) => {
        expect(reply.status, `upload of ${file}: ${reply.bytes.toString("utf8")}`).toBe(200)
        return reply.json.id as string
      })
    )
  return { upload, uploadOk }
}

export interface PageDimensions {
  readonly width: number
  readonly height: number
  readonly rotation: number
  readonly dpi: number
}

export const layoutOf = (base: string, id: string) =>
  get(base, `/documents/${id}/layout`).pipe(
    Effect.map((reply) => {
      expect(reply.status).toBe(200)
      return reply.json.pageDimensionsList as ReadonlyArray<PageDimensions>
    })
  )

/** The displayed height of a page drawn `width` pixels wide: quarter turns swap the sides. */
export const displayedHeight = (page: PageDimensions, width: number, extraRotation = 0) => {
  const turned = ((page.rotation + extraRotation) / 90) % 2 === 1
  return (width * (turned ? page.width : page.height)) / (turned ? page.height : page.width)
}

export const pageImage = (base: string, id: string, page: number, descriptor: string) =>
  get(base, `/documents/${id}/pages/${page}/image?pageImageDescription=${descriptor}`).pipe(
    Effect.map((reply) => {
      expect(reply.status, reply.bytes.subarray(0, 300).toString("utf8")).toBe(200)
      expect(reply.contentType).toBe("image/png")
      return reply.bytes
    })
  )

/**
 * Mean absolute difference (0 to 255) of two images reduced to the same small grey thumbnail.
 * 32 pixels across keeps the layout of a page (columns, pictures, blocks of text) and drops what
 * two renderers legitimately disagree on (anti-aliasing, hinting, a substituted font's glyph shapes).
 */
export const THUMB_WIDTH = 32
export const thumbnailDifference = async (a: Buffer, b: Buffer, width: number, height: number) => {
  const thumb = (image: Buffer) =>
    sharp(image).flatten({ background: "#ffffff" }).greyscale().resize(width, height, { fit: "fill" }).raw().toBuffer()
  const [x, y] = await Promise.all([thumb(a), thumb(b)])
  let sum = 0
  for (let i = 0; i < x.length; i++) sum += Math.abs(x[i]! - y[i]!)
  return sum / x.length
}

/**
 * Largest accepted difference between the broker's first page and poppler's. Measured on this
 * corpus: at most 2.6, except standard_fonts.pdf at 4.8 (its non-embedded Courier is substituted by
 * different fonts). Against failures: freeculture.pdf drawn from its media box instead of its crop
 * box measured 62; a blank image instead of a page of running text (TAMReview.pdf, tracemonkey.pdf,
 * multi-column.pdf, DA-619p.pdf) 10.6 to 21. On nearly empty pages (a line of text, a form) a blank
 * image stays under the threshold: there the check only guards against gross mistakes.
 */
export const MAX_RENDER_DIFFERENCE = 8

/** Share of dark pixels (grey < 128) inside a box of a grey raw image. */
export const inkIn = (
  grey: { data: Buffer; info: sharp.OutputInfo },
  box: { x: number; y: number; w: number; h: number }
) => {
  let dark = 0
  let total = 0
  for (let y = Math.max(0, Math.floor(box.y)); y < Math.min(grey.info.height, Math.ceil(box.y + box.h)); y++) {
    for (let x = Math.max(0, Math.floor(box.x)); x < Math.min(grey.info.width, Math.ceil(box.x + box.w)); x++) {
      total++
      if (grey.data[y * grey.info.width + x]! < 128) dark++
    }
  }
  return total === 0 ? 0 : dark / total
}

export const greyPixels = (png: Buffer) =>
  Effect.promise(() => sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true }))

export interface Box {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}

export const expectInsidePage = (box: Box, width: number, height: number) => {
  expect(box.w).toBeGreaterThan(0)
  expect(box.h).toBeGreaterThan(0)
  expect(box.x).toBeGreaterThanOrEqual(0)
  expect(box.y).toBeGreaterThanOrEqual(0)
  expect(box.x + box.w).toBeLessThanOrEqual(width)
  expect(box.y + box.h).toBeLessThanOrEqual(height)
}

/** `outer` holds `inner` give or take `slack` points on each side. */
export const expectContains = (
  outer: Box,
  inner: { x0: number; y0: number; x1: number; y1: number },
  slack: number
) => {
  expect(outer.x).toBeLessThanOrEqual(inner.x0 + slack)
  expect(outer.y).toBeLessThanOrEqual(inner.y0 + slack)
  expect(outer.x + outer.w).toBeGreaterThanOrEqual(inner.x1 - slack)
  expect(outer.y + outer.h).toBeGreaterThanOrEqual(inner.y1 - slack)
}
