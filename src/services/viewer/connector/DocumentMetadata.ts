/**
 * updateDocumentMetadataServlet: metadata properties sent to the provider holding the document,
 * through the broker (POST /documents/{id}/metadata), which answers all the provider then keeps
 * for it (docs/viewer.md "Document metadata").
 */
import { Effect } from "effect"
import type { ProviderMetadata } from "../../../schemas/provider/ProviderContract.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"

export class DocumentMetadata extends Effect.Service<DocumentMetadata>()("docstack/viewer/DocumentMetadata", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess
    return {
      /** The properties merged into the provider's (a null removes one); answers what it stores. */
      update: Effect.fn("DocumentMetadata.update")(function*(viewerId: string, values: ProviderMetadata) {
        return yield* access.onDocument(
          viewerId,
          (client, documentId) =>
            client.providers.updateMetadata({ path: { documentId }, urlParams: {}, payload: values }).pipe(
              // Declared by the broker's group for its annotation endpoints; this one never answers it.
              Effect.catchTag("AnnotationNotFound", Effect.die)
            )
        )
      })
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
