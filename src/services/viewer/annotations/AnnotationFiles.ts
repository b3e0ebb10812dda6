/**
 * servletXFDFAnnotations: a document's annotations as an XFDF or FDF file, and such a file applied
 * to a document (docs/viewer.md "Annotation files").
 *
 * The broker does the work: it exports XFDF, converts FDF ↔ XFDF and imports either file with the
 * real geometry of the document's pages (POST /documents/{id}/file/annotations). The viewer only
 * passes the bytes along.
 */
import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"

export type AnnotationFileType = "XFDF" | "FDF"

export const CONTENT_TYPES: Readonly<Record<AnnotationFileType, string>> = {
  XFDF: "application/vnd.adobe.xfdf",
  FDF: "application/vnd.fdf"
}

/**
 * A document without annotations exports as an XFDF file with an empty `annots`, not a 404: the
 * file the broker writes for no annotations.
 */
const EMPTY_XFDF = new TextEncoder().encode(
  `<?xml version="1.0" encoding="UTF-8"?>\n<xfdf xmlns="http://ns.adobe.com/xfdf/" xml:space="preserve">\n` +
    `<annots>\n</annots>\n</xfdf>\n`
)

export class AnnotationFiles extends Effect.Service<AnnotationFiles>()("docstack/viewer/AnnotationFiles", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess
    const fs = yield* FileSystem.FileSystem

    return {
      /** The document's annotations as `type`: the broker's XFDF export, converted by it to FDF. */
      export: Effect.fn("AnnotationFiles.export")(function*(viewerId: string, type: AnnotationFileType) {
        return yield* access.onDocument(
          viewerId,
          (client, documentId) =>
            client.documents.annotationsFile({ path: { documentId } }).pipe(
              Effect.catchTag("AnnotationNotFound", () => Effect.succeed(EMPTY_XFDF)),
              Effect.flatMap((xfdf) =>
                type === "XFDF"
                  ? Effect.succeed(xfdf)
                  : client.annotations.convert({
                    urlParams: { sourceType: "XFDF", targetType: "FDF", documentId },
                    headers: { accept: CONTENT_TYPES.FDF },
                    payload: xfdf
                  })
              )
            )
        )
      }),

      /**
       * Applies the XFDF or FDF file at `path` to the document; the broker tells them apart, replaces
       * the annotations the file names by ID, adds the others, and writes nothing if one is wrong.
       */
      import: Effect.fn("AnnotationFiles.import")(function*(viewerId: string, path: string) {
        const bytes = yield* fs.readFile(path).pipe(Effect.orDie)
        if (bytes.byteLength === 0) return yield* new InvalidRequest({ message: "The file part is empty" })
        yield* access.onDocument(
          viewerId,
          (client, documentId) => client.documents.importAnnotationsFile({ path: { documentId }, payload: bytes })
        )
      })
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
