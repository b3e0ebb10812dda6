/**
 * How every servlet reaches a document: the viewer's ID turned into the broker's (DocumentIds), the
 * call sent to the document's target (Brokers), and a new document's ID given out and its target
 * recorded. The servlets' services all go through here.
 */
import { Effect, Option } from "effect"
import { DocumentNotFound, type InvalidRequest } from "../../../schemas/broker/Document.ts"
import { PageNotFound, type RenditionUnavailable } from "../../../schemas/viewer/ViewerErrors.ts"
import { DocumentIds } from "../ids/DocumentIds.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"
import { type Answered, Brokers } from "../targets/Brokers.ts"

/**
 * A call about one page: the broker's 400 for a page that does not exist becomes the viewer
 * contract's 404.
 */
export const pageMustExist = (viewerId: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (error): error is E & InvalidRequest =>
      (error as { _tag?: unknown })._tag === "InvalidRequest" && (error as InvalidRequest).reason === "pageOutOfRange",
    (error) => Effect.fail(new PageNotFound({ documentId: viewerId, message: error.message }))
  )

export class DocumentAccess extends Effect.Service<DocumentAccess>()("docstack/viewer/DocumentAccess", {
  effect: Effect.gen(function*() {
    const ids = yield* DocumentIds
    const brokers = yield* Brokers

    /**
     * Records that a new document (`brokerId`) stays with `target`, the broker that made it, and
     * answers the viewer's ID for it.
     */
    const adopt = (brokerId: string, target: string) =>
      Effect.as(brokers.assign(brokerId, target), ids.encode(brokerId))

    const onBrokerDocument = <A, E>(
      brokerId: string,
      call: (client: BrokerClient, target: string) => Effect.Effect<A, E>
    ): Effect.Effect<A, Answered<E> | RenditionUnavailable> => brokers.forDocument(brokerId, call)

    return {
      ids,
      brokers,
      adopt,
      /** The broker's ID behind a viewer ID (400 when it is none of ours, 404 when it expired). */
      brokerId: ids.decode,
      /**
       * A call about the document the viewer ID names, on its target; `brokerId` is the broker's ID,
       * `target` the broker's URL (to `adopt` what the call makes there).
       */
      onDocument: <A, E>(
        viewerId: string,
        call: (client: BrokerClient, brokerId: string, target: string) => Effect.Effect<A, E>
      ): Effect.Effect<A, Answered<E> | InvalidRequest | DocumentNotFound | RenditionUnavailable> =>
        Effect.flatMap(
          ids.decode(viewerId),
          (brokerId) => brokers.forDocument(brokerId, (client, target) => call(client, brokerId, target))
        ),
      /** The same, by the broker's ID (a session's current document, a container's child). */
      onBrokerDocument,
      /**
       * A call about the document of a servlet whose document parameter is optional (docs/viewer.md
       * "The current document"): `uuid` when given, else the session's current document (404 when it
       * has none).
       */
      onChosen: <A, E>(
        uuid: string | undefined,
        sessionDocument: Option.Option<string>,
        call: (client: BrokerClient, brokerId: string) => Effect.Effect<A, E>
      ) =>
        Effect.flatMap(
          uuid !== undefined
            ? ids.decode(uuid)
            : Option.match(sessionDocument, {
              onSome: Effect.succeed,
              onNone: () =>
                Effect.fail(
                  new DocumentNotFound({
                    documentId: "",
                    message: "The session has no current document: open one first, or give uuid"
                  })
                )
            }),
          (brokerId) => onBrokerDocument(brokerId, (client) => call(client, brokerId))
        ),
      /**
       * A call that makes a document, on the target weather prefers; `documentIdOf` reads the new
       * document's broker ID from the answer. The document stays with that target; answers the
       * broker's ID and the viewer's.
       */
      create: <A, E>(
        call: (client: BrokerClient) => Effect.Effect<A, E>,
        documentIdOf: (answer: A) => string
      ) =>
        Effect.gen(function*() {
          const [answer, target] = yield* brokers.forNew((client) => call(client))
          const brokerId = documentIdOf(answer)
          return { brokerId, viewerId: yield* adopt(brokerId, target), answer }
        })
    }
  }),
  dependencies: [DocumentIds.Default, Brokers.Default]
}) {}
