/**
 * Conversion orders: accepted for an existing document, listed, polled, cancelled; and the work
 * itself (`convert`), run by the order workers: a document's rendition built, or every part's of a
 * composite document.
 */
import { Effect } from "effect"
import { DocumentIdRef } from "../../../schemas/broker/Document.ts"
import { ConversionOrder, ConversionOrderCreated, OrderIdRef } from "../../../schemas/broker/Orders.ts"
import { isConvertible } from "../conversion/Converter.ts"
import { Renditions } from "../conversion/Renditions.ts"
import { type OrderRecord, Orders } from "../orders/Orders.ts"
import { DocumentResolver, processingFailed } from "./DocumentResolver.ts"

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
    const resolver = yield* DocumentResolver
    const renditions = yield* Renditions
    const orders = yield* Orders

    /** Converts what a conversion order names: a document, or every part of a composite one. */
    const convert = (documentId: string): Effect.Effect<{ readonly pages: number }, { readonly message: string }> =>
      Effect.gen(function*() {
        const target = yield* resolver.resolve(documentId)
        if (target.kind === "container") {
          const ids = yield* resolver.documentIdsUnder(target)
          const converted = yield* Effect.forEach(ids, convert)
          return { pages: converted.reduce((sum, c) => sum + c.pages, 0) }
        }
        const { doc, detected } = target
        if (doc.registeredPages) {
          return yield* processingFailed(doc.id)({
            message: "The document was registered from a layout: it has no file to convert"
          })
        }
        if (!doc.sourceHash || !detected || !isConvertible(detected)) {
          return yield* processingFailed(doc.id)({
            message: `A ${
              doc.format === "unknown" ? "file of unknown format" : `${doc.format} file`
            } cannot be converted to PDF`
          })
        }
        const rendition = yield* renditions.prepare(doc.sourceHash, detected)
        return { pages: rendition.pages.length }
      })

    return {
      convert,

      request: Effect.fn("Conversions.request")(function*(documentId: string, format: "pdf" | "rendered") {
        yield* resolver.check(documentId)
        const id = yield* orders.submit({ kind: "conversion", documentId, format })
        return new ConversionOrderCreated({ conversionOrderId: new OrderIdRef({ id }) })
      }),

      list: orders.list("conversion").pipe(Effect.map((list) => list.map((order) => toConversionOrder(order, false)))),

      get: Effect.fn("Conversions.get")((id: string) =>
        orders.existing("conversion", id).pipe(Effect.map((order) => toConversionOrder(order, true)))
      ),

      remove: Effect.fn("Conversions.remove")((id: string) => orders.removeOne("conversion", id)),

      removeAll: orders.removeAll("conversion"),

      forDocument: Effect.fn("Conversions.forDocument")(function*(documentId: string) {
        yield* resolver.check(documentId)
        return (yield* orders.forDocument("conversion", documentId)).map((order) => new OrderIdRef({ id: order.id }))
      })
    }
  }),
  dependencies: [DocumentResolver.Default, Renditions.Default, Orders.Default]
}) {}
