/**
 * Inside a PDF worker thread: page text and search (TextRequests.ts). The text search reads is kept
 * per document and page, within a number of bytes, so that searching again (the next word, the next
 * page of hits) reads no page twice.
 */
import type { WorkerRunner } from "@effect/platform"
import { Effect } from "effect"
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js"
import type { TextPosition } from "../../../schemas/broker/Content.ts"
import { Lru } from "../../common/Lru.ts"
import { PdfOperationFailed } from "../engine/PdfRequest.ts"
import { attempt, open, pageOf, workerSettings } from "../engine/WorkerDocuments.ts"
import { pdfiumFontNames } from "./PdfiumFontNames.ts"
import { compilePattern, InvalidSearchPattern, searchRuns } from "./Text.ts"
import { pageTextPositions } from "./TextPositions.ts"
import type { ExtractText, SearchPages } from "./TextRequests.ts"

const { searchTextBytes } = workerSettings("text", { searchTextBytes: 32 * 1024 * 1024 })

/**
 * About the bytes a page's runs hold in memory: each character of text twice over (UTF-16) and its
 * width (a double), and the objects of a run and its box.
 */
const weightOf = (runs: ReadonlyArray<TextPosition>) =>
  runs.reduce((sum, run) => sum + 2 * run.text.length + 8 * run.individualWidths.length + 160, 64)

/**
 * Search text per document and page, without font names (search results do not carry them), within
 * SEARCH_TEXT_CACHE_BYTES_PER_WORKER.
 */
const searchText = new Lru<ReadonlyArray<TextPosition>>(searchTextBytes, () => {}, weightOf)

const searchRunsOf = async (hash: string, doc: PDFDocumentProxy, pageIndex: number) => {
  const key = `${hash}:${pageIndex}`
  let runs = searchText.get(key)
  if (!runs) {
    // A page the damaged page tree does not reach (see the analysis) shows nothing, so it has nothing to find.
    const page = await doc.getPage(pageIndex + 1).catch(() => undefined)
    runs = page ? await pageTextPositions(page, false) : []
    searchText.set(key, runs)
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
        async () => JSON.stringify(await pageTextPositions(page, true, pdfiumFontNames(req, req.page)))
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
