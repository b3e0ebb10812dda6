/**
 * Page text and search, done by the engine. Handled in TextWorker.ts.
 */
import { Schema } from "effect"
import { PageSearchHit, PositionText, SearchOptions, TextPosition } from "../../../schemas/broker/Content.ts"
import { PdfFailure, PdfSourceFields } from "../engine/PdfRequest.ts"

export class ExtractText extends Schema.TaggedRequest<ExtractText>()("ExtractText", {
  failure: PdfFailure,
  success: Schema.Array(TextPosition),
  payload: { ...PdfSourceFields, page: Schema.Int }
}) {}

export class SearchPages extends Schema.TaggedRequest<SearchPages>()("SearchPages", {
  failure: PdfFailure,
  success: Schema.Array(
    Schema.Struct({ page: Schema.Int, hits: Schema.Array(PageSearchHit), matches: Schema.Array(PositionText) })
  ),
  payload: { ...PdfSourceFields, fromPage: Schema.Int, toPage: Schema.Int, options: SearchOptions }
}) {}
