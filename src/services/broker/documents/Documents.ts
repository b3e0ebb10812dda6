/**
 * The document core behind the broker's document endpoints: registration, files, layout,
 * page images, text, search, outline, destinations, signature fields.
 */
import { Cache, Config, Duration, Effect, Exit, Option, Schema, Stream } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { zip } from "fflate"
import { promisify } from "node:util"
import { PDFDocument } from "pdf-lib"
import {
  Bookmarks,
  Destinations,
  DocumentSearchResult,
  PageSearchResult,
  PagesContainingText,
  PageText,
  Signatures,
  TextPosition,
  type SearchOptions
} from "../../../schemas/broker/Content.ts"
import {
  DocumentAlreadyExists,
  type DocumentContainer,
  DocumentIdRef,
  DocumentMetadata,
  DocumentNotFound,
  DocumentPageLayout,
  DocumentProcessingFailed,
  DocumentReference,
  InvalidRequest,
  LAYOUT_TYPE_PREFIX,
  type LayoutRegistration,
  PageDimensions,
  SourceUnreachable,
  UploadTooLarge,
  UploadParams
} from "../../../schemas/broker/Document.ts"
import { PageImageDescriptor, PageImageDescriptorFromString } from "../../../schemas/broker/PageImage.ts"
import { BlobStore, type ByteRange } from "../../common/BlobStore.ts"
import type { PartEntry } from "../composite/Parts.ts"
import { Containers, type Expansion, findEntry, isComposite } from "../composite/Containers.ts"
import { isConvertible } from "../conversion/Converter.ts"
import { DerivedCache } from "../../common/DerivedCache.ts"
import { DocumentRecord, DocumentRegistry, PageRecord } from "../registry/DocumentRegistry.ts"
import { type DetectedFormat, detectFile, formatOfRecord } from "../conversion/FormatDetector.ts"
import { capBody, uploadDrainBytes } from "../../common/BodyLimit.ts"
import { Orders } from "../orders/Orders.ts"
import { compilePattern, InvalidSearchPattern } from "../text/Text.ts"
import { PdfEngine, type PdfSource } from "../engine/PdfEngine.ts"
import { AnnotationBasis } from "../engine/Protocol.ts"
import { AnnotationStore } from "../annotations/AnnotationStore.ts"
import { pageImageName, renditionKey, Renditions } from "../conversion/Renditions.ts"
import { UrlFetcher } from "./UrlFetcher.ts"
import { durationConfig } from "../../common/DurationConfig.ts"

export const DocumentsConfig = Config.all({
  maxUploadBytes: Config.integer("MAX_UPLOAD_BYTES").pipe(Config.withDefault(512 * 1024 * 1024)),
  uploadDrainBytes,
  maxPageImageWidth: Config.integer("MAX_PAGE_IMAGE_WIDTH").pipe(Config.withDefault(10_000)),
  pageImageMemoryCache: Config.integer("PAGE_IMAGE_MEMORY_CACHE").pipe(Config.withDefault(64)),
  /** How long a request that needs pages waits for the document's conversion. */
  conversionWait: durationConfig("CONVERSION_WAIT_TIMEOUT", Duration.minutes(10))
})

/** What a file endpoint sends: bytes from the blob store or from memory, with how to label them. */
export interface FileContent {
  readonly contentType: string
  readonly fileName: string
  readonly size: number
  readonly read: (range?: ByteRange) => Stream.Stream<Uint8Array, DocumentProcessingFailed>
}

const zipAsync = promisify(zip)

const EXTENSIONS: Readonly<Record<string, string>> = { pdf: "pdf", png: "png", jpeg: "jpg", gif: "gif", webp: "webp", tiff: "tif", bmp: "bmp", text: "txt" }

/** A document ID resolved: a document with content (or a registered layout), or a composite file or folder. */
type Target = DocumentTarget | ContainerTarget

interface DocumentTarget {
  readonly kind: "document"
  readonly doc: DocumentRecord
  readonly detected: DetectedFormat | undefined
}

interface ContainerTarget {
  readonly kind: "container"
  readonly id: string
  readonly title: string | null
  readonly mimeType: string | null
  readonly format: string
  /** The composite file whose indices the entries carry (a folder lists entries of its archive). */
  readonly numbering: string
  readonly entries: ReadonlyArray<PartEntry>
  readonly expansion: Expansion
  /** The composite file itself; absent for a folder, which has no bytes of its own. */
  readonly file: DocumentRecord | undefined
}

const newDocumentId = () => `b64_${randomBytes(18).toString("base64url")}`

