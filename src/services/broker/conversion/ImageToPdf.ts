/**
 * Images to PDF: one page per image (per frame for multi-page TIFF), each page the image's own size
 * at its own resolution. JPEGs are embedded as they are; other images are decoded by sharp (BMP by
 * bmp-ts), flattened on white and stored as Flate-compressed RGB or grey.
 */
import { decode as decodeBmp } from "bmp-ts"
import { promisify } from "node:util"
import { deflate } from "node:zlib"
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  PDFName,
  PDFRawStream,
  popGraphicsState,
  pushGraphicsState
} from "pdf-lib"
import sharp from "sharp"

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
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    // bmp-ts misplaces the pixels of run-length encoded files (BI_RLE8, BI_RLE4) whatever the layout asked for.
    const compression = buffer.length >= 34 ? buffer.readUInt32LE(30) : 0
    if (compression === 1 || compression === 2) {
      throw new ImageRejected("Run-length encoded (RLE) BMP images are not supported: save the image uncompressed")
    }
    // Decoded in bmp-ts's own ABGR layout: its toRGBA option misplaces palette colours, and every
    // depth without an alpha channel (1 to 24 bits) comes with alpha 0, i.e. fully transparent.
    const bmp = decodeBmp(buffer)
    const width = bmp.width
    const height = Math.abs(bmp.height)
    if (width * height > maxPixels) {
      throw new ImageRejected(`The image has ${width}x${height} pixels, more than the limit of ${maxPixels}`)
    }
    const abgr = bmp.data
    const rgba = Buffer.alloc(width * height * 4)
    // Only 16 and 32 bits can carry alpha; writers that do not use it leave 0 everywhere, which means opaque.
    let alpha = false
    if (bmp.bitPP === 16 || bmp.bitPP === 32) {
      for (let i = 0; i < abgr.length && !alpha; i += 4) alpha = abgr[i] !== 0
    }
    for (let i = 0; i < rgba.length; i += 4) {
      rgba[i] = abgr[i + 3]!
      rgba[i + 1] = abgr[i + 2]!
      rgba[i + 2] = abgr[i + 1]!
      rgba[i + 3] = alpha ? abgr[i]! : 255
    }
    return sharp(rgba, { raw: { width, height, channels: 4 } })
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
    // A resolution without a unit (TIFF ResolutionUnit 1, PNG pHYs unit 0) is only an aspect ratio, yet
    // libvips reads it as pixels per millimetre (72 becomes 1829 dpi); sharp names the unit of real ones.
    const density = frameMeta.resolutionUnit === undefined ? undefined : frameMeta.density
    const dpi = Math.round(density ?? DEFAULT_DPI) || DEFAULT_DPI
    const { stream, width, height } =
      format === "jpeg" && (frameMeta.orientation ?? 1) === 1 && frameMeta.space !== "cmyk"
        ? jpegStream(pdf, bytes, frameMeta.width!, frameMeta.height!, frameMeta.channels === 1)
        : await flateStream(pdf, image.flatten({ background: "#ffffff" }))
    const page = pdf.addPage([(width * 72) / dpi, (height * 72) / dpi])
    const name = page.node.newXObject("Im", pdf.context.register(stream))
    page.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(page.getWidth(), 0, 0, page.getHeight(), 0, 0),
      drawObject(name),
      popGraphicsState()
    )
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
