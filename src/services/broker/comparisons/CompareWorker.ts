/**
 * Inside a PDF worker thread: image comparisons and text differences (CompareRequests.ts).
 */
import type { WorkerRunner } from "@effect/platform"
import { Effect } from "effect"
import { writeFile } from "node:fs/promises"
import { PDFDocument } from "pdf-lib"
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js"
import type { TextPosition } from "../../../schemas/broker/Content.ts"
import { pdfiumPageCount, pdfiumStep } from "../engine/PdfiumDocuments.ts"
import type { PdfSource } from "../engine/PdfRequest.ts"
import { attempt } from "../engine/PdfRequest.ts"
import { renderPng } from "../engine/Rasterizer.ts"
import { open } from "../engine/WorkerDocuments.ts"
import { pageTextPositions } from "../text/PdfiumText.ts"
import type { Compare, DiffText } from "./CompareRequests.ts"
import { diffPageImages } from "./ImageDiff.ts"
import { diffText } from "./TextDiff.ts"

export const compareHandlers: WorkerRunner.SerializedRunner.Handlers<Compare | DiffText> = {
  Compare: (req) =>
    Effect.gen(function*() {
      const [left, right] = yield* Effect.all([open(req.left), open(req.right)])
      return yield* attempt("Comparing the documents", async () => {
        const output = await PDFDocument.create()
        const settings = { width: req.width, rotation: 0, filters: [], maxPixels: req.maxPixels }
        /** A page rendered at the comparison's width, with its displayed size in points; undefined past the document's end. */
        const render = async (source: PdfSource, doc: PDFDocumentProxy, index: number) => {
          if (index >= doc.numPages) return undefined
          const { width, height } = (await doc.getPage(index + 1)).getViewport({ scale: 1 })
          return { png: await renderPng(source, index, settings), width, height }
        }
        const pages = Math.max(left.numPages, right.numPages)
        for (let i = 0; i < pages; i++) {
          const [l, r] = [await render(req.left, left, i), await render(req.right, right, i)]
          const diff = await diffPageImages(l?.png, r?.png, {
            fuzz: req.fuzz,
            colors: { highlight: req.highlight, lowlight: req.lowlight }
          })
          // Both pages were drawn at one width: the result is as wide as the wider page and as tall as
          // the taller one at that width (its points, not its rounded pixels), the image filling it.
          const width = Math.max(l?.width ?? 0, r?.width ?? 0)
          const height = Math.max(
            ...[l, r].map((side) => (side === undefined ? 0 : (side.height * width) / side.width))
          )
          const image = await output.embedPng(diff.png)
          output.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height })
        }
        await writeFile(req.outPath, await output.save())
      })
    }),

  DiffText: (req) =>
    pdfiumStep("Comparing the documents' text", async () => {
      const textOf = async (source: PdfSource) => {
        const pages: Array<ReadonlyArray<TextPosition>> = []
        for (let i = 0, count = await pdfiumPageCount(source); i < count; i++) {
          pages.push(await pageTextPositions(source, i))
        }
        return pages
      }
      return diffText(await textOf(req.left), await textOf(req.right))
    })
}
