/**
 * mergeDocumentsServlet (docs/viewer.md "Merging"): the documents its `url`s name, their pages one
 * after the other in one new PDF, made by a transformation order on one broker. Every source is
 * opened through that broker's client, so all of them are where the order runs.
 */
import { Effect } from "effect"
import { type DocumentNotFound, InvalidRequest } from "../../../schemas/broker/Document.ts"
import {
  TransformationDetail,
  TransformationElement,
  TransformationRequest
} from "../../../schemas/broker/Transformations.ts"
import { MergeResult } from "../../../schemas/viewer/Servlets.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"
import { DocumentAccess } from "./DocumentAccess.ts"
import { type ExternalReference, mergeReference, openOn } from "./DocumentReferences.ts"
import { transform } from "./TransformationOrders.ts"

/** How many sources are opened at once. */
const OPEN_CONCURRENCY = 4

/** A source once parsed: a document already known (its broker ID), or one to open. */
type Source = { readonly _tag: "Known"; readonly brokerId: string } | ExternalReference

export class DocumentMerge extends Effect.Service<DocumentMerge>()("docstack/viewer/DocumentMerge", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess

    /** Every `url` checked (and every viewer ID decoded) before any broker is called. */
    const sourcesOf = (urls: ReadonlyArray<string>) =>
      urls.length === 0
        ? Effect.fail(new InvalidRequest({ message: "url is required: one for each document to merge" }))
        : Effect.forEach(urls, (url) =>
          Effect.flatMap(mergeReference(url), (reference): Effect.Effect<Source, InvalidRequest | DocumentNotFound> =>
            reference._tag === "ViewerDocument"
              ? Effect.map(access.brokerId(reference.viewerId), (brokerId) => ({ _tag: "Known", brokerId }))
              : Effect.succeed(reference)))

    const mergeOn = (client: BrokerClient, sources: ReadonlyArray<Source>) =>
      Effect.gen(function*() {
        const ids = yield* Effect.forEach(
          sources,
          (source) => (source._tag === "Known" ? Effect.succeed(source.brokerId) : openOn(client, source)),
          { concurrency: OPEN_CONCURRENCY }
        )
        const resultId = yield* transform(
          client,
          new TransformationRequest({
            format: "pdf",
            transformationDetails: [
              new TransformationDetail({
                transformationElements: ids.map((documentId) => new TransformationElement({ documentId }))
              })
            ]
          })
        )
        const layout = yield* client.documents.layout({ path: { documentId: resultId } })
        return { resultId, nbPages: "pageDimensionsList" in layout ? layout.pageDimensionsList.length : 0 }
      })

    return {
      /** The merged document's broker ID (for the session) and the servlet's answer. */
      merge: (urls: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const sources = yield* sourcesOf(urls)
          const { answer, brokerId, viewerId } = yield* access.create(
            (client) => mergeOn(client, sources),
            (merged) => merged.resultId
          )
          return { brokerId, result: new MergeResult({ uuid: viewerId, nbPages: String(answer.nbPages) }) }
        })
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