export class Documents extends Effect.Service<Documents>()("docstack/Documents", {
  effect: Effect.gen(function*() {
    const config = yield* DocumentsConfig
    const registry = yield* DocumentRegistry
    const blobs = yield* BlobStore
    const engine = yield* PdfEngine
    const derived = yield* DerivedCache
    const urls = yield* UrlFetcher
    const renditions = yield* Renditions
    const containers = yield* Containers
    const orders = yield* Orders
    const annotationStore = yield* AnnotationStore
    const defaultDescriptor = renditions.defaultDescriptor

    const internal = (documentId: string) => (error: { readonly message: string }) =>
      new DocumentProcessingFailed({ documentId, message: error.message })

    const expansionOf = (documentId: string, sourceHash: string, detected: DetectedFormat) =>
      containers.expansion(sourceHash, detected).pipe(Effect.mapError(internal(documentId)))

    const containerOf = (doc: DocumentRecord, detected: DetectedFormat) =>
      expansionOf(doc.id, doc.sourceHash!, detected).pipe(
        Effect.map((expansion): ContainerTarget => ({
          kind: "container",
          id: doc.id,
          title: doc.title,
          mimeType: doc.mimeType,
          format: doc.format,
          numbering: doc.id,
          entries: expansion.parts,
          expansion,
          file: doc
        }))
      )

    const targetOf = (doc: DocumentRecord): Effect.Effect<Target, DocumentProcessingFailed> => {
      const detected = formatOfRecord(doc.format, doc.mimeType)
      return doc.sourceHash && isComposite(detected) ? containerOf(doc, detected!) : Effect.succeed({ kind: "document", doc, detected })
    }

    /** A part as a document record of its own: its bytes, what they are, and their rendition if built. */
    const partRecord = (id: string, entry: Extract<PartEntry, { kind: "file" }>, detected: DetectedFormat | undefined) =>
      renditions.find(entry.hash, detected).pipe(
        Effect.map((rendition) =>
          new DocumentRecord({
            id,
            title: entry.name,
            mimeType: detected?.mimeType ?? entry.mimeType ?? "application/octet-stream",
            format: detected?.format ?? "unknown",
            sourceHash: entry.hash,
            sourceSize: entry.size,
            registeredPages: null,
            renditionHash: Option.isSome(rendition) ? rendition.value.renditionHash : null,
            renditionPages: Option.isSome(rendition) ? rendition.value.pages : null,
            renditionInfo: Option.isSome(rendition) ? rendition.value.info : null
          })
        )
      )

    /** Resolves `<id>/<i>/<j>…` level by level; any step that leads nowhere is a 404. */
    const resolve = (documentId: string): Effect.Effect<Target, DocumentNotFound | DocumentProcessingFailed> =>
      Effect.gen(function*() {
        const [rootId, ...path] = documentId.split("/")
        const root = yield* registry.find(rootId!)
        if (Option.isNone(root)) return yield* DocumentNotFound.of(documentId)
        let target = yield* targetOf(root.value)
        for (const step of path) {
          const index = /^\d{1,9}$/.test(step) ? Number(step) : Number.NaN
          // Indices belong to the composite file: a folder is a view on its entries, not a level of numbering.
          const entry = target.kind === "container" && target.file ? findEntry(target.entries, index) : undefined
          if (target.kind !== "container" || !entry) return yield* DocumentNotFound.of(documentId)
          const id = `${target.numbering}/${index}`
          if (entry.kind === "folder") {
            target = { ...target, id, title: entry.name, mimeType: null, entries: entry.children, file: undefined }
            continue
          }
          const detected = target.expansion.formatOf(entry.hash)
          const doc = yield* partRecord(id, entry, detected)
          target = isComposite(detected) ? yield* containerOf(doc, detected!) : { kind: "document", doc, detected }
        }
        return target
      })

    /** The title a document was given, else the /Title its PDF carries: what results and downloads are named by. */
    const titleOf = (doc: DocumentRecord) => doc.title ?? doc.renditionInfo?.["Title"] ?? null

    const notPages = (target: ContainerTarget) =>
      new DocumentProcessingFailed({
        documentId: target.id,
        message: "This is a composite document (an email, an archive or a folder): it has no pages of its own. Open its parts, listed in its layout"
      })

    const latestConversion = (documentId: string) =>
      orders.forDocument("conversion", documentId).pipe(Effect.map((list) => list.at(-1)))

    /** Waits for the document's conversion, starting one when none is under way. */
    const awaitConversion = (doc: DocumentRecord) =>
      Effect.gen(function*() {
        const latest = yield* latestConversion(doc.id)
        if (latest?.state === "FAILED") return yield* internal(doc.id)({ message: latest.errorMessage ?? "The conversion failed" })
        const orderId = latest && !latest.finished ? latest.id : yield* orders.submit({ kind: "conversion", documentId: doc.id, format: "pdf" })
        const done = yield* orders.awaitFinished(orderId, config.conversionWait)
        if (Option.isNone(done)) return yield* internal(doc.id)({ message: "The conversion of this document was cancelled" })
        if (done.value.state === "FAILED") return yield* internal(doc.id)({ message: done.value.errorMessage ?? "The conversion failed" })
        if (!done.value.finished) {
          return yield* internal(doc.id)({ message: `The document is still being converted after ${Duration.format(config.conversionWait)} (CONVERSION_WAIT_TIMEOUT)` })
        }
      })

    /** The document with its rendition ready: what every request about pages needs. */
    const ready = (documentId: string) =>
      Effect.gen(function*() {
        const target = yield* resolve(documentId)
        if (target.kind === "container") return yield* notPages(target)
        const { doc, detected } = target
        if (doc.renditionHash || doc.registeredPages || !isConvertible(detected)) return doc
        yield* awaitConversion(doc)
        const again = yield* resolve(documentId)
        return again.kind === "document" ? again.doc : yield* notPages(again)
      })

    const pagesOf = (doc: DocumentRecord): Effect.Effect<ReadonlyArray<PageRecord>, DocumentProcessingFailed> => {
      const pages = doc.renditionPages ?? doc.registeredPages
      return pages
        ? Effect.succeed(pages)
        : Effect.fail(new DocumentProcessingFailed({ documentId: doc.id, message: `The ${doc.format} file of this document cannot be shown as pages` }))
    }

    const renditionHashOf = (doc: DocumentRecord): Effect.Effect<string, DocumentProcessingFailed> =>
      doc.renditionHash
        ? Effect.succeed(doc.renditionHash)
        : Effect.fail(new DocumentProcessingFailed({
          documentId: doc.id,
          message: doc.sourceHash ? `The ${doc.format} file of this document has no PDF rendition` : "The document was registered from a layout and has no content"
        }))

    const pdfOf = (doc: DocumentRecord): Effect.Effect<PdfSource, DocumentProcessingFailed> =>
      renditionHashOf(doc).pipe(
        Effect.flatMap((hash) => blobs.localPath(hash).pipe(Effect.map((path) => ({ hash, path })), Effect.mapError(internal(doc.id))))
      )

    const checkPage = (doc: DocumentRecord, page: number) =>
      pagesOf(doc).pipe(
        Effect.filterOrFail(
          (pages) => Number.isInteger(page) && page >= 0 && page < pages.length,
          (pages) => new InvalidRequest({ message: `Page ${page} does not exist: the document has pages 0 to ${pages.length - 1}` })
        )
      )

    /** A JSON artefact kept in the derived cache, computed once per PDF. */
    const cachedJson = <A, I>(hash: string, name: string, schema: Schema.Schema<A, I>, compute: Effect.Effect<A, DocumentProcessingFailed>) => {
      const json = Schema.parseJson(schema)
      return derived.get(hash, name).pipe(
        Effect.flatMap(Option.match({
          onSome: (bytes) => Schema.decode(json)(new TextDecoder().decode(bytes)).pipe(Effect.option),
          onNone: () => Effect.succeedNone
        })),
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          onNone: () =>
            compute.pipe(
              Effect.tap((value) =>
                Schema.encode(json)(value).pipe(
                  Effect.flatMap((text) => derived.put(hash, name, new TextEncoder().encode(text))),
                  Effect.orDie
                )
              )
            )
        }))
      )
    }

    /** Deletes the bytes of hashes nothing refers to any more, with what was derived from them. */
    const release = (hashes: ReadonlyArray<string>) =>
      registry.release(hashes).pipe(
        Effect.flatMap((orphans) =>
          Effect.forEach(orphans, (hash) => Effect.zipRight(blobs.remove(hash).pipe(Effect.orDie), derived.drop(hash)), { discard: true })
        )
      )

    const renderPage = (source: PdfSource, page: number, descriptor: PageImageDescriptor) => {
      const name = pageImageName(page, descriptor)
      return derived.get(source.hash, name).pipe(
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          onNone: () => engine.renderPage(source, page, descriptor).pipe(Effect.tap((png) => derived.put(source.hash, name, png)))
        }))
      )
    }

    // Recent page images stay in memory, and concurrent requests for one image share one render.
    const pageImages = yield* Cache.makeWith({
      capacity: config.pageImageMemoryCache,
      lookup: (key: string) => {
        const [hash, path, page, descriptor] = JSON.parse(key) as [string, string, number, string]
        return Schema.decode(PageImageDescriptorFromString)(descriptor).pipe(
          Effect.orDie,
          Effect.flatMap((d) => renderPage({ hash, path }, page, d))
        )
      },
      timeToLive: (exit) => (Exit.isSuccess(exit) ? Duration.minutes(30) : Duration.zero)
    })

    /** A stored blob as a file to send; its size is read first, so missing bytes fail before any header is sent. */
    const fileContent = (doc: DocumentRecord, hash: string, contentType: string, extension: string) =>
      blobs.size(hash).pipe(
        Effect.mapError(internal(doc.id)),
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new DocumentProcessingFailed({ documentId: doc.id, message: "The document's bytes are missing from the blob store" })),
          onSome: (size): Effect.Effect<FileContent> =>
            Effect.succeed({
              contentType,
              fileName: fileNameOf(doc.title ?? doc.id, extension),
              size,
              read: (range) => blobs.stream(hash, range).pipe(Stream.mapError(internal(doc.id)))
            })
        }))
      )

    /** Bytes computed once and kept in the derived cache under `hash`, sent from memory. */
    const cachedFile = <E>(hash: string, name: string, contentType: string, fileName: string, compute: Effect.Effect<Uint8Array, E>) =>
      derived.get(hash, name).pipe(
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          onNone: () => compute.pipe(Effect.tap((bytes) => derived.put(hash, name, bytes)))
        })),
        Effect.map((bytes): FileContent => ({
          contentType,
          fileName,
          size: bytes.byteLength,
          read: (range?: ByteRange) => Stream.succeed(range ? bytes.subarray(range.start, range.end + 1) : bytes)
        }))
      )

    const compressed = (doc: DocumentRecord, sourceHash: string) =>
      cachedFile(
        sourceHash,
        "original.zip",
        "application/zip",
        fileNameOf(doc.title ?? doc.id, "zip"),
        blobs.read(sourceHash).pipe(
          Effect.mapError(internal(doc.id)),
          Effect.flatMap((bytes) =>
            Effect.tryPromise({
              try: () => zipAsync({ [fileNameOf(doc.title ?? doc.id, EXTENSIONS[doc.format] ?? doc.format)]: bytes }),
              catch: (error) => new DocumentProcessingFailed({ documentId: doc.id, message: `Compressing failed: ${String(error)}` })
            })
          )
        )
      )

    /** The children of a container as the layout lists them: folders expanded in place, everything else a stub. */
    const childrenOf = (target: ContainerTarget, entries: ReadonlyArray<PartEntry>): Array<DocumentReference | DocumentContainer> =>
      entries.map((entry) => {
        const documentId = `${target.numbering}/${entry.index}`
        return entry.kind === "folder"
          ? { type: `${LAYOUT_TYPE_PREFIX}DocumentContainer`, documentId, documentTitle: entry.name, mimeType: null, children: childrenOf(target, entry.children) }
          : new DocumentReference({ type: `${LAYOUT_TYPE_PREFIX}DocumentReference`, documentId, documentTitle: entry.name, mimeType: entry.mimeType })
      })

    /** Every document under a container, in layout order (depth first), as IDs. */
    const documentIdsUnder = (target: ContainerTarget): Effect.Effect<ReadonlyArray<string>, DocumentNotFound | DocumentProcessingFailed> =>
      Effect.forEach(target.entries.flatMap(function walk(entry): Array<string> {
        return entry.kind === "folder" ? entry.children.flatMap(walk) : [`${target.numbering}/${entry.index}`]
      }), (id) =>
        resolve(id).pipe(
          Effect.flatMap((part) =>
            part.kind === "container" ? documentIdsUnder(part) : Effect.succeed(part.doc.registeredPages || isConvertible(part.detected) ? [id] : [])
          )
        )).pipe(Effect.map((ids) => ids.flat()))

    /** All parts of a container as one PDF, in layout order; parts that are not documents (unknown files) are left out. */
    const mergedPdf = (target: ContainerTarget) =>
      Effect.gen(function*() {
        const ids = yield* documentIdsUnder(target)
        const docs = yield* Effect.forEach(ids, ready)
        const hashes = yield* Effect.forEach(docs, renditionHashOf)
        if (hashes.length === 0) return yield* internal(target.id)({ message: "None of the parts of this composite document can be shown as pages" })
        const key = createHash("sha256").update(hashes.join("\n")).digest("hex").slice(0, 32)
        return yield* cachedFile(
          hashes[0]!,
          `merged-${key}.pdf`,
          "application/pdf",
          fileNameOf(target.title ?? target.id, "pdf"),
          Effect.forEach(hashes, (hash) => blobs.read(hash).pipe(Effect.orDie)).pipe(
            Effect.flatMap((pdfs) =>
              Effect.tryPromise({
                try: () => mergePdfs(pdfs),
                catch: (error) => internal(target.id)({ message: `Merging the parts failed: ${String(error)}` })
              })
            )
          )
        )
      })

    /** Converts what a conversion order names: a document, or every part of a composite one. */
    const convert = (documentId: string): Effect.Effect<{ readonly pages: number }, { readonly message: string }> =>
      Effect.gen(function*() {
        const target = yield* resolve(documentId)
        if (target.kind === "container") {
          const ids = yield* documentIdsUnder(target)
          const converted = yield* Effect.forEach(ids, convert)
          return { pages: converted.reduce((sum, c) => sum + c.pages, 0) }
        }
        const { doc, detected } = target
        if (doc.registeredPages) return yield* internal(doc.id)({ message: "The document was registered from a layout: it has no file to convert" })
        if (!doc.sourceHash || !detected || !isConvertible(detected)) {
          return yield* internal(doc.id)({ message: `A ${doc.format === "unknown" ? "file of unknown format" : `${doc.format} file`} cannot be converted to PDF` })
        }
        const rendition = yield* renditions.prepare(doc.sourceHash, detected)
        return { pages: rendition.pages.length }
      })

    const conversionOrderIds = (documentId: string) =>
      orders.forDocument("conversion", documentId).pipe(
        Effect.map((list) => Object.fromEntries(list.map((order): [string, { id: string }] => [order.format ?? "pdf", { id: order.id }])))
      )

    /** Stores the body, recognises and analyses it, and registers the document; a refused file leaves nothing behind. */
    const upload = Effect.fn("Documents.upload")(function*(body: Stream.Stream<Uint8Array, InvalidRequest>, params: UploadParams) {
      if (params.documentId !== undefined && Option.isSome(yield* registry.find(params.documentId))) {
        return yield* DocumentAlreadyExists.of(params.documentId)
      }
      const stored = yield* blobs.put(capBody(body, config.maxUploadBytes, config.uploadDrainBytes, () => uploadTooLarge(config.maxUploadBytes)), config.maxUploadBytes).pipe(
        Effect.catchTags({ BlobTooLarge: () => Effect.fail(uploadTooLarge(config.maxUploadBytes)), BlobStoreError: Effect.die })
      )
      return yield* Effect.gen(function*() {
        if (stored.size === 0) return yield* new InvalidRequest({ message: "The request body is empty: send the file's bytes" })
        const detected = yield* detectFile(yield* blobs.localPath(stored.hash).pipe(Effect.orDie), params.documentTitle ?? null)
        if (detected?.kind === "protected") {
          return yield* new InvalidRequest({ message: `The ${detected.format} file is protected by a password; upload it without the password protection` })
        }
        if (detected?.kind === "pdf" || detected?.kind === "image") {
          yield* renditions.prepare(stored.hash, detected).pipe(Effect.mapError((e) => new InvalidRequest({ message: e.message })))
        } else if (isComposite(detected)) {
          yield* containers.expansion(stored.hash, detected!).pipe(Effect.mapError((e) => new InvalidRequest({ message: e.message })))
        } else if (!isConvertible(detected) && params.failOnUnsupported) {
          return yield* new InvalidRequest({ message: `Unsupported format: ${SUPPORTED_FORMATS}` })
        }
        const documentId = params.documentId ?? newDocumentId()
        yield* registry.insert({
          id: documentId,
          title: params.documentTitle ?? null,
          mimeType: detected?.mimeType ?? "application/octet-stream",
          format: detected?.format ?? "unknown",
          sourceHash: stored.hash,
          sourceSize: stored.size,
          registeredPages: null,
          renditionKey: renditionKey(stored.hash, detected) === stored.hash ? null : renditionKey(stored.hash, detected)
        })
        // Office files and the like are converted in an order; a later layout request waits for it.
        if (isConvertible(detected) && Option.isNone(yield* renditions.find(stored.hash, detected))) {
          yield* orders.submit({ kind: "conversion", documentId, format: "pdf" })
        }
        return new DocumentIdRef({ id: documentId })
      }).pipe(Effect.onError(() => release([stored.hash])))
    })

    return {
      upload,
      convert,

      /** POST /documents with documentUrl, and POST /accessor/load: the same registration, with the bytes fetched. */
      uploadFromUrl: Effect.fn("Documents.uploadFromUrl")(function*(documentUrl: string, params: UploadParams) {
        const fetched = yield* urls.fetch(documentUrl).pipe(
          Effect.mapError((e) => (e.reason === "unreachable" ? new SourceUnreachable({ message: e.message }) : new InvalidRequest({ message: e.message })))
        )
        return yield* upload(
          fetched.body.pipe(Stream.mapError((e) => new InvalidRequest({ message: e.message }))),
          { ...params, documentTitle: params.documentTitle ?? fetched.fileName }
        )
      }),

      registerLayout: Effect.fn("Documents.registerLayout")(function*(layout: LayoutRegistration) {
        const id = typeof layout.documentId === "string" ? layout.documentId : layout.documentId.id
        yield* registry.insert({
          id,
          title: layout.documentTitle ?? null,
          mimeType: layout.mimeType ?? "application/octet-stream",
          format: "layout",
          sourceHash: null,
          sourceSize: null,
          renditionKey: null,
          registeredPages: layout.pageDimensionsList.map((p) => new PageRecord({ width: p.width, height: p.height, rotation: p.rotation, dpi: p.dpi }))
        })
      }),

      metadata: Effect.fn("Documents.metadata")(function*(documentId: string) {
        const target = yield* resolve(documentId)
        const conversions = yield* conversionOrderIds(documentId)
        if (target.kind === "container") {
          return new DocumentMetadata({
            documentId: new DocumentIdRef({ id: target.id }),
            mimeType: target.mimeType ?? "inode/directory",
            format: target.file ? target.format : "folder",
            renderedMimeType: "application/pdf",
            renderedFormat: "pdf",
            conversionOrderIds: conversions,
            documentTitle: target.title,
            documentMetadata: JSON.stringify({ parts: String(target.entries.length), ...(target.file?.sourceSize ? { fileSize: String(target.file.sourceSize) } : {}) }),
            urlParameters: []
          })
        }
        const { doc, detected } = target
        const pages = doc.renditionPages ?? doc.registeredPages
        const rendered = doc.renditionHash || isConvertible(detected)
        return new DocumentMetadata({
          documentId: new DocumentIdRef({ id: doc.id }),
          mimeType: doc.mimeType,
          format: doc.format,
          renderedMimeType: rendered ? "application/pdf" : doc.mimeType,
          renderedFormat: rendered ? "pdf" : doc.format,
          conversionOrderIds: conversions,
          documentTitle: doc.title,
          documentMetadata: JSON.stringify({ ...doc.renditionInfo, ...(pages ? { pageCount: String(pages.length) } : {}), ...(doc.sourceSize !== null ? { fileSize: String(doc.sourceSize) } : {}) }),
          urlParameters: []
        })
      }),

      check: Effect.fn("Documents.check")((documentId: string) => Effect.asVoid(resolve(documentId))),

      /** Deletes a document with its parts and orders. Parts cannot be deleted on their own: they belong to their container. */
      remove: Effect.fn("Documents.remove")(function*(documentId: string) {
        if (documentId.includes("/")) return
        yield* orders.removeForDocument(documentId)
        yield* annotationStore.removeForDocument(documentId)
        const { sourceHash } = yield* registry.remove(documentId)
        if (sourceHash) yield* release([sourceHash])
      }),

      layout: Effect.fn("Documents.layout")(function*(documentId: string) {
        const target = yield* resolve(documentId)
        if (target.kind === "container") {
          return {
            type: `${LAYOUT_TYPE_PREFIX}DocumentContainer`,
            documentId: target.id,
            documentTitle: target.title,
            mimeType: target.mimeType,
            children: childrenOf(target, target.entries)
          } satisfies DocumentContainer
        }
        const doc = yield* ready(documentId)
        const pages = yield* pagesOf(doc)
        return new DocumentPageLayout({
          type: `${LAYOUT_TYPE_PREFIX}DocumentPageLayout`,
          documentId: doc.id,
          documentTitle: doc.title,
          mimeType: doc.mimeType,
          pageDimensionsList: pages.map((p) => new PageDimensions({ ...p, pageLayers: null }))
        })
      }),

      file: Effect.fn("Documents.file")(function*(documentId: string, format: "pdf" | "rendered" | "compressed" | undefined) {
        const target = yield* resolve(documentId)
        if (target.kind === "container") {
          if (format === "pdf" || format === "rendered") return yield* mergedPdf(target)
          if (!target.file?.sourceHash) {
            return yield* internal(documentId)({ message: "A folder has no file of its own: ask for format=pdf, all its parts in one PDF" })
          }
          return yield* (format === "compressed" ? compressed(target.file, target.file.sourceHash) : fileContent(target.file, target.file.sourceHash, target.file.mimeType, EXTENSIONS[target.format] ?? target.format))
        }
        const { doc } = target
        if (!doc.sourceHash) {
          return yield* new DocumentProcessingFailed({ documentId, message: "The document was registered from a layout and has no file" })
        }
        if (format === "compressed") return yield* compressed(doc, doc.sourceHash)
        if (format === undefined) return yield* fileContent(doc, doc.sourceHash, doc.mimeType, EXTENSIONS[doc.format] ?? doc.format)
        const converted = yield* ready(documentId)
        return yield* fileContent(converted, yield* renditionHashOf(converted), "application/pdf", "pdf")
      }),

      pageImage: Effect.fn("Documents.pageImage")(function*(documentId: string, page: number, requested: PageImageDescriptor | undefined) {
        const doc = yield* ready(documentId)
        const pages = yield* checkPage(doc, page)
        const descriptor = requested ?? defaultDescriptor
        if (descriptor.width < 1 || descriptor.width > config.maxPageImageWidth) {
          return yield* new InvalidRequest({ message: `Image width must be between 1 and ${config.maxPageImageWidth} pixels (MAX_PAGE_IMAGE_WIDTH)` })
        }
        const box = pages[page]!
        const turned = ((box.rotation + descriptor.rotation) / 90) % 2 === 1
        const height = Math.round((descriptor.width * (turned ? box.width : box.height)) / (turned ? box.height : box.width))
        if (descriptor.width * height > engine.maxImagePixels) {
          return yield* new InvalidRequest({ message: `A ${descriptor.width}x${height} image has more pixels than the limit of ${engine.maxImagePixels} (MAX_IMAGE_PIXELS)` })
        }
        const pdf = yield* pdfOf(doc)
        return yield* pageImages.get(JSON.stringify([pdf.hash, pdf.path, page, descriptor.key])).pipe(Effect.mapError(internal(doc.id)))
      }),

      pageText: Effect.fn("Documents.pageText")(function*(documentId: string, page: number) {
        const doc = yield* ready(documentId)
        yield* checkPage(doc, page)
        const pdf = yield* pdfOf(doc)
        const runs = yield* cachedJson(pdf.hash, `t${page}.json`, Schema.Array(TextPosition), engine.text(pdf, page).pipe(Effect.mapError(internal(doc.id))))
        return new PageText({ pageNumber: page, positionTextList: runs, imageHyperlinkPositionList: [] })
      }),

      searchPage: Effect.fn("Documents.searchPage")(function*(documentId: string, page: number, options: SearchOptions) {
        const doc = yield* ready(documentId)
        yield* checkPage(doc, page)
        const results = yield* search(doc, page, page, options)
        return new PageSearchResult({ searchResults: results[0]?.hits ?? [] })
      }),

      searchDocument: Effect.fn("Documents.searchDocument")(function*(documentId: string, fromPage: number, toPage: number | undefined, options: SearchOptions) {
        const doc = yield* ready(documentId)
        const pages = yield* pagesOf(doc)
        const last = Math.min(toPage ?? pages.length - 1, pages.length - 1)
        if (fromPage > last) {
          return yield* new InvalidRequest({ message: `fromPage ${fromPage} is after the last page searched (${last}); pages run from 0 to ${pages.length - 1}` })
        }
        const results = yield* search(doc, fromPage, last, options)
        return new DocumentSearchResult({
          documentId: new DocumentIdRef({ id: doc.id }),
          searchText: options.searchText,
          searchStatus: "COMPLETED",
          lastPageSearched: last,
          pagesResults: Object.fromEntries(results.map((r) => [String(r.page), r.matches.map((positionText) => ({ positionText }))]))
        })
      }),

      pagesContaining: Effect.fn("Documents.pagesContaining")(function*(documentId: string, options: SearchOptions) {
        const doc = yield* ready(documentId)
        const pages = yield* pagesOf(doc)
        const results = yield* search(doc, 0, pages.length - 1, options)
        return new PagesContainingText({ uuid: new DocumentIdRef({ id: doc.id }), searchText: options.searchText, pageList: results.map((r) => r.page) })
      }),

      bookmarks: Effect.fn("Documents.bookmarks")(function*(documentId: string) {
        const doc = yield* ready(documentId)
        if (!doc.renditionHash) return new Bookmarks({ bookmarks: [] })
        const pdf = yield* pdfOf(doc)
        return yield* cachedJson(pdf.hash, "bookmarks.json", Bookmarks, engine.outline(pdf).pipe(Effect.map((bookmarks) => new Bookmarks({ bookmarks })), Effect.mapError(internal(doc.id))))
      }),

      destinations: Effect.fn("Documents.destinations")(function*(documentId: string) {
        const doc = yield* ready(documentId)
        const ref = new DocumentIdRef({ id: doc.id })
        if (!doc.renditionHash) return new Destinations({ documentId: ref, namedDestinations: [] })
        const pdf = yield* pdfOf(doc)
        return yield* cachedJson(
          pdf.hash,
          "destinations.json",
          Destinations,
          engine.destinations(pdf).pipe(Effect.map((namedDestinations) => new Destinations({ documentId: ref, namedDestinations })), Effect.mapError(internal(doc.id)))
        )
      }),

      signatures: Effect.fn("Documents.signatures")(function*(documentId: string) {
        const doc = yield* ready(documentId)
        if (!doc.renditionHash) return new Signatures({ signatures: [], wronglySigned: false, integrity: true })
        const pdf = yield* pdfOf(doc)
        return yield* engine.signatures(pdf).pipe(Effect.mapError(internal(doc.id)))
      }),

      /** What annotations need of a document: its pages' geometry, and the annotations its PDF holds. */
      annotationBasis: Effect.fn("Documents.annotationBasis")(function*(documentId: string) {
        const doc = yield* ready(documentId)
        if (!doc.renditionHash) {
          const pages = yield* pagesOf(doc)
          return new AnnotationBasis({ pages: pages.map((p) => ({ x0: 0, y0: 0, width: p.width, height: p.height, rotation: p.rotation })), fileAnnotations: [] })
        }
        const pdf = yield* pdfOf(doc)
        return yield* cachedJson(pdf.hash, "annotations.json", AnnotationBasis, engine.annotations(pdf).pipe(Effect.mapError(internal(doc.id))))
      }),

      /**
       * The page count of a document an order takes as a source, when known without waiting for a
       * conversion (None while one is due or running); a composite document is refused (400): only
       * its parts have pages.
       */
      sourcePageCount: Effect.fn("Documents.sourcePageCount")(function*(documentId: string) {
        const target = yield* resolve(documentId)
        if (target.kind === "container") return yield* new InvalidRequest({ message: `${documentId}: ${notPages(target).message}` })
        const pages = target.doc.renditionPages ?? target.doc.registeredPages
        return Option.fromNullable(pages?.length)
      }),

      /** The document's title, if it has one: the one it was given, else its PDF's own /Title. */
      title: Effect.fn("Documents.title")((documentId: string) =>
        resolve(documentId).pipe(Effect.map((target) => Option.fromNullable(target.kind === "container" ? target.title : titleOf(target.doc))))
      ),

      /** The document's PDF (its conversion awaited) and pages: what transformations and comparisons work on. */
      rendition: Effect.fn("Documents.rendition")(function*(documentId: string) {
        const doc = yield* ready(documentId)
        const pages = yield* pagesOf(doc)
        const pdf = yield* pdfOf(doc)
        return { documentId: doc.id, title: titleOf(doc), pages, pdf }
      }),

      /** JSON derived from a PDF (by content hash), computed once and kept in the derived cache. */
      derivedJson: cachedJson,

      /** A PDF made from the document's rendition, computed once and kept in the derived cache under `name`. */
      derivedPdf: <E>(documentId: string, name: string, compute: (source: PdfSource) => Effect.Effect<Uint8Array, E>) =>
        Effect.gen(function*() {
          const doc = yield* ready(documentId)
          const pdf = yield* pdfOf(doc)
          return yield* cachedFile(pdf.hash, name, "application/pdf", fileNameOf(doc.title ?? doc.id, "pdf"), compute(pdf))
        }),

      /** Registers a PDF the broker made (a transformation's or comparison's result) as a document of its own. */
      registerPdf: Effect.fn("Documents.registerPdf")((bytes: Uint8Array, title: string | undefined) =>
        upload(Stream.succeed(bytes), new UploadParams({ ...(title === undefined ? {} : { documentTitle: title }), failOnUnsupported: true })).pipe(
          Effect.catchAll((error) => Effect.fail(new DocumentProcessingFailed({ documentId: "", message: `The result could not be registered: ${error.message}` })))
        )
      ),

      printable: Effect.fn("Documents.printable")(function*(documentId: string) {
        const doc = yield* ready(documentId)
        return yield* fileContent(doc, yield* renditionHashOf(doc), "application/pdf", "pdf")
      })
    }

    function search(doc: DocumentRecord, fromPage: number, toPage: number, options: SearchOptions) {
      return Effect.gen(function*() {
        yield* Effect.try({
          try: () => compilePattern(options),
          catch: (error) => new InvalidRequest({ message: error instanceof InvalidSearchPattern ? error.message : String(error) })
        })
        const pdf = yield* pdfOf(doc)
        return yield* engine.search(pdf, fromPage, toPage, options).pipe(Effect.mapError(internal(doc.id)))
      })
    }
  })
}) {}

const SUPPORTED_FORMATS = "the broker shows PDF, images (PNG, JPEG, GIF, WebP, BMP, TIFF), office files (Word, Excel, PowerPoint, OpenDocument, RTF, CSV), " +
  "text, HTML, XPS, EPUB, emails (EML, MSG) and ZIP archives"

const mergePdfs = async (pdfs: ReadonlyArray<Uint8Array>) => {
  const merged = await PDFDocument.create()
  for (const bytes of pdfs) {
    const source = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false })
    for (const page of await merged.copyPages(source, source.getPageIndices())) merged.addPage(page)
  }
  return merged.save()
}

const uploadTooLarge = (limitBytes: number) =>
  new UploadTooLarge({ limitBytes, message: `The upload is larger than the limit of ${limitBytes} bytes (MAX_UPLOAD_BYTES)` })

const fileNameOf = (title: string, extension: string) => {
  const base = title.replace(/[\\/:*?"<>|\u0000-\u001f]/g, "_")
  return base.toLowerCase().endsWith(`.${extension}`) ? base : `${base}.${extension}`
}
