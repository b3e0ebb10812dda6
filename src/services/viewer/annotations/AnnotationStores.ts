/**
 * Where a document's annotations are kept, and how to reach them there through one broker's client
 * (docs/viewer.md "The browser viewer's JSON routes"):
 * - the broker (GET, PUT, POST, DELETE /annotation) for a document opened by upload or URL, which
 *   lists the PDF file's own annotations (`origin: "file"`) beside the ones it keeps;
 * - the provider of a document opened through one (its metadata's `documentMetadata` names it),
 *   through the broker's proxy (/documents/{id}/annotations), which keeps what it is given.
 * Either way annotations cross as the browser holds them (ViewerAnnotation).
 */
import { Effect, Either, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { Annotation, AnnotationIds, Annotations } from "../../../schemas/broker/Annotations.ts"
import { DocumentIdRef } from "../../../schemas/broker/Document.ts"
import { ProviderUnavailable } from "../../../schemas/broker/Providers.ts"
import { ViewerAnnotation, ViewerAnnotationList } from "../../../schemas/viewer/ViewerAnnotation.ts"
import { readableParseError } from "../../common/ReadableIssues.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"

/** How many of a provider's annotations are asked for at once. */
const PROVIDER_CONCURRENCY = 4

const ProviderField = Schema.parseJson(Schema.Struct({ provider: Schema.String }))

/** The provider a document was opened through (its metadata says), if any. */
const providerOf = (client: BrokerClient, documentId: string) =>
  Effect.map(
    client.documents.metadata({ path: { documentId } }),
    (metadata) =>
      Option.map(Schema.decodeUnknownOption(ProviderField)(metadata.documentMetadata), (fields) => fields.provider)
  )

/** An ID the viewer gives a new annotation of the broker's store, or a new reply: `v` and 16 base64url characters (96 random bits). */
export const newAnnotationId = () => `v${randomBytes(12).toString("base64url")}`

/** The broker's annotation as the browser holds it. */
export const toViewer = ({ documentId: _, id, ...fields }: Annotation) =>
  new ViewerAnnotation({ ...fields, ...(id === undefined ? {} : { id: id.id }) })

/** The browser's annotation as the broker takes it; `origin` is the broker's to say. */
export const toBroker = ({ id, origin: _, ...fields }: ViewerAnnotation, documentId?: string) =>
  new Annotation({
    ...fields,
    ...(id === undefined ? {} : { id: new DocumentIdRef({ id }) }),
    ...(documentId === undefined ? {} : { documentId: new DocumentIdRef({ id: documentId }) })
  })

const decodeAnnotation = Schema.decodeUnknownEither(ViewerAnnotation)

/** The broker's store: the viewer gives new annotations their IDs, so that it can read them back as kept. */
const brokerStore = (client: BrokerClient, documentId: string) => {
  const urlParams = { documentId }
  const listed = client.annotations.list({ urlParams }).pipe(
    Effect.map((list) => list.annotations),
    // Declared for the annotations' group as a whole (an unknown ID); a list never meets it.
    Effect.catchTag("AnnotationNotFound", (error) => Effect.die(error))
  )

  /** The annotations `ids` name, as the broker now keeps them (with their dates and flags), in that order. */
  const readBack = (ids: ReadonlyArray<string>) =>
    Effect.flatMap(listed, (annotations) => {
      const byId = new Map(annotations.flatMap((a) => (a.id === undefined ? [] : [[a.id.id, a] as const])))
      return Effect.forEach(ids, (id) => {
        const kept = byId.get(id)
        return kept === undefined
          ? Effect.dieMessage(`The broker does not list annotation ${id} of ${documentId} it was just given`)
          : Effect.succeed(toViewer(kept))
      })
    })

  return {
    store: "broker" as const,
    find: (ids: ReadonlyArray<string>) =>
      Effect.map(listed, (annotations) =>
        new Map(
          annotations.flatMap((
            a
          ) => (a.id !== undefined && ids.includes(a.id.id) ? [[a.id.id, toViewer(a)] as const] : []))
        )),
    list: Effect.map(
      listed,
      (annotations) => new ViewerAnnotationList({ annotations: annotations.map(toViewer), store: "broker", skipped: 0 })
    ),
    create: (annotations: ReadonlyArray<ViewerAnnotation>) => {
      const named = annotations.map((
        a
      ) => (a.id === undefined ? new ViewerAnnotation({ ...a, id: newAnnotationId() }) : a))
      return client.annotations.create({
        urlParams,
        payload: new Annotations({ annotations: named.map((a) => toBroker(a)) })
      }).pipe(Effect.zipRight(readBack(named.map((a) => a.id!))))
    },
    update: (annotations: ReadonlyArray<ViewerAnnotation>) =>
      client.annotations.update({
        urlParams,
        payload: new Annotations({ annotations: annotations.map((a) => toBroker(a)) })
      })
        .pipe(Effect.zipRight(readBack(annotations.map((a) => a.id!)))),
    remove: (ids: ReadonlyArray<string>) =>
      client.annotations.remove({
        urlParams,
        payload: new AnnotationIds({ annotations: ids.map((id) => ({ id: new DocumentIdRef({ id }) })) })
      })
  }
}

/**
 * A provider's store, one proxied call per annotation. The provider keeps what it is given: the
 * viewer dates a new or changed annotation that has no date, as the broker does for its own.
 */
const providerStore = (client: BrokerClient, documentId: string, provider: string) => {
  // Path segments are sent as given: an ID from a browser or a provider may hold any character.
  const annotationPath = (id: string) => ({ documentId, annotationId: encodeURIComponent(id) })
  const payloadOf = ({ id: _id, origin: _origin, ...fields }: ViewerAnnotation) =>
    Effect.orDie(Schema.encode(ViewerAnnotation)(new ViewerAnnotation(fields)))
  const dated = (a: ViewerAnnotation, creation: boolean) => {
    const now = new Date().toISOString()
    return new ViewerAnnotation({
      ...a,
      date: a.date ?? now,
      ...(creation ? { creationDate: a.creationDate ?? now } : {})
    })
  }
  /** What the provider answered for an annotation it was given: one the viewer cannot read is its failure. */
  const kept = (answer: unknown) =>
    Either.match(decodeAnnotation(answer), {
      onRight: Effect.succeed,
      onLeft: (error) =>
        Effect.fail(
          new ProviderUnavailable({
            provider,
            message: `The provider ${provider} answered an annotation the viewer cannot read: ${
              readableParseError(error)
            }`
          })
        )
    })

  /** The annotations `ids` name, each decoded or not; one deleted since it was listed is gone. */
  const fetched = (ids: ReadonlyArray<string>) =>
    Effect.map(
      Effect.forEach(
        ids,
        (id) =>
          client.providers.annotation({ path: annotationPath(id), urlParams: {} }).pipe(
            Effect.map((answer) => ({ id, decoded: decodeAnnotation(answer) })),
            Effect.asSome,
            Effect.catchTag("AnnotationNotFound", () => Effect.succeedNone)
          ),
        { concurrency: PROVIDER_CONCURRENCY }
      ),
      (answers) => answers.flatMap(Option.toArray)
    )

  return {
    store: "provider" as const,
    list: Effect.gen(function*() {
      const ids = yield* client.providers.annotationIds({ path: { documentId }, urlParams: {} }).pipe(
        // Declared for the providers' group as a whole; the list of IDs never meets it.
        Effect.catchTag("AnnotationNotFound", (error) => Effect.die(error))
      )
      const decoded = yield* fetched(ids.map(({ id }) => id))
      const unreadable = decoded.flatMap(({ decoded, id }) =>
        Either.isLeft(decoded) ? [`${id} (${readableParseError(decoded.left)})`] : []
      )
      if (unreadable.length > 0) {
        yield* Effect.logWarning(
          `${unreadable.length} annotations of ${documentId} kept by the provider ${provider} are not annotations the viewer shows, left out: ${
            unreadable.join("; ")
          }`
        )
      }
      return new ViewerAnnotationList({
        annotations: decoded.flatMap(({ decoded }) => Either.getRight(decoded).pipe(Option.toArray)),
        store: "provider",
        skipped: unreadable.length
      })
    }),
    find: (ids: ReadonlyArray<string>) =>
      Effect.map(
        fetched(ids),
        (found) =>
          new Map(found.flatMap(({ decoded, id }) =>
            Either.getRight(decoded).pipe(Option.map((a) => [id, a] as const), Option.toArray)
          ))
      ),
    // One after another: the provider keeps them in the order they come.
    create: (annotations: ReadonlyArray<ViewerAnnotation>) =>
      Effect.forEach(annotations, (a) =>
        payloadOf(dated(a, true)).pipe(
          Effect.flatMap((payload) =>
            client.providers.createAnnotation({ path: { documentId }, urlParams: {}, payload })
          ),
          Effect.flatMap(kept)
        )),
    update: (annotations: ReadonlyArray<ViewerAnnotation>) =>
      Effect.forEach(annotations, (a) =>
        payloadOf(dated(a, false)).pipe(
          Effect.flatMap((payload) =>
            client.providers.updateAnnotation({ path: annotationPath(a.id!), urlParams: {}, payload })
          ),
          Effect.flatMap(kept)
        )),
    remove: (ids: ReadonlyArray<string>) =>
      Effect.forEach(ids, (id) => client.providers.removeAnnotation({ path: annotationPath(id), urlParams: {} }), {
        discard: true
      })
  }
}

/** The store of a document's annotations, reached through `client`. */
export const annotationStoreOf = (client: BrokerClient, documentId: string) =>
  Effect.map(
    providerOf(client, documentId),
    (provider) =>
      Option.isSome(provider) ? providerStore(client, documentId, provider.value) : brokerStore(client, documentId)
  )
