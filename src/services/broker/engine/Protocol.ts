/**
 * Messages between the PdfEngine and its worker threads. Each request names the PDF by its
 * content hash (the worker's cache key) and a local file path (where the worker reads it from).
 */
import { Schema } from "effect"
import { Bookmark, NamedDestination, PageSearchHit, PositionText, SearchOptions, Signatures, TextPosition } from "../../../schemas/broker/Content.ts"
import { TextChange } from "../../../schemas/broker/Comparisons.ts"
import { FilterCode } from "../../../schemas/broker/PageImage.ts"
import { PdfAnnotation, PdfRect } from "../annotations/PdfAnnotation.ts"
import { OutlineEntry } from "../outline/Outline.ts"

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

/** The signatures of a PDF, verified against the worker's trust store. */
export class VerifySignatures extends Schema.TaggedRequest<VerifySignatures>()("VerifySignatures", {
  failure: Failure,
  success: Signatures,
  payload: Source
}) {}

export const PageGeometry = Schema.Struct({ x0: Schema.Number, y0: Schema.Number, width: Schema.Number, height: Schema.Number, rotation: Schema.Int })

/** What annotations need of a PDF: every page's geometry, and the annotations the file holds. */
export class AnnotationBasis extends Schema.Class<AnnotationBasis>("AnnotationBasis")({
  pages: Schema.Array(PageGeometry),
  fileAnnotations: Schema.Array(PdfAnnotation)
}) {}

export class ReadAnnotations extends Schema.TaggedRequest<ReadAnnotations>()("ReadAnnotations", {
  failure: Failure,
  success: AnnotationBasis,
  payload: Source
}) {}

/**
 * Builds the documents of a transformation: each output is a list of pages taken from the sources,
 * whose redaction areas are redacted for real first; annotations are written onto output pages.
 * Each output is written to a file of `outDir`; the answer lists them in order.
 */
export class Transform extends Schema.TaggedRequest<Transform>()("Transform", {
  failure: Failure,
  success: Schema.Array(Schema.String),
  payload: {
    /** Each source PDF, with the areas to redact on its pages (PDF user space). */
    sources: Schema.Array(Schema.Struct({ ...Source, redactions: Schema.Array(Schema.Struct({ page: Schema.Int, rect: PdfRect })) })),
    outputs: Schema.Array(Schema.Struct({
      pages: Schema.Array(Schema.Struct({ source: Schema.Int, page: Schema.Int })),
      /** Annotations to write into the output, each's `page` naming an output page: as annotation objects, or drawn into the pages. */
      annotations: Schema.Array(PdfAnnotation),
      annotationMode: Schema.Literal("objects", "flatten"),
      /** The result's /Title (what PDF readers show as the document's name). */
      title: Schema.optional(Schema.String),
      /** The result's bookmarks. */
      outline: Schema.optional(Schema.Array(OutlineEntry)),
      /** `annotations` are all of the document's: the pages' own annotations of the kept types go first. */
      replaceOwnAnnotations: Schema.optional(Schema.Boolean)
    })),
    outDir: Schema.String
  }
}) {}

/**
 * Compares two PDFs page by page as images (page i with page i; a page on one side only is all
 * difference) and writes a PDF of the difference images to `outPath`.
 */
export class Compare extends Schema.TaggedRequest<Compare>()("Compare", {
  failure: Failure,
  success: Schema.Void,
  payload: {
    left: Schema.Struct(Source),
    right: Schema.Struct(Source),
    width: Schema.Int,
    fuzz: Schema.Number,
    highlight: Schema.Tuple(Schema.Int, Schema.Int, Schema.Int),
    lowlight: Schema.Tuple(Schema.Int, Schema.Int, Schema.Int),
    maxPixels: Schema.Int,
    outPath: Schema.String
  }
}) {}

/** The word-level difference of two PDFs' text, every page of each. */
export class DiffText extends Schema.TaggedRequest<DiffText>()("DiffText", {
  failure: Failure,
  success: Schema.Array(TextChange),
  payload: { left: Schema.Struct(Source), right: Schema.Struct(Source) }
}) {}

export const PdfRequest = Schema.Union(
  Analyze,
  RenderPage,
  ExtractText,
  SearchPages,
  ReadOutline,
  ReadDestinations,
  VerifySignatures,
  ReadAnnotations,
  Transform,
  Compare,
  DiffText
)
export type PdfRequest = typeof PdfRequest.Type
