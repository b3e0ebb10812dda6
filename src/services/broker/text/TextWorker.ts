/**
 * Inside a PDF worker thread: page text and search (TextRequests.ts), read by PDFium
 * (PdfiumText.ts). The text search reads is kept per document and page, within a number of bytes,
 * so that searching again (the next word, the next page of hits) reads no page twice.
 */
import type { WorkerRunner } from "@effect/platform"
import { Effect } from "effect"
import type { TextPosition } from "../../../schemas/broker/Content.ts"
import { Lru } from "../../common/Lru.ts"
import { pdfiumPageCount, pdfiumStep } from "../engine/PdfiumDocuments.ts"
import { PdfOperationFailed, type PdfSource } from "../engine/PdfRequest.ts"
import { workerSettings } from "../engine/WorkerSettings.ts"
import { pageTextPositions } from "./PdfiumText.ts"
import type { ExtractText, SearchPages } from "./TextRequests.ts"
import { compilePattern, InvalidSearchPattern, searchRuns } from "./TextSearch.ts"

const { searchTextBytes } = workerSettings("text", { searchTextBytes: 32 * 1024 * 1024 })

/**
 * About the bytes a page's runs hold in memory: each character of text twice over (UTF-16) and its
 * width (a double), and the objects of a run and its box.
 */
const weightOf = (runs: ReadonlyArray<TextPosition>) =>
  runs.reduce((sum, run) => sum + 2 * run.text.length + 8 * run.individualWidths.length + 160, 64)

/** Search text per document and page, within SEARCH_TEXT_CACHE_BYTES_PER_WORKER. */
const searchText = new Lru<ReadonlyArray<TextPosition>>(searchTextBytes, () => {}, weightOf)

const searchRunsOf = async (source: PdfSource, pageIndex: number) => {
  const key = `${source.hash}:${pageIndex}`
  let runs = searchText.get(key)
  if (!runs) {
    // A page that will not load (a damaged page tree, see the analysis) shows nothing, so it has nothing to find.
    runs = await pageTextPositions(source, pageIndex).catch(() => [])
    searchText.set(key, runs)
  }
  return runs
}

export const textHandlers: WorkerRunner.SerializedRunner.Handlers<ExtractText | SearchPages> = {
  ExtractText: (req) =>
    pdfiumStep(
      `Extracting text of page ${req.page}`,
      async () => JSON.stringify(await pageTextPositions(req, req.page))
    ),

  SearchPages: (req) =>
    Effect.gen(function*() {
      const pattern = yield* Effect.try({
        try: () => compilePattern(req.options),
        catch: (error) =>
          new PdfOperationFailed({ message: error instanceof InvalidSearchPattern ? error.message : String(error) })
      })
      return yield* pdfiumStep("Searching", async () => {
        const pages = await pdfiumPageCount(req)
        const results = []
        for (let p = req.fromPage; p <= Math.min(req.toPage, pages - 1); p++) {
          const { hits, matches } = searchRuns(p, await searchRunsOf(req, p), pattern, req.options.accentSensitive)
          if (hits.length > 0) results.push({ page: p, hits, matches })
        }
        return results
      })
    })
}
