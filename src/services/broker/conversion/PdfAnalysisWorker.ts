/**
 * Inside a PDF worker thread: the analysis of a rendition (PdfAnalysis.ts).
 */
import type { WorkerRunner } from "@effect/platform"
import { Effect } from "effect"
import { attempt } from "../engine/PdfRequest.ts"
import { renderPage } from "../engine/Rasterizer.ts"
import { open } from "../engine/WorkerDocuments.ts"
import { type Analyze, PageBox, PdfSummary } from "./PdfAnalysis.ts"

export const analysisHandlers: WorkerRunner.SerializedRunner.Handlers<Analyze> = {
  Analyze: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      const summary = yield* attempt("Reading the page tree", async () => {
        // A damaged page tree (a cycle, a kid of the wrong type) can make single pages unreachable while
        // the others load; other readers still show those, so the document is refused only when no page
        // loads, and an unreachable page keeps its place with the box of the page before it.
        const found: Array<PageBox | undefined> = []
        let failure: unknown
        for (let i = 1; i <= doc.numPages; i++) {
          const page = await doc.getPage(i).catch((error: unknown) => {
            failure ??= error
            return undefined
          })
          if (!page) {
            found.push(undefined)
            continue
          }
          const [x0, y0, x1, y1] = page.view as [number, number, number, number]
          found.push(
            new PageBox({
              width: Math.abs(x1 - x0) * page.userUnit,
              height: Math.abs(y1 - y0) * page.userUnit,
              rotation: page.rotate
            })
          )
        }
        if (found.length > 0 && found.every((box) => box === undefined)) throw failure
        let previous = found.find((box) => box !== undefined)!
        const boxes = found.map((box) => (previous = box ?? previous))
        const { info } = await doc.getMetadata()
        const text: Record<string, string> = {}
        for (const [key, value] of Object.entries((info ?? {}) as Record<string, unknown>)) {
          if (typeof value === "string" && value.trim() !== "") text[key] = value
        }
        return { pages: boxes, info: text, firstPageLoads: found[0] !== undefined }
      })
      // The first page is what a viewer asks for next, and this worker has the file at hand now. A
      // page that will not draw is left to the page route, which says why.
      const firstPage = summary.firstPageLoads
        ? yield* renderPage(req, 0, req.firstPage).pipe(Effect.orElseSucceed(() => undefined))
        : undefined
      return new PdfSummary({ pages: summary.pages, info: summary.info, firstPage })
    })
}
