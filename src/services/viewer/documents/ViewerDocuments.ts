/**
 * The document servlets but merge and comparison (docs/viewer.md "Uploads and downloads"): opening
 * a document by its connector-level ID, by upload or by reference; downloading it in its three
 * forms, as base64, or as a PDF with its annotations; evicting it. Each is one or two broker calls
 * through DocumentAccess.
 */
import * as Multipart from "@effect/platform/Multipart"
import { Config, Effect, Option, Stream } from "effect"
import { InvalidRequest, UploadParams, UploadTooLarge } from "../../../schemas/broker/Document.ts"
import type { DownloadType } from "../../../schemas/viewer/Servlets.ts"
import { DocumentAccess } from "./DocumentAccess.ts"
import { connectorId, externalReference, openOn, openProviderDocument } from "./DocumentReferences.ts"
import { brokerFileName, downloadedFile } from "./DownloadedFile.ts"

/** The broker's own default for MAX_UPLOAD_BYTES (src/services/broker/documents/DocumentRegistration.ts). */
const BROKER_MAX_UPLOAD_BYTES = 512 * 1024 * 1024

const maxUploadBytes = Config.integer("VIEWER_MAX_UPLOAD_BYTES").pipe(Config.withDefault(BROKER_MAX_UPLOAD_BYTES))

/** The broker's `format` for each download type (INITIAL: the original, no format). */
const FORMATS = { INITIAL: undefined, RENDERED: "rendered", COMPRESSED: "compressed" } as const

/** `title` as a file name with `extension` (the broker's file's), added when the title lacks it. */
export const titledFileName = (title: string, extension: string) => {
  const base = title.replace(/[\\/:*?"<>|\u0000-\u001f]/g, "_")
  return extension === "" || base.toLowerCase().endsWith(`.${extension.toLowerCase()}`) ? base : `${base}.${extension}`
}

const extensionOf = (fileName: string) => {
  const dot = fileName.lastIndexOf(".")
  return dot <= 0 ? "" : fileName.slice(dot + 1)
}

/**
 * The bytes of the multipart part `file` and its file name, at most `limit` bytes (413 past it);
 * other parts are read and dropped.
 */
const fileField = (parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>, limit: number) =>
  Effect.gen(function*() {
    let found: { readonly name: string; readonly bytes: Uint8Array } | undefined
    const tooLarge = new UploadTooLarge({
      limitBytes: limit,
      message: `The file is larger than the limit of ${limit} bytes (VIEWER_MAX_UPLOAD_BYTES)`
    })
    yield* parts.pipe(
      // Counted here rather than by the parser's own limit, whose overflow surfaces as an unnamed error.
      Multipart.withLimitsStream({ maxFileSize: Option.none(), maxTotalSize: Option.none() }),
      Stream.runForEach((part) => {
        if (part._tag !== "File") return Effect.void
        if (part.key !== "file" || found !== undefined) return Stream.runDrain(part.content)
        const chunks: Array<Uint8Array> = []
        let size = 0
        return part.content.pipe(
          Stream.runForEach((chunk) => {
            size += chunk.length
            chunks.push(chunk)
            return size > limit ? Effect.fail(tooLarge) : Effect.void
          }),
          Effect.map(() => {
            found = { name: part.name, bytes: Buffer.concat(chunks) }
          })
        )
      }),
      Effect.catchTag("MultipartError", (error) =>
        Effect.fail(
          new InvalidRequest({ message: `The multipart/form-data body could not be read: ${error.message}` })
        ))
    )
    if (found === undefined) {
      return yield* new InvalidRequest({ message: "The multipart/form-data part `file` (the document) is required" })
    }
    return found
  })

export class ViewerDocuments extends Effect.Service<ViewerDocuments>()("docstack/viewer/ViewerDocuments", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess
    const uploadLimit = yield* maxUploadBytes

    /** The file name a download's `title`, else its `sourceId`'s title, gives (null: the broker's own). */
    const requestedName = (title: string | undefined, sourceId: string | undefined) =>
      title !== undefined && title !== ""
        ? Effect.succeed<string | null>(title)
        : sourceId === undefined || sourceId === ""
        ? Effect.succeed<string | null>(null)
        : access.onDocument(
          sourceId,
          (client, documentId) =>
            Effect.map(client.documents.metadata({ path: { documentId } }), (metadata) => metadata.documentTitle)
        )

    return {
      /** GET uploadServlet: a document of the brokers' default provider by its connector-level ID. */
      openByConnectorId: (uuid: string) =>
        Effect.flatMap(
          connectorId(uuid),
          (parameters) => access.create((client) => openProviderDocument(client, parameters), (id) => id)
        ),

      /** openExternalDocument: an http(s) URL or `loadingQuery?<provider parameters>`. */
      openExternal: (url: string) =>
        Effect.flatMap(
          externalReference(url),
          (reference) => access.create((client) => openOn(client, reference), (id) => id)
        ),

      /** POST uploadServlet: the multipart part `file`, titled by its file name. */
      upload: (contentType: string | undefined, parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>) =>
        Effect.flatMap(
          (contentType ?? "").toLowerCase().startsWith("multipart/form-data")
            ? fileField(parts, uploadLimit)
            : Effect.fail(new InvalidRequest({ message: "The body must be multipart/form-data with the part `file`" })),
          ({ bytes, name }) =>
            access.create(
              (client) =>
                client.documents.upload({
                  urlParams: new UploadParams(name === "" ? {} : { documentTitle: name }),
                  payload: bytes
                }),
              (answer) => answer.id
            ).pipe(
              // Declared for uploads that name their own ID or a URL, which this one does not.
              Effect.catchTags({
                DocumentAlreadyExists: (error) => Effect.die(error),
                SourceUnreachable: (error) => Effect.die(error)
              })
            )
        ),

      /** downloadServlet: the original, its rendition or a ZIP, named after `title` or `sourceId`'s title. */
      download: (
        uuid: string,
        type: typeof DownloadType.Type | undefined,
        title: string | undefined,
        sourceId: string | undefined
      ) =>
        Effect.gen(function*() {
          const name = yield* requestedName(title, sourceId)
          const format = FORMATS[type ?? "INITIAL"]
          const [bytes, response] = yield* access.onDocument(uuid, (client, documentId) =>
            client.documents.file({
              path: { documentId },
              urlParams: format === undefined ? {} : { format },
              withResponse: true
            }))
          const own = brokerFileName(response, "document")
          return downloadedFile(bytes, response, name === null ? own : titledFileName(name, extensionOf(own)))
        }),

      /** downloadBase64EncodedDocument: the original's bytes in base64. */
      base64: (uuid: string | undefined, sessionDocument: Option.Option<string>) =>
        access.onChosen(uuid, sessionDocument, (client, documentId) =>
          Effect.map(
            client.documents.file({ path: { documentId }, urlParams: {} }),
            (bytes) => Buffer.from(bytes).toString("base64")
          )),

      /** evictDocument: removed from its broker (blobs and caches) and forgotten by the viewer. */
      evict: (uuid: string) =>
        Effect.gen(function*() {
          const brokerId = yield* access.brokerId(uuid)
          // The broker's DELETE answers OK for an unknown document too; the contract wants 404.
          yield* access.onBrokerDocument(brokerId, (client) =>
            Effect.zipRight(
              client.documents.check({ path: { documentId: brokerId } }),
              client.documents.remove({ path: { documentId: brokerId } })
            ))
          yield* access.brokers.forget(brokerId)
        })
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
