/**
 * The analysis of a rendition, done once per PDF by the engine: its page boxes, its information
 * dictionary, and its first page drawn (what a viewer asks for next). Handled in PdfAnalysisWorker.ts.
 */
import { Schema } from "effect"
import { PdfFailure, PdfSourceFields, RenderSettings } from "../engine/PdfRequest.ts"

export class PageBox extends Schema.Class<PageBox>("PageBox")({
  width: Schema.Number,
  height: Schema.Number,
  rotation: Schema.Int
}) {}

export class PdfSummary extends Schema.Class<PdfSummary>("PdfSummary")({
  pages: Schema.Array(PageBox),
  /** The document information dictionary (Title, Author, ...) and the PDF version, as text. */
  info: Schema.Record({ key: Schema.String, value: Schema.String }),
  /** The first page rendered as asked in the request; absent when it could not be rendered. */
  firstPage: Schema.optional(Schema.Uint8ArrayFromSelf)
}) {}

export class Analyze extends Schema.TaggedRequest<Analyze>()("Analyze", {
  failure: PdfFailure,
  success: PdfSummary,
  payload: { ...PdfSourceFields, firstPage: RenderSettings }
}) {}
