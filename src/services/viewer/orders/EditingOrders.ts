/**
 * The orders the browser viewer queues and polls (docs/viewer.md "The browser viewer's JSON
 * routes"): a transformation of the pages of one or more documents, their annotations going with
 * their pages (TransformationPlan.ts), and the broker's image comparison, each queued on the broker
 * of its first document; their state, with their result documents' viewer IDs once processed; and
 * their cancellation.
 */
import { Clock, Effect } from "effect"
import { Annotations } from "../../../schemas/broker/Annotations.ts"
import { ComparisonRequest } from "../../../schemas/broker/Comparisons.ts"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import {
  PageRange,
  TransformationDetail,
  TransformationElement,
  TransformationRequest
} from "../../../schemas/broker/Transformations.ts"
import {
  type ComparisonParams,
  type OrderKind,
  type OrderParams,
  OrderStarted,
  OrderStatus,
  type TransformationBody
} from "../../../schemas/viewer/ViewerOrders.ts"
import { annotationStoreOf } from "../annotations/AnnotationStores.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"
import { pagedDocumentOf } from "../documents/PageCount.ts"
import { processed, queue } from "../documents/TransformationOrders.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"
import { planAnnotations, resultPages } from "./TransformationPlan.ts"

/** How many documents are asked about at once. */
const DOCUMENT_CONCURRENCY = 4

/** An order as both kinds have it, with its result documents' broker IDs. */
interface OrderRecord {
  readonly currentState: OrderStatus["state"]
  readonly queuedDate: string
  readonly processedDate: string | null
  readonly processingTime: number | null
  readonly errorMessage: string | null
  readonly results: ReadonlyArray<string>
}

/**
 * Milliseconds the order waited before it ran, from the broker's dates (with the viewer's clock
 * while it has not ended); null when a date does not read.
 */
const queuedTimeOf = (order: OrderRecord, now: number) => {
  const end = order.processedDate === null ? now : Date.parse(order.processedDate)
  const waited = end - Date.parse(order.queuedDate) - (order.processingTime ?? 0)
  return Number.isFinite(waited) ? Math.max(0, Math.round(waited)) : null
}

/** The order, `waitMs` at most for it to end. IDs from the browser go into a path: encoded. */
const orderOf = (
  client: BrokerClient,
  kind: OrderKind,
  orderId: string,
  waitMs: number | undefined
): Effect.Effect<OrderRecord, Effect.Effect.Error<ReturnType<BrokerClient["transformations"]["get"]>>> => {
  const urlParams = waitMs === undefined ? {} : { timeoutMs: waitMs }
  return kind === "transformation"
    ? Effect.map(
      client.transformations.get({ path: { transformationOrderId: encodeURIComponent(orderId) }, urlParams }),
      (order) => ({ ...order, results: order.transformationResultDocumentIDs.map((ref) => ref.id) })
    )
    : Effect.map(
      client.comparisons.get({ path: { comparisonOrderId: encodeURIComponent(orderId) }, urlParams }),
      (order) => ({ ...order, results: order.targetDocumentId === null ? [] : [order.targetDocumentId.id] })
    )
}

