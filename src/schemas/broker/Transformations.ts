/**
 * Transformation orders (spec: Transformations): merge, split, reorder and redact, each detail of
 * the request becoming one result document. See docs/transformations.md.
 */
import { Schema } from "effect"
import { Annotations } from "./Annotations.ts"
import { DocumentIdRef, DocumentTitle, ReportAllErrors } from "./Document.ts"
import { DocumentIdInBody, OrderIdRef, OrderState } from "./Orders.ts"

const PageIndex = Schema.Int.pipe(Schema.nonNegative({ message: () => "pages are 0-based page indices" }))

/** Pages minPage to maxPage, both included, 0-based. */
export class PageRange extends Schema.Class<PageRange>("PageRange")({
  minPage: PageIndex,
  maxPage: PageIndex
}) {}

export class TransformationElement extends Schema.Class<TransformationElement>("TransformationElement")({
  documentId: DocumentIdInBody,
  documentTitle: Schema.optional(Schema.NullOr(DocumentTitle)),
  /** The pages to take, in this order; absent or empty: every page. */
  pagesSelectionList: Schema.optional(Schema.NullOr(Schema.Array(PageRange)))
}) {}

export class TransformationDetail extends Schema.Class<TransformationDetail>("TransformationDetail")({
  /** The result document's title: the same rules as an upload's (no control characters, at most 1000 characters). */
  documentTitle: Schema.optional(Schema.NullOr(DocumentTitle)),
  transformationElements: Schema.Array(TransformationElement).pipe(
    Schema.minItems(1, { message: () => "each transformation detail needs at least one transformation element" })
  )
}) {}

export const TransformationFormat = Schema.Literal("pdf", "rendered").annotations({
  message: () => "format must be 'pdf' (or 'rendered', the same): transformations produce PDF documents"
})

export class TransformationRequest extends Schema.Class<TransformationRequest>("TransformationRequest")({
  format: Schema.optionalWith(TransformationFormat, { default: () => "pdf" as const }),
  transformationDetails: Schema.Array(TransformationDetail).pipe(
    Schema.minItems(1, {
      message: () => "transformationDetails needs at least one detail: each becomes one result document"
    })
  ),
  /** Redactions (RedactText, Redact) are applied for real; other annotations are written into the result. */
  annotations: Schema.optional(Schema.NullOr(Annotations))
}, ReportAllErrors) {}

export class TransformationOrderCreated extends Schema.Class<TransformationOrderCreated>("TransformationOrderCreated")({
  transformationOrderId: OrderIdRef
}) {}

export class TransformationOrder extends Schema.Class<TransformationOrder>("TransformationOrder")({
  transformationOrderId: OrderIdRef,
  currentState: OrderState,
  format: Schema.String,
  /** The (first) result document, once PROCESSED. */
  transformationResultDocumentID: Schema.NullOr(DocumentIdRef),
  /** Every result document, one per transformation detail, in the request's order (a split has several). */
  transformationResultDocumentIDs: Schema.Array(DocumentIdRef),
  queuedDate: Schema.String,
  processedDate: Schema.NullOr(Schema.String),
  processingTime: Schema.NullOr(Schema.Int),
  errorMessage: Schema.NullOr(Schema.String)
}) {}
