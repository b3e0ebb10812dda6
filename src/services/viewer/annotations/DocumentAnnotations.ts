/**
 * The annotations routes (docs/viewer.md "The browser viewer's JSON routes"): a document's
 * annotations listed, created, changed and deleted in whichever store keeps them
 * (AnnotationStores.ts), and its annotation policy. The policy is enforced here, not only by the
 * browser: a document whose policy says `canCreateAnnotations: false` refuses every change (403).
 * In a deployment whose sessions have users (validateToken), what a request adds is written under
 * the session's user and what it changes keeps its author, whatever the body says.
 */
import { Effect, Option } from "effect"
import { AnnotationReply } from "../../../schemas/broker/Annotations.ts"
import {
  type AnnotationIdList,
  type ChangedAnnotations,
  ViewerAnnotation,
  ViewerAnnotations
} from "../../../schemas/viewer/ViewerAnnotation.ts"
import { AnnotationsReadOnly } from "../../../schemas/viewer/ViewerErrors.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"
import { annotationStoreOf, newAnnotationId } from "./AnnotationStores.ts"

/**
 * The annotations as a request writes them: each new reply (one without an ID) given one, so that
 * a later change can tell it from the replies added then; and, in a deployment whose sessions have
 * users, by `user`. What the request adds is the user's, what was kept keeps its author: a new
 * annotation (POST, whatever its ID: a client may name its own) and a reply `kept` does not hold
 * are the user's; a changed annotation and its kept replies keep the creator `kept` gives (the
 * user's when it had none). Without a user, the body says who wrote what.
 */
const written = (
  annotations: ReadonlyArray<ViewerAnnotation>,
  user: Option.Option<string>,
  kept: ReadonlyMap<string, ViewerAnnotation> = new Map()
) =>
  annotations.map((a) => {
    const before = a.id === undefined ? undefined : kept.get(a.id)
    const keptReplies = new Map(
      (before?.replies ?? []).flatMap((r) => (r.id === undefined ? [] : [[r.id, r] as const]))
    )
    const authored = <A extends { readonly creator?: string | undefined }>(was: A | undefined) =>
      Option.match(user, { onNone: () => ({}), onSome: (creator) => ({ creator: was?.creator ?? creator }) })
    return new ViewerAnnotation({
      ...a,
      ...authored(before),
      ...(a.replies === undefined ? {} : {
        replies: a.replies.map((r) =>
          new AnnotationReply({
            ...r,
            id: r.id ?? newAnnotationId(),
            ...authored(r.id === undefined ? undefined : keptReplies.get(r.id))
          })
        )
      })
    })
  })

export class DocumentAnnotations extends Effect.Service<DocumentAnnotations>()("docstack/viewer/DocumentAnnotations", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess

    const policyOf = (client: BrokerClient, documentId: string) =>
      client.annotations.policy({ urlParams: { documentId } })

    /** A change to the annotations of `viewerId`, once its policy allows changes, in its store. */
    const changing = <A, E>(
      viewerId: string,
      change: (store: Effect.Effect.Success<ReturnType<typeof annotationStoreOf>>) => Effect.Effect<A, E>
    ) =>
      access.onDocument(viewerId, (client, documentId) =>
        Effect.gen(function*() {
          const policy = yield* policyOf(client, documentId)
          if (!policy.canCreateAnnotations) {
            return yield* new AnnotationsReadOnly({
              documentId: viewerId,
              message:
                `The annotations of ${viewerId} cannot be changed: its annotation policy says canCreateAnnotations false`
            })
          }
          return yield* change(yield* annotationStoreOf(client, documentId))
        }))

    return {
      list: Effect.fn("DocumentAnnotations.list")((viewerId: string) =>
        access.onDocument(
          viewerId,
          (client, documentId) => Effect.flatMap(annotationStoreOf(client, documentId), (store) => store.list)
        )
      ),

      /** New annotations, answered as kept (IDs, dates, author), in the body's order. */
      create: Effect.fn("DocumentAnnotations.create")(
        (viewerId: string, body: ViewerAnnotations, user: Option.Option<string>) =>
          changing(viewerId, (store) =>
            Effect.map(
              store.create(written(body.annotations, user)),
              (annotations) => new ViewerAnnotations({ annotations })
            ))
      ),

      /** Annotations replaced, each named by its ID, answered as kept. */
      update: Effect.fn("DocumentAnnotations.update")(
        (viewerId: string, body: ChangedAnnotations, user: Option.Option<string>) =>
          changing(viewerId, (store) =>
            Effect.gen(function*() {
              // Who wrote what is kept: asked only where sessions have users.
              const kept = Option.isNone(user) ? undefined : yield* store.find(body.annotations.map((a) => a.id!))
              const annotations = written(body.annotations, user, kept)
              return new ViewerAnnotations({ annotations: yield* store.update(annotations) })
            }))
      ),

      remove: Effect.fn("DocumentAnnotations.remove")((viewerId: string, body: AnnotationIdList) =>
        changing(viewerId, (store) => Effect.as(store.remove(body.ids), body))
      ),

      policy: Effect.fn("DocumentAnnotations.policy")((viewerId: string) => access.onDocument(viewerId, policyOf))
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
