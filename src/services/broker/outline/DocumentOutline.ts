/**
 * A document's bookmarks and named destinations as the broker serves them, kept in the derived cache.
 */
import { Effect } from "effect"
import { Bookmarks, Destinations } from "../../../schemas/broker/Content.ts"
import { DocumentIdRef } from "../../../schemas/broker/Document.ts"
import { DerivedCache } from "../../common/DerivedCache.ts"
import { DocumentResolver, processingFailed } from "../documents/DocumentResolver.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import { ReadDestinations, ReadOutline } from "./OutlineRequests.ts"

export class DocumentOutline extends Effect.Service<DocumentOutline>()("docstack/DocumentOutline", {
  effect: Effect.gen(function*() {
    const resolver = yield* DocumentResolver
    const derived = yield* DerivedCache
    const engine = yield* PdfEngine

    return {
      bookmarks: Effect.fn("DocumentOutline.bookmarks")(function*(documentId: string) {
        const doc = yield* resolver.ready(documentId)
        if (!doc.renditionHash) return new Bookmarks({ bookmarks: [] })
        const pdf = yield* resolver.pdfOf(doc)
        return yield* derived.json(
          pdf.hash,
          "bookmarks.json",
          Bookmarks,
          engine.run(new ReadOutline(pdf)).pipe(
            Effect.map((bookmarks) => new Bookmarks({ bookmarks })),
            Effect.mapError(processingFailed(doc.id))
          )
        )
      }),

      destinations: Effect.fn("DocumentOutline.destinations")(function*(documentId: string) {
        const doc = yield* resolver.ready(documentId)
        const ref = new DocumentIdRef({ id: doc.id })
        if (!doc.renditionHash) return new Destinations({ documentId: ref, namedDestinations: [] })
        const pdf = yield* resolver.pdfOf(doc)
        return yield* derived.json(
          pdf.hash,
          "destinations.json",
          Destinations,
          engine.run(new ReadDestinations(pdf)).pipe(
            Effect.map((namedDestinations) => new Destinations({ documentId: ref, namedDestinations })),
            Effect.mapError(processingFailed(doc.id))
          )
        )
      })
    }
  }),
  dependencies: [DocumentResolver.Default, DerivedCache.Default, PdfEngine.Default]
}) {}
