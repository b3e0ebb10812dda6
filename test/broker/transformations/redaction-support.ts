/**
 * What the redaction tests share: how they read a result as a reader and an attacker would (text
 * with pdftotext, every object decompressed, a page's content and stored image samples decoded),
 * how they render a page with pdftoppm and find where a region is shown, and the corpus files.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream } from "pdf-lib"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import sharp from "sharp"
import { afterAll } from "vitest"
import { CORPUS } from "../../support/backends.ts"

export type Box = readonly [number, number, number, number]

/** The word to redact: in the generated document, and on the cropped page the rotation test draws. */
export const SECRET = "SECRETWORD"

// One scratch folder per test file that imports this module (the hook is that file's).
export const scratch = mkdtempSync(path.join(tmpdir(), "docstack-redaction-test-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
let files = 0
export const saved = (pdf: Uint8Array) => {
  const file = path.join(scratch, `${files++}.pdf`)
  writeFileSync(file, pdf)
  return file
}
export const corpus = (name: string) => new Uint8Array(readFileSync(path.join(CORPUS, "pdf", name)))

export const pageText = (pdf: Uint8Array, page: number) =>
  execFileSync("pdftotext", ["-enc", "UTF-8", "-f", `${page + 1}`, "-l", `${page + 1}`, saved(pdf), "-"], {
    encoding: "utf8"
  })

export const words = (text: string) => text.split(/\s+/).filter((w) => w !== "")

export interface Raster {
  readonly data: Buffer
  readonly width: number
  readonly height: number
}
export const render = (pdf: Uint8Array, page: number): Promise<Raster> => {
  const prefix = path.join(scratch, `${files++}`)
  execFileSync("pdftoppm", [
    "-r",
    "72",
    "-cropbox",
    "-f",
    `${page + 1}`,
    "-l",
    `${page + 1}`,
    "-singlefile",
    "-png",
    saved(pdf),
    prefix
  ])
  return sharp(`${prefix}.png`).removeAlpha().raw().toBuffer({ resolveWithObject: true }).then(({ data, info }) => ({
    data,
    width: info.width,
    height: info.height
  }))
}

/** Everything an attacker can read out of the file: every object, streams decompressed, hex and UTF-16 strings decoded. */
export const attackerView = async (pdf: Uint8Array): Promise<string> => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  return doc.context.enumerateIndirectObjects()
    .map(([, object]) => {
      if (!(object instanceof PDFRawStream)) return object.toString()
      try {
        return object.dict.toString() + Buffer.from(decodePDFRawStream(object).decode()).toString("latin1")
      } catch {
        return object.dict.toString() // an image codec pdf-lib cannot decode
      }
    })
    .join("\n")
    .replace(/<([0-9A-Fa-f\s]+)>/g, (_, hex: string) => Buffer.from(hex.replace(/\s/g, ""), "hex").toString("latin1"))
    .replace(/\0/g, "")
}

export const decoded = (stream: unknown) =>
  stream instanceof PDFRawStream ? Buffer.from(decodePDFRawStream(stream).decode()) : Buffer.alloc(0)

/** A page's content streams, decoded and joined. */
export const pageContent = (doc: PDFDocument, page: number): Buffer => {
  const contents = doc.getPage(page).node.Contents()
  const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => doc.context.lookup(ref)) : [contents]
  return Buffer.concat(streams.map(decoded))
}

export const boxOf = (
  points: ReadonlyArray<readonly [number, number]>
): Box => [
  Math.min(...points.map((p) => p[0])),
  Math.min(...points.map((p) => p[1])),
  Math.max(...points.map((p) => p[0])),
  Math.max(...points.map((p) => p[1]))
]

/** The image XObjects a page draws directly, with their decoded samples. */
export const pageImages = (doc: PDFDocument, page: number) => {
  const xobjects = doc.getPage(page).node.Resources()?.lookupMaybe(PDFName.of("XObject"), PDFDict)
  return (xobjects?.values() ?? []).map((ref) => doc.context.lookup(ref))
    .filter((o): o is PDFRawStream =>
      o instanceof PDFRawStream && o.dict.get(PDFName.of("Subtype"))?.toString() === "/Image"
    )
    .map((image) => ({ width: (image.dict.get(PDFName.of("Width")) as PDFNumber).asNumber(), samples: decoded(image) }))
}

/** The bounding box of the pixels that pass `test`, in pixels. */
export const pixelBox = (raster: Raster, test: (r: number, g: number, b: number) => boolean): Box => {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity]
  for (let y = 0; y < raster.height; y++) {
    for (let x = 0; x < raster.width; x++) {
      const i = (y * raster.width + x) * 3
      if (!test(raster.data[i]!, raster.data[i + 1]!, raster.data[i + 2]!)) continue
      ;[x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x + 1), Math.max(y1, y + 1)]
    }
  }
  return [x0, y0, x1, y1]
}
export const isRed = (r: number, g: number, b: number) => r > 200 && g < 60 && b < 60

/** Where a user-space rectangle is shown, as pdf.js places it (crop box and /Rotate applied). */
export const displayedBox = async (pdf: Uint8Array, page: number, [x0, y0, x1, y1]: Box): Promise<Box> => {
  const doc = await pdfjs.getDocument({ data: pdf.slice(), verbosity: 0, isEvalSupported: false }).promise
  const viewport = (await doc.getPage(page + 1)).getViewport({ scale: 1 })
  const corners = [[x0, y0], [x1, y1]].map(([x, y]) => viewport.convertToViewportPoint(x!, y!) as [number, number])
  await doc.destroy()
  return boxOf(corners)
}
