/**
 * How the PDF-annotation tests look at a page: rendered with poppler (pdftoppm) or MuPDF (mutool
 * draw) and read pixel by pixel, at the device pixel that shows a point of user space.
 */
import { expect } from "@effect/vitest"
import sharp from "sharp"
import { pageGeometries, type PageGeometry, toDisplayed } from "../../../src/services/broker/annotations/PageSpace.ts"
import type { PdfColor, PdfPoint, PdfRect } from "../../../src/services/broker/annotations/PdfAnnotation.ts"
import { load, scratchFile, tool } from "./pdf-annotations-support.ts"

export type Renderer = "pdftoppm" | "mutool"
export const RENDERERS: ReadonlyArray<Renderer> = ["pdftoppm", "mutool"]
const DPI = 144
export const SCALE = DPI / 72

export interface Raster {
  readonly width: number
  readonly height: number
  readonly channels: number
  readonly data: Buffer
  readonly geometry: PageGeometry
}

export const render = async (file: string, pageIndex: number, renderer: Renderer): Promise<Raster> => {
  const out = scratchFile("render")
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

export const at = (r: Raster, px: number, py: number): Rgb => {
  const i = (Math.min(r.height - 1, Math.max(0, py)) * r.width + Math.min(r.width - 1, Math.max(0, px))) * r.channels
  return [r.data[i]!, r.data[i + 1]!, r.data[i + 2]!]
}

/** The device pixel showing a user-space point. */
const devicePixel = (r: Raster, p: PdfPoint): readonly [number, number] => {
  const [x, y] = toDisplayed(r.geometry, p)
  return [Math.floor(x * SCALE), Math.floor(y * SCALE)]
}

export const pixel = (r: Raster, p: PdfPoint): Rgb => at(r, ...devicePixel(r, p))

/** The device pixels inside a user-space rectangle, shrunk by `inset` points. */
export const pixelsIn = (r: Raster, rect: PdfRect, inset = 0): Array<Rgb> => {
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

export const near = (c: Rgb, expected: PdfColor, tolerance = 40) =>
  c.every((v, i) => Math.abs(v - expected[i]! * 255) <= tolerance)
export const brightness = (c: Rgb) => (c[0] + c[1] + c[2]) / 3
export const yellowish = (c: Rgb) => c[0] > 200 && c[1] > 200 && c[2] < 110

/** Pixels that differ (by more than `threshold` in a channel) between two renders of one page. */
export const differing = (a: Raster, b: Raster, threshold = 48): Array<readonly [number, number]> => {
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
export const insideAny = (r: Raster, rects: ReadonlyArray<PdfRect>, [px, py]: readonly [number, number]) =>
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
