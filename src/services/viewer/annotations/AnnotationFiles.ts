/**
 * A document's annotations in files (docs/viewer.md "Annotation files", "Uploads and downloads"):
 * servletXFDFAnnotations' XFDF or FDF export and import, and downloadDocumentWithAnnotations' PDF
 * with them drawn in or as annotation objects.
 *
 * The broker does the work: it exports XFDF, converts FDF ↔ XFDF, imports either file with the
 * real geometry of the document's pages (POST /documents/{id}/file/annotations) and writes its
 * annotations into a PDF. It knows only the annotations it keeps, though: for a document whose
 * provider keeps them, the viewer makes a copy of the document that holds them (below).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Option } from "effect"
import { Annotations } from "../../../schemas/broker/Annotations.ts"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import {
  TransformationDetail,
  TransformationElement,
  TransformationRequest
} from "../../../schemas/broker/Transformations.ts"
import { ViewerAnnotation } from "../../../schemas/viewer/ViewerAnnotation.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"
import { downloadedFile } from "../documents/DownloadedFile.ts"
import { transform } from "../documents/TransformationOrders.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"
import { annotationStoreOf, toBroker } from "./AnnotationStores.ts"

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

/**
 * `use` run on a copy of the document (a transformation of every page, titled as it: the same
 * pages' geometry), deleted after use.
 */
const onCopy = <A, E>(client: BrokerClient, documentId: string, use: (copy: string) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const copy = yield* transform(
      client,
      new TransformationRequest({
        format: "pdf",
        transformationDetails: [
          new TransformationDetail({ transformationElements: [new TransformationElement({ documentId })] })
        ]
      })
    )
    return yield* use(copy).pipe(
      Effect.ensuring(client.documents.remove({ path: { documentId: copy } }).pipe(Effect.ignore))
    )
  })

/**
 * `use` run on a document of the broker that holds `documentId`'s annotations as its own: the
 * document itself when the broker keeps them; when its provider keeps them, a copy of it given the
 * provider's annotations. Given to the copy's store, not written by the transformation, so that
 * redaction marks stay marks (a transformation applies them): an XFDF export shows them, a PDF
 * download applies them, as for the broker's own documents. The copy names them by IDs of its own.
 */
const holdingAnnotations = <A, E>(
  client: BrokerClient,
  documentId: string,
  use: (holder: string) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const store = yield* annotationStoreOf(client, documentId)
    if (store.store === "broker") return yield* use(documentId)
    const { annotations } = yield* store.list
    return yield* onCopy(client, documentId, (copy) => {
      const given = annotations.length === 0 ? Effect.void : client.annotations.create({
        urlParams: { documentId: copy },
        payload: new Annotations({ annotations: annotations.map(({ id: _, ...a }) => toBroker({ ...a })) })
      }).pipe(
        // Declared for the annotations' group as a whole (an unknown ID); a creation never meets it.
        Effect.catchTag("AnnotationNotFound", (error) => Effect.die(error))
      )
      return Effect.zipRight(given, use(copy))
    })
  })

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
            holdingAnnotations(
              client,
              documentId,
              (holder) =>
                client.documents.annotationsFile({ path: { documentId: holder } }).pipe(
                  Effect.catchTag("AnnotationNotFound", () => Effect.succeed(EMPTY_XFDF)),
                  Effect.flatMap((xfdf) =>
                    type === "XFDF"
                      ? Effect.succeed(xfdf)
                      : client.annotations.convert({
                        urlParams: { sourceType: "XFDF", targetType: "FDF", documentId: holder },
                        headers: { accept: CONTENT_TYPES.FDF },
                        payload: xfdf
                      })
                  )
                )
            )
        )
      }),

      /**
       * Applies the XFDF or FDF file at `path` to the document; the broker tells them apart, replaces
       * the annotations the file names by ID, adds the others, and writes nothing if one is wrong.
       * A document whose provider keeps its annotations: the broker reads the file on a copy of the
       * document (the pages' real geometry), and every annotation it read is added at the provider,
       * which names them (so none replaces one of the provider's).
       */
      import: Effect.fn("AnnotationFiles.import")(function*(viewerId: string, path: string) {
        const bytes = yield* fs.readFile(path).pipe(Effect.orDie)
        if (bytes.byteLength === 0) return yield* new InvalidRequest({ message: "The file part is empty" })
        yield* access.onDocument(viewerId, (client, documentId) =>
          Effect.gen(function*() {
            const store = yield* annotationStoreOf(client, documentId)
            if (store.store === "broker") {
              return yield* client.documents.importAnnotationsFile({ path: { documentId }, payload: bytes })
            }
            const read = yield* onCopy(client, documentId, (copy) =>
              Effect.gen(function*() {
                const written = yield* client.documents.importAnnotationsFile({
                  path: { documentId: copy },
                  payload: bytes
                })
                const found = yield* (yield* annotationStoreOf(client, copy)).find(written.map(({ id }) => id))
                return written.flatMap(({ id }) => Option.toArray(Option.fromNullable(found.get(id))))
              }))
            return yield* store.create(read.map(({ id: _, ...a }) => new ViewerAnnotation(a)))
          }))
      }),

      /** downloadDocumentWithAnnotations: the PDF with them drawn in (flatten) or as annotation objects (embed). */
      pdf: Effect.fn("AnnotationFiles.pdf")(function*(
        operation: "renderAnnotations" | "renderFDFAnnotations",
        uuid: string | undefined,
        sessionDocument: Option.Option<string>
      ) {
        return yield* access.onChosen(
          uuid,
          sessionDocument,
          (client, documentId) =>
            holdingAnnotations(client, documentId, (holder) =>
              Effect.map(
                client.documents.file({
                  path: { documentId: holder },
                  urlParams: { format: "pdf", annotations: operation === "renderAnnotations" ? "flatten" : "embed" },
                  withResponse: true
                }),
                ([bytes, response]) => downloadedFile(bytes, response)
              ))
        )
      })
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
