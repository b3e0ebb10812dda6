/**
 * A document's signatures as the broker serves them, verified by the engine on each request (the
 * trust store may have changed since).
 */
import { Effect } from "effect"
import { Signatures } from "../../../schemas/broker/Content.ts"
import { DocumentResolver, processingFailed } from "../documents/DocumentResolver.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import { VerifySignatures } from "./SignatureRequests.ts"

export class DocumentSignatures extends Effect.Service<DocumentSignatures>()("docstack/DocumentSignatures", {
  effect: Effect.gen(function*() {
    const resolver = yield* DocumentResolver
    const engine = yield* PdfEngine

    return {
      signatures: Effect.fn("DocumentSignatures.signatures")(function*(documentId: string) {
        const doc = yield* resolver.ready(documentId)
        if (!doc.renditionHash) return new Signatures({ signatures: [], wronglySigned: false, integrity: true })
        const pdf = yield* resolver.pdfOf(doc)
        return yield* engine.run(new VerifySignatures(pdf)).pipe(Effect.mapError(processingFailed(doc.id)))
      })
    }
  }),
  dependencies: [DocumentResolver.Default, PdfEngine.Default]
}) {}
