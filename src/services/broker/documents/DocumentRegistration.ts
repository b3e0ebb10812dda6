/**
 * Documents registered and removed: from an upload's bytes, from a URL, from a layout alone, or a
 * PDF the broker made (a transformation's or comparison's result). A file is recognised and, when
 * it can be, analysed before the answer, so that one that cannot be shown is refused at once and
 * leaves nothing behind.
 */
import { Config, Effect, Option, Stream } from "effect"
import { randomBytes } from "node:crypto"
import {
  DocumentAlreadyExists,
  DocumentIdRef,
  DocumentProcessingFailed,
  InvalidRequest,
  type LayoutRegistration,
  SourceUnreachable,
  UploadParams,
  UploadTooLarge
} from "../../../schemas/broker/Document.ts"
import { BlobStore, BlobStoreError, BlobTooLarge, type StoredBlob } from "../../common/BlobStore.ts"
import { capBody, uploadDrainBytes } from "../../common/BodyLimit.ts"
import { DerivedCache } from "../../common/DerivedCache.ts"
import { Containers, isComposite } from "../composite/Containers.ts"
import { isConvertible } from "../conversion/Converter.ts"
import { type DetectedFormat, detectFile } from "../conversion/FormatDetector.ts"
import { renditionKey, Renditions } from "../conversion/Renditions.ts"
import { Orders } from "../orders/Orders.ts"
import { DocumentRegistry, PageRecord } from "../registry/DocumentRegistry.ts"
import { UrlFetcher } from "./UrlFetcher.ts"

export const DocumentRegistrationConfig = Config.all({
  maxUploadBytes: Config.integer("MAX_UPLOAD_BYTES").pipe(Config.withDefault(512 * 1024 * 1024)),
  uploadDrainBytes
})

const SUPPORTED_FORMATS =
  "the broker shows PDF, images (PNG, JPEG, GIF, WebP, BMP, TIFF), office files (Word, Excel, PowerPoint, OpenDocument, RTF, CSV), " +
  "text, HTML, XPS, EPUB, emails (EML, MSG) and ZIP archives"

/** A new document ID: 144 random bits, one path segment. */
export const newDocumentId = () => `b64_${randomBytes(18).toString("base64url")}`

const uploadTooLarge = (limitBytes: number) =>
  new UploadTooLarge({
    limitBytes,
    message: `The upload is larger than the limit of ${limitBytes} bytes (MAX_UPLOAD_BYTES)`
  })

