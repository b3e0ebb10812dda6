/**
 * Inside a PDF worker thread: page text and search (TextRequests.ts). The text search reads is kept
 * per document and page, so that searching again (the next word, the next page of hits) reads no page twice.
 */
import type { WorkerRunner } from "@effect/platform"
import { Effect } from "effect"
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js"
import type { TextPosition } from "../../../schemas/broker/Content.ts"
import { Lru } from "../../common/Lru.ts"
import { PdfOperationFailed } from "../engine/PdfRequest.ts"
import { attempt, open, openDocumentCapacity, pageOf } from "../engine/WorkerDocuments.ts"
import { compilePattern, InvalidSearchPattern, searchRuns } from "./Text.ts"
import { pageTextPositions } from "./TextPositions.ts"
import type { ExtractText, SearchPages } from "./TextRequests.ts"

/** Search text per document and page, without font names (search results do not carry them). */
const searchText = new Lru<Map<number, ReadonlyArray<TextPosition>>>(openDocumentCapacity * 2)

const searchRunsOf = async (hash: string, doc: PDFDocumentProxy, pageIndex: number) => {
  let pages = searchText.get(hash)
  if (!pages) {
    pages = new Map()
    searchText.set(hash, pages)
  }
  let runs = pages.get(pageIndex)
  if (!runs) {
    // A page the damaged page tree does not reach (see the analysis) shows nothing, so it has nothing to find.
    const page = await doc.getPage(pageIndex + 1).catch(() => undefined)
    runs = page ? await pageTextPositions(page, false) : []
    pages.set(pageIndex, runs)
  }
  return runs
}

export const textHandlers: WorkerRunner.SerializedRunner.Handlers<ExtractText | SearchPages> = {
  ExtractText: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      const page = yield* pageOf(doc, req.page)
      return yield* attempt(
        `Extracting text of page ${req.page}`,
        async () => JSON.stringify(await pageTextPositions(page, true))
      )
    }),

  SearchPages: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      const pattern = yield* Effect.try({
        try: () => compilePattern(req.options),
        catch: (error) =>
          new PdfOperationFailed({ message: error instanceof InvalidSearchPattern ? error.message : String(error) })
      })
      return yield* attempt("Searching", async () => {
        const results = []
        for (let p = req.fromPage; p <= Math.min(req.toPage, doc.numPages - 1); p++) {
          const { hits, matches } = searchRuns(
            p,
            await searchRunsOf(req.hash, doc, p),
            pattern,
            req.options.accentSensitive
          )
          if (hits.length > 0) results.push({ page: p, hits, matches })
        }
        return results
      })
    })
}
