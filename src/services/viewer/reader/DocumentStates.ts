/**
 * documentState: whether a document can be shown, is being converted or has failed, from the
 * broker's conversion orders for it (docs/viewer.md "The browser viewer's JSON routes"), so that a
 * browser can explain a wait or a failure. It never waits: each broker call answers at once.
 */
import { Effect, Option } from "effect"
import type { ConversionOrder } from "../../../schemas/broker/Orders.ts"
import { ConversionProgress, DocumentState, type FailureReason } from "../../../schemas/viewer/Reader.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"
import { pageCountIn } from "../documents/PageCount.ts"

/**
 * The broker's words for a file protected by a password: a PDF ("The PDF is protected by a
 * password"), an office file or archive ("… is password-protected"). The broker carries no reason
 * code for it, in an order's errorMessage nor in DocumentProcessingFailed, so the words are read
 * here, in this one place; test/viewer/reader.test.ts checks them against a real broker.
 */
const PASSWORD_WORDING = /protected by a password|password-protected/i

export const failureReason = (message: string): FailureReason | null =>
  PASSWORD_WORDING.test(message) ? "password" : null

const ready = new DocumentState({ state: "ready", conversion: null, message: null, reason: null })

const failed = (message: string, conversion: ConversionProgress | null) =>
  new DocumentState({ state: "failed", conversion, message, reason: failureReason(message) })

const stateOf = (order: ConversionOrder): DocumentState => {
  const conversion = new ConversionProgress({
    currentState: order.currentState,
    ...(order.queuedTime === undefined ? {} : { queuedTime: order.queuedTime }),
    ...(order.processingTime === null ? {} : { processingTime: order.processingTime }),
    errorMessage: order.errorMessage
  })
  switch (order.currentState) {
    case "QUEUED":
    case "PROCESSING":
      return new DocumentState({ state: "converting", conversion, message: null, reason: null })
    case "PROCESSED":
      return new DocumentState({ state: "ready", conversion, message: null, reason: null })
    case "FAILED":
      return failed(order.errorMessage ?? "The conversion failed", conversion)
  }
}

export class DocumentStates extends Effect.Service<DocumentStates>()("docstack/viewer/DocumentStates", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess
    return {
      state: Effect.fn("DocumentStates.state")((viewerId: string) =>
        access.onDocument(viewerId, (client, documentId) =>
          Effect.gen(function*() {
            const orders = yield* client.documents.conversions({ path: { documentId } })
            const latest = orders.at(-1)
            const order = latest === undefined ? Option.none() : yield* client.conversions.get({
              path: { conversionOrderId: latest.id }
            }).pipe(
              Effect.asSome,
              // Cancelled and removed between the two calls: as if there had been none.
              Effect.catchTag("OrderNotFound", () => Effect.succeedNone)
            )
            if (Option.isSome(order)) return stateOf(order.value)
            // No order: the document needs none (a PDF, an image, a container), has its pages from a
            // registered layout, will be converted when its pages are first asked for, or cannot be shown.
            const metadata = yield* client.documents.metadata({ path: { documentId } })
            return metadata.renderedFormat === "pdf" || Option.isSome(pageCountIn(metadata.documentMetadata))
              ? ready
              : failed(`The ${metadata.format} file of this document cannot be shown as pages`, null)
          }).pipe(
            // The document cannot even be resolved: a part whose file could not be fetched or read.
            Effect.catchTag("DocumentProcessingFailed", (error) => Effect.succeed(failed(error.message, null)))
          ))
      )
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
