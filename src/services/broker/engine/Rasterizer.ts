/**
 * Inside a PDF worker thread: a page drawn by PDFium (Pdfium.ts) and encoded as PNG by sharp, with
 * the descriptor's filters. Page images, the first page of an analysis and the pages of an image
 * comparison are all drawn here.
 *
 * Why PDFium and not pdf.js, which reads everything else: drawing and encoding page 1 at 1240 px
 * took about half the CPU time pdf.js into a canvas took on a page of text (tracemonkey.pdf), and a
 * ninth on a page of 38,600 vector paths (issue12810.pdf); figures in docs/page-images.md.
 */
import sharp from "sharp"
import type { PdfAnnotationSubtype } from "../../../schemas/broker/Annotations.ts"
import { leavesOutListedAnnotations } from "../../../schemas/broker/PageImage.ts"
import { ANNOT_FLAG_HIDDEN, BITMAP_BGR, FPDF_ANNOT, FPDF_REVERSE_BYTE_ORDER, heap, type Pdfium } from "./Pdfium.ts"
import { type PdfiumDocument, pdfiumStep, withPdfiumPage } from "./PdfiumDocuments.ts"
import type { PdfSource, RenderSettings } from "./PdfRequest.ts"
import { PixelBuffers } from "./PixelBuffers.ts"
import { workerSettings } from "./WorkerSettings.ts"

/** The engine's default (PdfEngine.ts), for a thread started without settings (a test's). */
const { imageThreadsPerOperation, pixelBufferBytes } = workerSettings("engine", {
  pixelBufferBytes: 32 * 1024 * 1024,
  imageThreadsPerOperation: 1
})
const pixelBuffers = new PixelBuffers(pixelBufferBytes)
/**
 * libvips' threads for one operation (IMAGE_THREADS_PER_OPERATION; its setting is the process's,
 * so the main thread's crops take it too). Its default, one per core, runs a helper thread beside
 * each page's PNG, which is written row after row: rendering 60 pages of the 400-page file one after
 * another took 25-26 ms of CPU a page with one thread against 28-31 with two, in no more time.
 */
sharp.concurrency(imageThreadsPerOperation)

/** Applies the descriptor's filters: C contrast and B brightness in percent, I invert when not 0. */
const applyFilters = (image: sharp.Sharp, filters: RenderSettings["filters"]) =>
  filters.reduce((img, { code, value }) => {
    switch (code) {
      case "C": {
        const factor = Math.max(0, (100 + value) / 100)
        return img.linear(factor, 128 * (1 - factor))
      }
      case "B":
        return img.linear(1, 2.55 * value)
      case "I":
        return value === 0 ? img : img.negate({ alpha: false })
      default:
        // A chooses what is drawn (drawPage), not how pixels look.
        return img
    }
  }, image)

/**
 * PDFium's numbers of the subtypes GET /annotation lists (FPDF_ANNOT_* in public/fpdf_annot.h):
 * keyed by the schema's subtypes, so that one added there cannot be forgotten here.
 */
const LISTED_SUBTYPES: Readonly<Record<PdfAnnotationSubtype, number>> = {
  Text: 1,
  FreeText: 3,
  Line: 4,
  Square: 5,
  Circle: 6,
  Polygon: 7,
  PolyLine: 8,
  Highlight: 9,
  Underline: 10,
  Squiggly: 11,
  StrikeOut: 12,
  Stamp: 13,
  Ink: 15,
  Redact: 28
}
const listedNumbers = new Set(Object.values(LISTED_SUBTYPES))

/**
 * Marks the page's annotations of the listed subtypes Hidden and returns how to put their flags
 * back. The document is shared by every request of the thread, so the caller restores them in a
 * `finally`, within the same synchronous run (no other request sees them changed). Links, form
 * fields, attachments and the rest are not touched.
 */
const hideListedAnnotations = (pdfium: Pdfium, page: number) => {
  const hidden: Array<{ readonly annot: number; readonly flags: number }> = []
  const restore = () => {
    for (const { annot, flags } of hidden) {
      try {
        pdfium.FPDFAnnot_SetFlags(annot, flags)
      } finally {
        pdfium.FPDFPage_CloseAnnot(annot)
      }
    }
  }
  try {
    const count = pdfium.FPDFPage_GetAnnotCount(page)
    for (let i = 0; i < count; i++) {
      const annot = pdfium.FPDFPage_GetAnnot(page, i)
      if (annot === 0) continue
      if (!listedNumbers.has(pdfium.FPDFAnnot_GetSubtype(annot))) {
        pdfium.FPDFPage_CloseAnnot(annot)
        continue
      }
      const flags = pdfium.FPDFAnnot_GetFlags(annot)
      hidden.push({ annot, flags })
      pdfium.FPDFAnnot_SetFlags(annot, flags | ANNOT_FLAG_HIDDEN)
    }
  } catch (error) {
    restore()
    throw error
  }
  return restore
}

