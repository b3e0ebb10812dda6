/**
 * Messages between the PdfEngine and its worker threads. Each request names the PDF by its
 * content hash (the worker's cache key) and a local file path (where the worker reads it from).
 */
import { Schema } from "effect"
import { Bookmark, NamedDestination, PageSearchHit, PositionText, SearchOptions, SignatureInfo, TextPosition } from "../../schemas/Content.ts"
import { FilterCode } from "../../schemas/PageImage.ts"

const Source = {
  hash: Schema.String,
  path: Schema.String
}

/** Why a PDF could not be opened: the caller maps these to statuses. */
export class PdfOpenFailed extends Schema.TaggedError<PdfOpenFailed>()("PdfOpenFailed", {
  reason: Schema.Literal("password", "damaged"),
  message: Schema.String
}) {}

/** A page operation failed on an opened PDF (bad page number is checked before; this is the engine failing). */
export class PdfOperationFailed extends Schema.TaggedError<PdfOperationFailed>()("PdfOperationFailed", {
  message: Schema.String
}) {}

const Failure = Schema.Union(PdfOpenFailed, PdfOperationFailed)

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

const RenderSettings = {
  width: Schema.Int,
  rotation: Schema.Int,
  filters: Schema.Array(Schema.Struct({ code: FilterCode, value: Schema.Int })),
  maxPixels: Schema.Int
}

export class Analyze extends Schema.TaggedRequest<Analyze>()("Analyze", {
  failure: Failure,
  success: PdfSummary,
  payload: { ...Source, firstPage: Schema.Struct(RenderSettings) }
}) {}

export class RenderPage extends Schema.TaggedRequest<RenderPage>()("RenderPage", {
  failure: Failure,
  success: Schema.Uint8ArrayFromSelf,
  payload: { ...Source, page: Schema.Int, ...RenderSettings }
}) {}

export class ExtractText extends Schema.TaggedRequest<ExtractText>()("ExtractText", {
  failure: Failure,
  success: Schema.Array(TextPosition),
  payload: { ...Source, page: Schema.Int }
}) {}

export class SearchPages extends Schema.TaggedRequest<SearchPages>()("SearchPages", {
  failure: Failure,
  success: Schema.Array(Schema.Struct({ page: Schema.Int, hits: Schema.Array(PageSearchHit), matches: Schema.Array(PositionText) })),
  payload: { ...Source, fromPage: Schema.Int, toPage: Schema.Int, options: SearchOptions }
}) {}

export class ReadOutline extends Schema.TaggedRequest<ReadOutline>()("ReadOutline", {
  failure: Failure,
  success: Schema.Array(Bookmark),
  payload: Source
}) {}

export class ReadDestinations extends Schema.TaggedRequest<ReadDestinations>()("ReadDestinations", {
  failure: Failure,
  success: Schema.Array(NamedDestination),
  payload: Source
}) {}

export class ReadSignatureFields extends Schema.TaggedRequest<ReadSignatureFields>()("ReadSignatureFields", {
  failure: Failure,
  success: Schema.Array(SignatureInfo),
  payload: Source
}) {}

export const PdfRequest = Schema.Union(Analyze, RenderPage, ExtractText, SearchPages, ReadOutline, ReadDestinations, ReadSignatureFields)
export type PdfRequest = typeof PdfRequest.Type