export class DocumentRegistration extends Effect.Service<DocumentRegistration>()("docstack/DocumentRegistration", {
  effect: Effect.gen(function*() {
    const config = yield* DocumentRegistrationConfig
    const registry = yield* DocumentRegistry
    const blobs = yield* BlobStore
    const derived = yield* DerivedCache
    const urls = yield* UrlFetcher
    const renditions = yield* Renditions
    const containers = yield* Containers
    const orders = yield* Orders

    /** Deletes the bytes of hashes nothing refers to any more, with what was derived from them. */
    const release = (hashes: ReadonlyArray<string>) =>
      registry.release(hashes).pipe(
        Effect.flatMap((orphans) =>
          Effect.forEach(
            orphans,
            (hash) => Effect.zipRight(blobs.remove(hash).pipe(Effect.orDie), derived.drop(hash)),
            { discard: true }
          )
        )
      )

    /**
     * Stores the bytes, recognises (or takes the `declared` format) and analyses them, and registers
     * the document under `documentId`; a refused file leaves nothing behind.
     */
    /** Stores bytes in the blob store, at most MAX_UPLOAD_BYTES. */
    const store = <E>(bytes: Stream.Stream<Uint8Array, E>) =>
      blobs.put(bytes, config.maxUploadBytes).pipe(
        Effect.catchIf(
          (e): e is BlobTooLarge => e instanceof BlobTooLarge,
          () => Effect.fail(uploadTooLarge(config.maxUploadBytes))
        ),
        Effect.catchIf((e): e is BlobStoreError => e instanceof BlobStoreError, Effect.die)
      )

    const registerStored = (
      documentId: string,
      stored: StoredBlob,
      options: {
        readonly title: string | null
        readonly failOnUnsupported: boolean
        readonly declared?: DetectedFormat
      }
    ) =>
      Effect.gen(function*() {
        if (stored.size === 0) {
          return yield* new InvalidRequest({ message: "The request body is empty: send the file's bytes" })
        }
        const detected = options.declared ??
          (yield* detectFile(yield* blobs.localPath(stored.hash).pipe(Effect.orDie), options.title))
        if (detected?.kind === "protected") {
          return yield* new InvalidRequest({
            message: `The ${detected.format} file is protected by a password; upload it without the password protection`
          })
        }
        if (detected?.kind === "pdf" || detected?.kind === "image") {
          yield* renditions.prepare(stored.hash, detected).pipe(
            Effect.mapError((e) => new InvalidRequest({ message: e.message }))
          )
        } else if (isComposite(detected)) {
          yield* containers.expansion(stored.hash, detected!).pipe(
            Effect.mapError((e) => new InvalidRequest({ message: e.message }))
          )
        } else if (!isConvertible(detected) && options.failOnUnsupported) {
          return yield* new InvalidRequest({ message: `Unsupported format: ${SUPPORTED_FORMATS}` })
        }
        yield* registry.insert({
          id: documentId,
          title: options.title,
          mimeType: detected?.mimeType ?? "application/octet-stream",
          format: detected?.format ?? "unknown",
          sourceHash: stored.hash,
          sourceSize: stored.size,
          registeredPages: null,
          renditionKey: renditionKey(stored.hash, detected) === stored.hash
            ? null
            : renditionKey(stored.hash, detected)
        })
        // Office files and the like are converted in an order; a later layout request waits for it.
        if (isConvertible(detected) && Option.isNone(yield* renditions.find(stored.hash, detected))) {
          yield* orders.submit({ kind: "conversion", documentId, format: "pdf" })
        }
        return new DocumentIdRef({ id: documentId })
      }).pipe(Effect.onError(() => release([stored.hash])))

    /** Stores the body, recognises and analyses it, and registers the document; a refused file leaves nothing behind. */
    const upload = Effect.fn("DocumentRegistration.upload")(
      function*(body: Stream.Stream<Uint8Array, InvalidRequest>, params: UploadParams) {
        if (params.documentId !== undefined && Option.isSome(yield* registry.find(params.documentId))) {
          return yield* DocumentAlreadyExists.of(params.documentId)
        }
        const stored = yield* store(
          capBody(body, config.maxUploadBytes, config.uploadDrainBytes, () => uploadTooLarge(config.maxUploadBytes))
        )
        return yield* registerStored(params.documentId ?? newDocumentId(), stored, {
          title: params.documentTitle ?? null,
          failOnUnsupported: params.failOnUnsupported
        })
      }
    )

    /** Removes a document with the parts registered under it, and frees what only they used. */
    const remove = (documentId: string) =>
      Effect.gen(function*() {
        yield* orders.removeForDocument(documentId)
        const { sourceHashes } = yield* registry.remove(documentId)
        yield* release(sourceHashes)
      })

    return {
      upload,

      /** POST /documents with documentUrl, and POST /accessor/load: the same registration, with the bytes fetched. */
      uploadFromUrl: Effect.fn("DocumentRegistration.uploadFromUrl")(
        function*(documentUrl: string, params: UploadParams) {
          const fetched = yield* urls.fetch(documentUrl).pipe(
            Effect.mapError((e) => (e.reason === "unreachable"
              ? new SourceUnreachable({ message: e.message })
              : new InvalidRequest({ message: e.message }))
            )
          )
          return yield* upload(
            fetched.body.pipe(Stream.mapError((e) => new InvalidRequest({ message: e.message }))),
            { ...params, documentTitle: params.documentTitle ?? fetched.fileName }
          )
        }
      ),

      registerLayout: Effect.fn("DocumentRegistration.registerLayout")(function*(layout: LayoutRegistration) {
        const id = typeof layout.documentId === "string" ? layout.documentId : layout.documentId.id
        yield* registry.insert({
          id,
          title: layout.documentTitle ?? null,
          mimeType: layout.mimeType ?? "application/octet-stream",
          format: "layout",
          sourceHash: null,
          sourceSize: null,
          renditionKey: null,
          registeredPages: layout.pageDimensionsList.map((p) =>
            new PageRecord({ width: p.width, height: p.height, rotation: p.rotation, dpi: p.dpi })
          )
        })
      }),

      /** Registers a PDF the broker made (a transformation's or comparison's result) as a document of its own. */
      registerPdf: Effect.fn("DocumentRegistration.registerPdf")((bytes: Uint8Array, title: string | undefined) =>
        upload(
          Stream.succeed(bytes),
          new UploadParams({ ...(title === undefined ? {} : { documentTitle: title }), failOnUnsupported: true })
        ).pipe(
          Effect.catchAll((error) =>
            Effect.fail(
              new DocumentProcessingFailed({
                documentId: "",
                message: `The result could not be registered: ${error.message}`
              })
            )
          )
        )
      ),

      /**
       * Deletes a document with its parts and orders (its annotations follow it in the database:
       * migration 00013). Parts cannot be deleted on their own: they belong to their container.
       */
      remove: Effect.fn("DocumentRegistration.remove")(function*(documentId: string) {
        if (documentId.includes("/")) return
        yield* remove(documentId)
      }),

      /** Stores fetched bytes (at most MAX_UPLOAD_BYTES), for registerFetched. */
      storeFetched: <E>(bytes: Stream.Stream<Uint8Array, E>) => store(bytes),

      /**
       * Registers bytes fetched for a document whose ID the caller chose (a provider's document `b64_…`,
       * a provider folder's file `<id>/<i>`), replacing what was registered under it before unless it
       * had these very bytes. A `declared` format is taken as it is (a provider's folder), anything
       * else is recognised; an unsupported format is refused (400). `exclusive`: an ID already taken
       * is refused (409) instead, as an upload's assigned ID is.
       */
      registerFetched: Effect.fn("DocumentRegistration.registerFetched")(function*(
        documentId: string,
        stored: StoredBlob,
        options: { readonly title: string | null; readonly declared?: DetectedFormat; readonly exclusive?: boolean }
      ) {
        const { exclusive = false, ...registered } = options
        const previous = yield* registry.find(documentId)
        if (Option.isSome(previous) && exclusive) {
          yield* release([stored.hash])
          return yield* DocumentAlreadyExists.of(documentId)
        }
        if (Option.isSome(previous) && previous.value.sourceHash === stored.hash) return false
        if (Option.isSome(previous)) yield* remove(documentId)
        yield* registerStored(documentId, stored, { ...registered, failOnUnsupported: true })
        return true
      }),

      /** Forgets the parts registered under a document (a provider folder's files): they are fetched again on next use. */
      forgetParts: Effect.fn("DocumentRegistration.forgetParts")(function*(documentId: string) {
        yield* release(yield* registry.removeParts(documentId))
      })
    }
  }),
  dependencies: [
    DocumentRegistry.Default,
    DerivedCache.Default,
    UrlFetcher.Default,
    Renditions.Default,
    Containers.Default,
    Orders.Default
  ]
}) {}