export class EditingOrders extends Effect.Service<EditingOrders>()("docstack/viewer/EditingOrders", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess

    /**
     * The metadata and page count of a document that an order on `client`'s broker takes (`what`
     * names it in messages, `beside` the document that chose the broker). That broker must find
     * it: brokers find each other's documents only when they share their storage, so a document
     * another broker keeps is a 400 saying so; one that none knows stays a 404.
     */
    const sourceOf = (client: BrokerClient, documentId: string, viewerId: string, what: string, beside: string) =>
      pagedDocumentOf(client, documentId, viewerId, "Name").pipe(
        Effect.catchTag(
          "DocumentNotFound",
          (notHere) =>
            access.onDocument(viewerId, (own, id) => own.documents.check({ path: { documentId: id } })).pipe(
              Effect.matchEffect({
                onFailure: () => Effect.fail(notHere),
                onSuccess: () =>
                  Effect.fail(
                    new InvalidRequest({
                      message:
                        `${what} (${viewerId}) is kept by another rendition target than ${beside}, and the two do not share their storage: an order takes documents of one broker`
                    })
                  )
              })
            )
        )
      )

    return {
      /** POST transformation: queued on the first part's broker; with redaction marks to keep as marks, answered once it ends. */
      transformation: Effect.fn("EditingOrders.transformation")(function*(body: TransformationBody) {
        const ids = yield* Effect.forEach(body.parts, (part) => access.brokerId(part.uuid))
        const first = body.parts[0]!.uuid
        return yield* access.onDocument(first, (client) =>
          Effect.gen(function*() {
            const distinct = [...new Set(ids)]
            const counts = new Map(
              yield* Effect.forEach(distinct, (id) => {
                const k = ids.indexOf(id)
                return Effect.map(
                  sourceOf(client, id, body.parts[k]!.uuid, `parts[${k}]`, "parts[0]"),
                  ({ pageCount }) => [id, pageCount] as const
                )
              }, { concurrency: DOCUMENT_CONCURRENCY })
            )
            for (const [k, part] of body.parts.entries()) {
              const count = counts.get(ids[k]!)!
              const past = part.pages?.find((span) => span.to >= count)
              if (past !== undefined) {
                return yield* new InvalidRequest({
                  message: `parts[${k}] (${part.uuid}): page ${past.to} does not exist: the document has pages 0 to ${
                    count - 1
                  }`
                })
              }
            }
            const annotationsOf = new Map(
              yield* Effect.forEach(
                distinct,
                (id) =>
                  Effect.flatMap(annotationStoreOf(client, id), (store) =>
                    Effect.map(store.list, (list) => [id, list.annotations] as const)),
                { concurrency: DOCUMENT_CONCURRENCY }
              )
            )
            const parts = body.parts.map((part, k) => ({ documentId: ids[k]!, pages: part.pages }))
            const pages = resultPages(parts, counts)
            const plan = planAnnotations(annotationsOf, pages, body.redact ?? false)
            const orderId = yield* queue(
              client,
              new TransformationRequest({
                format: "pdf",
                transformationDetails: [
                  new TransformationDetail({
                    ...(body.title === undefined ? {} : { documentTitle: body.title }),
                    transformationElements: parts.map(({ documentId, pages }) =>
                      new TransformationElement({
                        documentId,
                        ...(pages === undefined
                          ? {}
                          : {
                            pagesSelectionList: pages.map((s) =>
                              new PageRange({ minPage: s.from, maxPage: s.to })
                            )
                          })
                      })
                    )
                  })
                ],
                ...(plan.written.length === 0 ? {} : { annotations: new Annotations({ annotations: plan.written }) })
              })
            )
            if (plan.marks.length > 0) {
              // The marks go on the result, which exists once the order is processed. A failed order
              // has none: GET order tells why.
              const results = yield* processed(client, orderId).pipe(
                Effect.catchTag("DocumentProcessingFailed", () => Effect.succeed([]))
              )
              yield* Effect.forEach(results, (documentId) =>
                client.annotations.create({
                  urlParams: { documentId },
                  payload: new Annotations({ annotations: plan.marks })
                }).pipe(
                  // Declared for the annotations' group as a whole (an unknown ID); a creation never meets it.
                  Effect.catchTag("AnnotationNotFound", (error) => Effect.die(error))
                ))
            }
            return new OrderStarted({ kind: "transformation", orderId, uuid: first })
          }))
      }),

      /** POST comparison: the broker's image comparison, queued on the left document's broker. */
      comparison: Effect.fn("EditingOrders.comparison")(function*(params: typeof ComparisonParams.Type) {
        const rightId = yield* access.brokerId(params.right)
        return yield* access.onDocument(params.left, (client, leftId) =>
          Effect.gen(function*() {
            yield* sourceOf(client, rightId, params.right, "right", "left")
            const created = yield* client.comparisons.request({
              payload: new ComparisonRequest({
                leftDocumentId: leftId,
                rightDocumentId: rightId,
                ...(params.fuzz === undefined ? {} : { fuzz: params.fuzz })
              })
            })
            return new OrderStarted({ kind: "comparison", orderId: created.comparisonOrderId.id, uuid: params.left })
          }))
      }),

      /** GET order: its state; once PROCESSED, its results recorded on its broker and named by viewer IDs. */
      status: Effect.fn("EditingOrders.status")(function*(params: typeof OrderParams.Type) {
        const [order, target] = yield* access.onDocument(
          params.uuid,
          (client, _, target) =>
            Effect.map(orderOf(client, params.kind, params.orderId, params.waitMs), (order) => [order, target] as const)
        )
        const results = order.currentState === "PROCESSED"
          ? yield* Effect.forEach(order.results, (id) => access.adopt(id, target))
          : []
        return new OrderStatus({
          kind: params.kind,
          orderId: params.orderId,
          state: order.currentState,
          queuedTime: queuedTimeOf(order, yield* Clock.currentTimeMillis),
          processingTime: order.processingTime,
          error: order.errorMessage,
          result: results[0] ?? null,
          results
        })
      }),

      /** DELETE order: cancelled and removed; its result documents stay. */
      cancel: Effect.fn("EditingOrders.cancel")((params: typeof OrderParams.Type) =>
        access.onDocument(params.uuid, (client) =>
          params.kind === "transformation"
            ? client.transformations.remove({ path: { transformationOrderId: encodeURIComponent(params.orderId) } })
            : client.comparisons.remove({ path: { comparisonOrderId: encodeURIComponent(params.orderId) } }))
      )
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
