/**
 * Orders the browser viewer queues on a broker and polls (docs/viewer.md "The browser viewer's JSON
 * routes"): a transformation (pages rearranged, extracted, merged, redactions applied) and an image
 * comparison. Page numbers are 0-based.
 */
import { Schema } from "effect"
import { DocumentTitle, ReportAllErrors } from "../broker/Document.ts"
import { OrderState } from "../broker/Orders.ts"
import { IntegerParam, Required } from "./Servlets.ts"

const PageIndex = Schema.Int.pipe(Schema.nonNegative({ message: () => "pages are 0-based page numbers" }))

/** Pages `from` to `to` of a part, both included. */
export const PageSpan = Schema.Struct({ from: PageIndex, to: PageIndex }).pipe(
  Schema.filter((span) => span.from <= span.to || `from ${span.from} is after to ${span.to}`)
)

export class TransformationPart extends Schema.Class<TransformationPart>("TransformationPart")({
  /** The document, by the viewer ID the browser holds. */
  uuid: Schema.NonEmptyString.annotations({ message: () => "uuid is required: the part's document" }),
  /** Its ranges, in the order listed (a page may be taken twice); absent or empty: every page. */
  pages: Schema.optional(Schema.Array(PageSpan))
}) {}

/** POST transformation: one result document made of the parts' pages, in order. */
export class TransformationBody extends Schema.Class<TransformationBody>("TransformationBody")({
  title: Schema.optional(DocumentTitle),
  parts: Schema.Array(TransformationPart).pipe(
    Schema.minItems(1, { message: () => "parts needs at least one part: the pages of the result" })
  ),
  /** Apply the parts' redaction marks for real (else they are carried as marks). */
  redact: Schema.optional(Schema.Boolean)
}, ReportAllErrors) {}

export const OrderKind = Schema.Literal("transformation", "comparison").annotations({
  message: () => "kind must be transformation or comparison"
})
export type OrderKind = typeof OrderKind.Type

/** POST comparison: the left document's pages compared, as images, with the right's. */
export const ComparisonParams = Schema.Struct({
  left: Required("left"),
  right: Required("right"),
  /** Colour distance, in percent, under which two pixels count as the same (the broker's default when absent). */
  fuzz: Schema.optional(IntegerParam("fuzz (a percentage)", 0, 100))
})

/** The answer of POST transformation and POST comparison: the order, and the document to poll it with. */
export class OrderStarted extends Schema.Class<OrderStarted>("OrderStarted")({
  kind: OrderKind,
  orderId: Schema.String,
  /** The viewer ID of the document whose broker runs the order: `uuid` of GET and DELETE order. */
  uuid: Schema.String
}) {}

/** GET and DELETE order. */
export const OrderParams = Schema.Struct({
  uuid: Required("uuid"),
  kind: OrderKind,
  orderId: Required("orderId"),
  /** GET: how long to wait for the order to end before answering (the broker's long poll). */
  waitMs: Schema.optional(IntegerParam("waitMs (milliseconds)", 0, 30_000))
})

export class OrderStatus extends Schema.Class<OrderStatus>("OrderStatus")({
  kind: OrderKind,
  orderId: Schema.String,
  state: OrderState,
  /** Milliseconds the order waited before it ran (so far, while QUEUED). */
  queuedTime: Schema.NullOr(Schema.Int),
  /** Milliseconds it ran (so far, while PROCESSING); null while QUEUED. */
  processingTime: Schema.NullOr(Schema.Int),
  /** Why it FAILED. */
  error: Schema.NullOr(Schema.String),
  /** The (first) result document's viewer ID, once PROCESSED. */
  result: Schema.NullOr(Schema.String),
  /** Every result document's viewer ID, once PROCESSED. */
  results: Schema.Array(Schema.String)
}) {}
