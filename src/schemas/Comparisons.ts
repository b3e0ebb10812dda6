/**
 * Comparisons (spec: Comparisons, Difference result): image comparisons as orders whose result is
 * a document, and the word-level text difference. See docs/comparisons.md.
 */
import { Schema } from "effect"
import { Rect } from "./Content.ts"
import { DocumentIdParam, DocumentIdRef, ReportAllErrors } from "./Document.ts"
import { DocumentIdInBody, OrderIdRef, OrderState } from "./Orders.ts"

export class ComparisonRequest extends Schema.Class<ComparisonRequest>("ComparisonRequest")({
  leftDocumentId: DocumentIdInBody,
  rightDocumentId: DocumentIdInBody,
  /** Colour distance, in percent, under which two pixels count as the same (default: COMPARISON_DEFAULT_FUZZ). */
  fuzz: Schema.optional(Schema.Int.pipe(Schema.between(0, 100, { message: () => "fuzz is a percentage from 0 to 100" }))),
  /** Colour of the differences and of the unchanged content: #RRGGBB, #RGB, rgb(r,g,b) or a CSS colour name. */
  highlightColor: Schema.optional(Schema.String),
  lowlightColor: Schema.optional(Schema.String)
}, ReportAllErrors) {}

export class ComparisonOrderCreated extends Schema.Class<ComparisonOrderCreated>("ComparisonOrderCreated")({
  comparisonOrderId: OrderIdRef
}) {}

export class ComparisonOrder extends Schema.Class<ComparisonOrder>("ComparisonOrder")({
  comparisonOrderId: OrderIdRef,
  leftDocumentId: DocumentIdRef,
  rightDocumentId: DocumentIdRef,
  /** The result document (one page per compared page), once PROCESSED. */
  targetDocumentId: Schema.NullOr(DocumentIdRef),
  currentState: OrderState,
  fuzz: Schema.Int,
  highlightColor: Schema.String,
  lowlightColor: Schema.String,
  queuedDate: Schema.String,
  processedDate: Schema.NullOr(Schema.String),
  processingTime: Schema.NullOr(Schema.Int),
  errorMessage: Schema.NullOr(Schema.String)
}) {}

export const DifferenceParams = Schema.Struct({
  leftDocumentId: DocumentIdParam,
  rightDocumentId: DocumentIdParam
})

export class TextSide extends Schema.Class<TextSide>("TextSide")({
  text: Schema.String,
  pageNumber: Schema.Int,
  position: Rect
}) {}

export class TextFragment extends Schema.Class<TextFragment>("TextFragment")({
  text: Schema.String,
  type: Schema.Literal("DELETED", "INSERTED"),
  pageNumber: Schema.Int,
  endOfLine: Schema.Boolean
}) {}

export class TextChange extends Schema.Class<TextChange>("TextChange")({
  changeType: Schema.String,
  left: Schema.NullOr(TextSide),
  right: Schema.NullOr(TextSide),
  fragments: Schema.Array(TextFragment)
}) {}

export class DifferenceResult extends Schema.Class<DifferenceResult>("DifferenceResult")({
  leftDocumentId: DocumentIdRef,
  rightDocumentId: DocumentIdRef,
  textChanges: Schema.Array(TextChange)
}) {}
