/**
 * A broker's transformation order run to its end: the viewer builds merged documents (a merge, a
 * comparison result, a copy of a document holding its provider's annotations) from broker calls
 * only, a transformation order being the broker's way of making one PDF from the pages of others
 * (docs/transformations.md).
 */
import { Effect } from "effect"
import { DocumentProcessingFailed } from "../../../schemas/broker/Document.ts"
import type { TransformationRequest } from "../../../schemas/broker/Transformations.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"

/** How long one wait asks the broker to hold the answer (it answers as soon as the order ends). */
const WAIT_MS = 60_000

/** Queues `request` on `client`'s broker: the order's ID. */
export const queue = (client: BrokerClient, request: TransformationRequest) =>
  client.transformations.request({ payload: request }).pipe(
    Effect.map((created) => created.transformationOrderId.id),
    // Declared for the orders' group as a whole; queuing one never meets it.
    Effect.catchTag("OrderNotFound", (error) => Effect.die(error))
  )

/**
 * Waits until the order `orderId` is processed: its result documents' broker IDs, one per
 * transformation detail. A failed order is a DocumentProcessingFailed naming its error.
 */
export const processed = (client: BrokerClient, orderId: string) =>
  Effect.gen(function*() {
    const failed = (message: string) => new DocumentProcessingFailed({ documentId: orderId, message })
    const order = yield* client.transformations.get({
      path: { transformationOrderId: orderId },
      urlParams: { timeoutMs: WAIT_MS }
    }).pipe(
      Effect.repeat({ until: (o) => o.currentState === "PROCESSED" || o.currentState === "FAILED" }),
      // Removed by someone else while it ran.
      Effect.catchTag("OrderNotFound", () => Effect.fail(failed(`The transformation order ${orderId} vanished`)))
    )
    if (order.currentState === "FAILED" || order.transformationResultDocumentIDs.length === 0) {
      return yield* failed(`The transformation order ${orderId} failed: ${order.errorMessage ?? "no reason given"}`)
    }
    return order.transformationResultDocumentIDs.map((ref) => ref.id)
  })

/**
 * Queues `request` on `client`'s broker and waits until it is processed: the result document's
 * broker ID. The order itself is removed once done (its result stays: a document of its own).
 */
export const transform = (client: BrokerClient, request: TransformationRequest) =>
  Effect.gen(function*() {
    const orderId = yield* queue(client, request)
    const results = yield* processed(client, orderId).pipe(
      // Only the order goes: its result is a document of its own.
      Effect.ensuring(client.transformations.remove({ path: { transformationOrderId: orderId } }).pipe(Effect.ignore))
    )
    return results[0]!
  })
