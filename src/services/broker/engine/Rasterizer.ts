/**
 * Inside a PDF worker thread: a page drawn by pdf.js into a canvas and encoded as PNG by sharp,
 * with the descriptor's filters. Page images, the first page of an analysis and the pages of an
 * image comparison are all drawn here.
 */
import { Schema } from "effect"
import { AnnotationMode } from "pdfjs-dist/legacy/build/pdf.mjs"
import type { PDFDocumentProxy, PDFPageProxy } from "pdfjs-dist/types/src/display/api.js"
import sharp from "sharp"
import { PdfAnnotationSubtype } from "../../../schemas/broker/Annotations.ts"
import { leavesOutListedAnnotations } from "../../../schemas/broker/PageImage.ts"
import type { RenderSettings } from "./PdfRequest.ts"

/** The document's own canvas factory: one copy of the canvas package, the one pdf.js loaded. */
interface CanvasFactory {
  create(width: number, height: number): { canvas: unknown; context: CanvasRenderingContext2D }
  destroy(target: { canvas: unknown; context: CanvasRenderingContext2D }): void
}

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
        // A chooses what is drawn (hideListedAnnotations), not how pixels look.
        return img
    }
  }, image)

const isListedSubtype = Schema.is(PdfAnnotationSubtype)

/**
 * Marks the page's annotations of the subtypes GET /annotation lists (thread replies included) as
 * not to be viewed, in the document's annotation storage, which pdf.js reads only when a render
 * asks for ENABLE_STORAGE: the document is shared by every request of the thread, and a render
 * in the default mode (ENABLE) still draws them. Links, form fields, attachments and the rest
 * are not touched.
 */
const hideListedAnnotations = async (doc: PDFDocumentProxy, page: PDFPageProxy) => {
  for (const annotation of await page.getAnnotations()) {
    if (isListedSubtype(annotation.subtype)) doc.annotationStorage.setValue(annotation.id, { noView: true })
  }
}

/** The page as a PNG `settings.width` pixels wide, turned by `settings.rotation` more than the page's own. */
export const renderPng = async (doc: PDFDocumentProxy, page: PDFPageProxy, settings: RenderSettings) => {
  const rotation = (page.rotate + settings.rotation) % 360
  const unit = page.getViewport({ scale: 1, rotation })
  const viewport = page.getViewport({ scale: settings.width / unit.width, rotation })
  const width = settings.width
  const height = Math.max(1, Math.round(viewport.height))
  if (width * height > settings.maxPixels) {
    throw new Error(`the image would have ${width}x${height} pixels, more than the limit of ${settings.maxPixels}`)
  }
  const canvasFactory = doc.canvasFactory as CanvasFactory
  const target = canvasFactory.create(width, height)
  try {
    target.context.fillStyle = "#ffffff"
    target.context.fillRect(0, 0, width, height)
    const withoutListed = leavesOutListedAnnotations(settings.filters)
    if (withoutListed) await hideListedAnnotations(doc, page)
    await page.render({
      canvas: target.canvas as HTMLCanvasElement,
      canvasContext: target.context,
      viewport,
      annotationMode: withoutListed ? AnnotationMode.ENABLE_STORAGE : AnnotationMode.ENABLE
    }).promise
    const pixels = target.context.getImageData(0, 0, width, height).data
    // Measured: sharp from raw RGBA at compression 1 encodes ~9x faster than the canvas encoder at a similar size.
    const image = applyFilters(
      sharp(Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), { raw: { width, height, channels: 4 } }),
      settings.filters
    )
    return new Uint8Array(await image.removeAlpha().png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer())
  } finally {
    canvasFactory.destroy(target)
    page.cleanup()
  }
}
