/**
 * POST /documents/{id}/file/annotations: an XFDF or FDF file applied to a document's annotations
 * (docs/annotations.md "Importing a file"). The file is in PDF user space; each annotation is placed
 * with the real geometry of its page (crop box origin, rotation), the one the broker reads the PDF's
 * own annotations with and writes its XFDF export with, so that an exported file comes back where
 * it was.
 */
import { Effect, type Stream } from "effect"
import { DocumentIdRef, InvalidRequest } from "../../../schemas/broker/Document.ts"
import { DocumentResolver } from "../documents/DocumentResolver.ts"
import { fromPdfAnnotation } from "./AnnotationModel.ts"
import { Annotations } from "./Annotations.ts"
import { parseFdf } from "./Fdf.ts"
import { parseXfdf } from "./Xfdf.ts"

/** An FDF file starts with its `%FDF-` header (ISO 32000-1 12.7.8); anything else is read as XFDF. */
const isFdf = (bytes: Uint8Array) =>
  // Past a UTF-8 byte order mark and white space, which some writers put first.
  Buffer.from(bytes.subarray(0, 1024)).toString("latin1").replace(/^\u00EF\u00BB\u00BF/, "").trimStart()
    .startsWith("%FDF-")

export class AnnotationImport extends Effect.Service<AnnotationImport>()("docstack/AnnotationImport", {
  effect: Effect.gen(function*() {
    const resolver = yield* DocumentResolver
    const annotations = yield* Annotations

    return {
      /**
       * Reads the file (told apart by content) and writes its annotations: one named by the ID of
       * one of the document's annotations replaces it, every other is added. Nothing is written
       * unless every annotation is on one of the document's pages and valid. Answers the IDs of the
       * annotations written, in the file's order.
       */
      importFile: Effect.fn("AnnotationImport.importFile")(function*(
        documentId: string,
        body: Stream.Stream<Uint8Array, InvalidRequest>
      ) {
        const target = yield* resolver.resolve(documentId)
        if (target.kind === "container") {
          return yield* new InvalidRequest({
            message:
              `'${documentId}' is a composite document, which has no pages of its own: send the file for one of its parts`
          })
        }
        const bytes = yield* annotations.readFile(body, "annotation")
        const fdf = isFdf(bytes)
        const read = yield* (fdf ? parseFdf(bytes) : parseXfdf(bytes)).pipe(
          Effect.mapError((e) =>
            new InvalidRequest({
              message: `The file is neither XFDF nor FDF (read as ${fdf ? "FDF" : "XFDF"}): ${e.message}`
            })
          )
        )
        const { pages } = yield* annotations.basisOf(documentId)
        const outside = [...new Set(read.filter((a) => a.page >= pages.length).map((a) => a.page))]
        if (outside.length > 0) {
          return yield* new InvalidRequest({
            message: `The document has pages 0 to ${pages.length - 1}; the file annotates page ${outside.join(", ")}`
          })
        }
        const ids = yield* annotations.replaceOrAdd(
          documentId,
          read.map((a) => fromPdfAnnotation(a, pages[a.page]!, documentId, "store"))
        )
        return ids.map((id) => new DocumentIdRef({ id }))
      })
    }
  }),
  dependencies: [DocumentResolver.Default, Annotations.Default]
}) {}
