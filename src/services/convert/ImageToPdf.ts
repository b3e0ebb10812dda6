/**
 * Images to PDF: one page per image (per frame for multi-page TIFF), each page the image's own size
 * at its own resolution. JPEGs are embedded as they are; other images are decoded by sharp (BMP by
 * bmp-ts), flattened on white and stored as Flate-compressed RGB or grey.
 */
import { decode as decodeBmp } from "bmp-ts"
import { PDFDocument, PDFName, PDFRawStream, popGraphicsState, pushGraphicsState, concatTransformationMatrix, drawObject } from "pdf-lib"
import sharp from "sharp"
import { promisify } from "node:util"
import { deflate } from "node:zlib"

const deflateAsync = promisify(deflate)

export interface ImageToPdfOptions {
  /** Images with more pixels than this are refused rather than decoded. */
  readonly maxPixels: number
}

export class ImageRejected extends Error {}

const DEFAULT_DPI = 72

/** BMP is not among sharp's inputs: decode it to raw RGBA first. */
const open = (bytes: Uint8Array, format: string, maxPixels: number, page?: number) => {
  if (format === "bmp") {
    const bmp = decodeBmp(Buffer.from(bytes), { toRGBA: true })
    if (bmp.width * bmp.height > maxPixels) throw new ImageRejected(`The image has ${bmp.width}x${bmp.height} pixels, more than the limit of ${maxPixels}`)
    return sharp(bmp.data, { raw: { width: bmp.width, height: Math.abs(bmp.height), channels: 4 } })
  }
  return sharp(bytes, { limitInputPixels: maxPixels, ...(page === undefined ? {} : { page }) })
}

export const imageToPdf = async (bytes: Uint8Array, format: string, options: ImageToPdfOptions) => {
  const metadata = await open(bytes, format, options.maxPixels).metadata().catch((error: Error) => {
    throw new ImageRejected(`The ${format.toUpperCase()} image cannot be read: ${error.message}`)
  })
  const frames = format === "tiff" ? (metadata.pages ?? 1) : 1
  const pdf = await PDFDocument.create()
  /** Resolution of each page's image, for the layout's dpi. */
  const dpis: Array<number> = []
  for (let frame = 0; frame < frames; frame++) {
    const image = open(bytes, format, options.maxPixels, format === "tiff" ? frame : undefined).rotate()
    const frameMeta = frame === 0 ? metadata : await open(bytes, format, options.maxPixels, frame).metadata()
    const dpi = Math.round(frameMeta.density ?? DEFAULT_DPI) || DEFAULT_DPI
    const { stream, width, height } = format === "jpeg" && (frameMeta.orientation ?? 1) === 1 && frameMeta.space !== "cmyk"
      ? jpegStream(pdf, bytes, frameMeta.width!, frameMeta.height!, frameMeta.channels === 1)
      : await flateStream(pdf, image.flatten({ background: "#ffffff" }))
    const page = pdf.addPage([(width * 72) / dpi, (height * 72) / dpi])
    const name = page.node.newXObject("Im", pdf.context.register(stream))
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(page.getWidth(), 0, 0, page.getHeight(), 0, 0), drawObject(name), popGraphicsState())
    dpis.push(dpi)
  }
  return { pdf: await pdf.save({ useObjectStreams: true }), dpis }
}

const jpegStream = (pdf: PDFDocument, bytes: Uint8Array, width: number, height: number, grey: boolean) => ({
  stream: PDFRawStream.of(
    pdf.context.obj({
      Type: "XObject",
      Subtype: "Image",
      Width: width,
      Height: height,
      BitsPerComponent: 8,
      ColorSpace: grey ? "DeviceGray" : "DeviceRGB",
      Filter: "DCTDecode",
      Length: bytes.byteLength
    }),
    bytes
  ),
  width,
  height
})

const flateStream = async (pdf: PDFDocument, image: sharp.Sharp) => {
  const { data, info } = await image.toColourspace("srgb").raw().toBuffer({ resolveWithObject: true })
  const grey = info.channels === 1
  const rgb = info.channels === 3 || grey ? data : await sharp(data, { raw: info }).removeAlpha().raw().toBuffer()
  const compressed = await deflateAsync(rgb)
  const dict = pdf.context.obj({
    Type: "XObject",
    Subtype: "Image",
    Width: info.width,
    Height: info.height,
    BitsPerComponent: 8,
    ColorSpace: grey ? "DeviceGray" : "DeviceRGB",
    Filter: "FlateDecode",
    Length: compressed.byteLength
  })
  dict.set(PDFName.of("Interpolate"), pdf.context.obj(true))
  return { stream: PDFRawStream.of(dict, new Uint8Array(compressed)), width: info.width, height: info.height }
}
