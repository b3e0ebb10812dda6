/**
 * Asynchronous orders: conversion order records and requests, and their errors.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"
import { DocumentIdRef } from "./Document.ts"

export const OrderState = Schema.Literal("QUEUED", "PROCESSING", "PROCESSED", "FAILED")
export type OrderState = typeof OrderState.Type

/** The `{id}` of an order, as every order endpoint answers it. */
export class OrderIdRef extends Schema.Class<OrderIdRef>("OrderIdRef")({ id: Schema.String }) {}

/** Formats a conversion order can produce: the PDF rendition, under either of its names. */
export const ConversionFormat = Schema.Literal("pdf", "rendered").annotations({
  message: () => "format must be 'pdf' (or 'rendered', the same PDF rendition)"
})

/** The spec's DocumentId object in a body; a bare string is accepted too. Part IDs may use '/' or '@' between indices. */
export const DocumentIdInBody = Schema.transform(
  Schema.Union(Schema.Struct({ id: Schema.NonEmptyString }), Schema.NonEmptyString),
  Schema.String,
  {
    strict: true,
    decode: (ref) => (typeof ref === "string" ? ref : ref.id).replaceAll("@", "/"),
    encode: (id) => ({ id })
  }
)

export class ConversionRequest extends Schema.Class<ConversionRequest>("ConversionRequest")({
  documentId: DocumentIdInBody,
  format: ConversionFormat
}) {}

export class ConversionOrderCreated extends Schema.Class<ConversionOrderCreated>("ConversionOrderCreated")({
  conversionOrderId: OrderIdRef
}) {}

export class ConversionOrder extends Schema.Class<ConversionOrder>("ConversionOrder")({
  conversionOrderId: OrderIdRef,
  documentId: DocumentIdRef,
  currentState: OrderState,
  format: Schema.String,
  /** ISO 8601, UTC. */
  queuedDate: Schema.String,
  processedDate: Schema.NullOr(Schema.String),
  /** Milliseconds from the start of processing to its end (so far, while PROCESSING); null while QUEUED. */
  processingTime: Schema.NullOr(Schema.Int),
  /** Milliseconds spent waiting before processing started (so far, while QUEUED); only on GET of one order. */
  queuedTime: Schema.optional(Schema.Int),
  errorMessage: Schema.NullOr(Schema.String)
}) {}

export class OrderNotFound extends Schema.TaggedError<OrderNotFound>()(
  "OrderNotFound",
  { orderId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  static of(orderId: string) {
    return new OrderNotFound({ orderId, message: `No order with ID '${orderId}'` })
  }
}

/** `timeoutMs` of the order polls: how long to wait for the order to finish before answering its state. */
export const OrderWaitParams = Schema.Struct({
  timeoutMs: Schema.optional(
    Schema.NumberFromString.pipe(
      Schema.int(),
      Schema.between(0, 600_000, { message: () => "timeoutMs is a number of milliseconds from 0 to 600000" })
    )
  )
})
