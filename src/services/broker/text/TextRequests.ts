/**
 * Page text and search, done by the engine. Handled in TextWorker.ts.
 */
import { Config, Schema } from "effect"
import { PageSearchHit, PositionText, SearchOptions } from "../../../schemas/broker/Content.ts"
import { PdfFailure, PdfSourceFields } from "../engine/PdfRequest.ts"

/**
 * A page's text positions as the JSON of an array of TextPosition (what the derived cache keeps and
 * the answer carries as it is): one string crosses from the worker, not hundreds of objects to
 * encode there and decode and encode again here.
 */
export class ExtractText extends Schema.TaggedRequest<ExtractText>()("ExtractText", {
  failure: PdfFailure,
  success: Schema.String,
  payload: { ...PdfSourceFields, page: Schema.Int }
}) {}

export class SearchPages extends Schema.TaggedRequest<SearchPages>()("SearchPages", {
  failure: PdfFailure,
  success: Schema.Array(
    Schema.Struct({ page: Schema.Int, hits: Schema.Array(PageSearchHit), matches: Schema.Array(PositionText) })
  ),
  payload: { ...PdfSourceFields, fromPage: Schema.Int, toPage: Schema.Int, options: SearchOptions }
}) {}

/** What the worker threads need for text: the bytes of page text each keeps for search (TextWorker.ts). */
export const textWorkerSettings = Config.all({
  searchTextBytes: Config.integer("SEARCH_TEXT_CACHE_BYTES_PER_WORKER").pipe(Config.withDefault(32 * 1024 * 1024))
})
