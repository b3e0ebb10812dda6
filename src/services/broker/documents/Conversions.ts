/**
 * Conversion orders as the API shows them: accepted for an existing document, listed, polled,
 * cancelled. The work itself is Documents.convert, run by the order workers.
 */
import { Effect } from "effect"
import { DocumentIdRef } from "../../../schemas/broker/Document.ts"
import { ConversionOrder, ConversionOrderCreated, OrderIdRef } from "../../../schemas/broker/Orders.ts"
import { Documents } from "./Documents.ts"
import { type OrderRecord, Orders } from "../orders/Orders.ts"

const toConversionOrder = (order: OrderRecord, withQueuedTime: boolean) =>
  new ConversionOrder({
    conversionOrderId: new OrderIdRef({ id: order.id }),
    documentId: new DocumentIdRef({ id: order.documentId ?? "" }),
    currentState: order.state,
    format: order.format ?? "pdf",
    queuedDate: order.queuedDate,
    processedDate: order.processedDate,
    processingTime: order.processingMs === null ? null : Math.round(order.processingMs),
    ...(withQueuedTime ? { queuedTime: Math.round(order.queuedMs) } : {}),
    errorMessage: order.errorMessage
  })

export class Conversions extends Effect.Service<Conversions>()("docstack/Conversions", {
  effect: Effect.gen(function*() {
    const documents = yield* Documents
    const orders = yield* Orders

    return {
      request: Effect.fn("Conversions.request")(function*(documentId: string, format: "pdf" | "rendered") {
        yield* documents.check(documentId)
        const id = yield* orders.submit({ kind: "conversion", documentId, format })
        return new ConversionOrderCreated({ conversionOrderId: new OrderIdRef({ id }) })
      }),

      list: orders.list("conversion").pipe(Effect.map((list) => list.map((order) => toConversionOrder(order, false)))),

      get: Effect.fn("Conversions.get")((id: string) => orders.existing("conversion", id).pipe(Effect.map((order) => toConversionOrder(order, true)))),

      remove: Effect.fn("Conversions.remove")((id: string) => orders.removeOne("conversion", id)),

      removeAll: orders.removeAll("conversion"),

      forDocument: Effect.fn("Conversions.forDocument")(function*(documentId: string) {
        yield* documents.check(documentId)
        return (yield* orders.forDocument("conversion", documentId)).map((order) => new OrderIdRef({ id: order.id }))
      })
    }
  })
}) {}