/**
 * The most pixels drawn at once: a taller image is drawn in bands of this many pixels, each copied
 * out before the next, so that PDFium's memory (which never shrinks) grows by one band at most,
 * however large the image MAX_IMAGE_PIXELS allows.
 */
const BAND_PIXELS = 8 * 1024 * 1024

/** Bytes a pixel: R, G, B (BITMAP_BGR). */
const CHANNELS = 3

/**
 * The page drawn into `width` x `height` RGB pixels (turned by `turns` quarters on top of its own
 * rotation), in a kept buffer the caller releases once sharp has read it.
 */
const drawPage = (
  pdfium: Pdfium,
  open: PdfiumDocument,
  page: number,
  size: { readonly width: number; readonly height: number; readonly turns: number },
  withoutListed: boolean
) => {
  const { height, turns, width } = size
  const buffer = pixelBuffers.take(width * height * CHANNELS)
  const { pixels } = buffer
  let restore = () => {}
  try {
    restore = withoutListed ? hideListedAnnotations(pdfium, page) : restore
    const bandHeight = Math.max(1, Math.floor(BAND_PIXELS / width))
    for (let top = 0; top < height; top += bandHeight) {
      const rows = Math.min(bandHeight, height - top)
      const bitmap = pdfium.FPDFBitmap_CreateEx(width, rows, BITMAP_BGR, 0, 0)
      if (bitmap === 0) throw new Error(`PDFium's memory cannot hold a ${width}x${rows} bitmap`)
      try {
        pdfium.FPDFBitmap_FillRect(bitmap, 0, 0, width, rows, 0xffffffff)
        // The page is placed `top` rows up, so this band shows rows top..top+rows of it. Annotations
        // with their appearances first, then form fields through the form-fill environment (as
        // Chromium does: FPDF_RenderPageBitmap leaves widgets to FPDF_FFLDraw).
        pdfium.FPDF_RenderPageBitmap(bitmap, page, 0, -top, width, height, turns, FPDF_ANNOT | FPDF_REVERSE_BYTE_ORDER)
        pdfium.FPDF_FFLDraw(open.form, bitmap, page, 0, -top, width, height, turns, FPDF_REVERSE_BYTE_ORDER)
        const stride = pdfium.FPDFBitmap_GetStride(bitmap)
        const drawn = pdfium.FPDFBitmap_GetBuffer(bitmap)
        const memory = heap(pdfium)
        for (let row = 0; row < rows; row++) {
          const start = drawn + row * stride
          pixels.set(memory.subarray(start, start + width * CHANNELS), (top + row) * width * CHANNELS)
        }
      } finally {
        pdfium.FPDFBitmap_Destroy(bitmap)
      }
    }
  } catch (error) {
    buffer.release()
    throw error
  } finally {
    restore()
  }
  return buffer
}

/** The page's pixels as `settings` ask, with PDFium; the bitmaps destroyed before it returns. */
const rasterize = (source: PdfSource, index: number, settings: RenderSettings) =>
  withPdfiumPage(source, index, (pdfium, open, page) => {
    // PDFium's page size is the crop box as shown, its own /Rotate applied; the extra quarter
    // turns of the descriptor swap it again.
    const turns = ((settings.rotation % 360) + 360) % 360 / 90
    const [across, down] = [pdfium.FPDF_GetPageWidthF(page), pdfium.FPDF_GetPageHeightF(page)]
    const [pageWidth, pageHeight] = turns % 2 === 1 ? [down, across] : [across, down]
    const width = settings.width
    const height = Math.max(1, Math.round((width * pageHeight) / pageWidth))
    if (width * height > settings.maxPixels) {
      throw new Error(`the image would have ${width}x${height} pixels, more than the limit of ${settings.maxPixels}`)
    }
    const withoutListed = leavesOutListedAnnotations(settings.filters)
    return { ...drawPage(pdfium, open, page, { width, height, turns }, withoutListed), width, height }
  })

/** The page as a PNG `settings.width` pixels wide, turned by `settings.rotation` more than the page's own. */
export const renderPng = async (source: PdfSource, index: number, settings: RenderSettings) => {
  const { height, pixels, release, width } = await rasterize(source, index, settings)
  try {
    // Measured: sharp from raw pixels at compression 1 encodes ~9x faster than a canvas encoder at a similar size.
    const image = applyFilters(sharp(pixels, { raw: { width, height, channels: CHANNELS } }), settings.filters)
    return new Uint8Array(await image.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer())
  } finally {
    release()
  }
}

/** `renderPng` as a step of a worker handler (`pdfiumStep`: how it fails). */
export const renderPage = (source: PdfSource, index: number, settings: RenderSettings) =>
  pdfiumStep(`Rendering page ${index}`, () => renderPng(source, index, settings))
