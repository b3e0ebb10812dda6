/**
 * The document core behind the broker's document endpoints: registration, files, layout,
 * page images, text, search, outline, destinations, signature fields.
 */
import { Cache, Config, Duration, Effect, Exit, Option, Schema, Stream } from "effect"
import { randomBytes } from "node:crypto"
import { zip } from "fflate"
import { promisify } from "node:util"
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
} from "../schemas/Content.ts"
import {
  DocumentAlreadyExists,
  DocumentIdRef,
  DocumentMetadata,
  DocumentNotFound,
  DocumentPageLayout,
  DocumentProcessingFailed,
  InvalidRequest,
  LAYOUT_TYPE_PREFIX,
  type LayoutRegistration,
  PageDimensions,
  UploadTooLarge,
  type UploadParams
} from "../schemas/Document.ts"
import { PageImageDescriptor, PageImageDescriptorFromString } from "../schemas/PageImage.ts"
import { BlobStore, type ByteRange } from "./BlobStore.ts"
import { imageToPdf, ImageRejected } from "./convert/ImageToPdf.ts"
import { DerivedCache } from "./DerivedCache.ts"
import { type DocumentRecord, DocumentRegistry, PageRecord } from "./DocumentRegistry.ts"
import { type DetectedFormat, detectFormat } from "./FormatDetector.ts"
import { compilePattern, InvalidSearchPattern } from "./pdf/Text.ts"
import { PdfEngine, type PdfSource } from "./PdfEngine.ts"
import { UrlFetcher } from "./UrlFetcher.ts"

export const DocumentsConfig = Config.all({
  maxUploadBytes: Config.integer("MAX_UPLOAD_BYTES").pipe(Config.withDefault(512 * 1024 * 1024)),
  uploadDrainBytes: Config.integer("UPLOAD_DRAIN_BYTES").pipe(Config.withDefault(64 * 1024 * 1024)),
  maxPages: Config.integer("MAX_PAGES").pipe(Config.withDefault(20_000)),
  maxSourceImagePixels: Config.integer("MAX_SOURCE_IMAGE_PIXELS").pipe(Config.withDefault(200_000_000)),
  maxPageImageWidth: Config.integer("MAX_PAGE_IMAGE_WIDTH").pipe(Config.withDefault(10_000)),
  defaultPageImage: Config.string("DEFAULT_PAGE_IMAGE").pipe(Config.withDefault("IM_1240_0")),
  pageImageMemoryCache: Config.integer("PAGE_IMAGE_MEMORY_CACHE").pipe(Config.withDefault(64))
})

/** What a file endpoint sends: bytes from the blob store or from memory, with how to label them. */
export interface FileContent {
  readonly contentType: string
  readonly fileName: string
  readonly size: number
  readonly read: (range?: ByteRange) => Stream.Stream<Uint8Array, DocumentProcessingFailed>
}

const zipAsync = promisify(zip)

const EXTENSIONS: Readonly<Record<string, string>> = { pdf: "pdf", png: "png", jpeg: "jpg", gif: "gif", webp: "webp", tiff: "tif", bmp: "bmp" }

const newDocumentId = () => `b64_${randomBytes(18).toString("base64url")}`

export class Documents extends Effect.Service<Documents>()("docstack/Documents", {
  effect: Effect.gen(function*() {
    const config = yield* DocumentsConfig
    const defaultDescriptor = yield* Schema.decode(PageImageDescriptorFromString)(config.defaultPageImage).pipe(Effect.orDie)
    const registry = yield* DocumentRegistry
    const blobs = yield* BlobStore
    const engine = yield* PdfEngine
    const derived = yield* DerivedCache
    const urls = yield* UrlFetcher

    const internal = (documentId: string) => (error: { readonly message: string }) =>
      new DocumentProcessingFailed({ documentId, message: error.message })

    const resolve = (documentId: string) =>
      registry.find(documentId).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(DocumentNotFound.of(documentId)),
          onSome: Effect.succeed
        }))
      )

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

    /** Builds (once per content) the PDF the pages come from, and reads its page boxes. */
    const prepareRendition = (sourceHash: string, detected: DetectedFormat) =>
      Effect.gen(function*() {
        const existing = yield* registry.rendition(sourceHash)
        // A rendition whose bytes went missing (a data directory restored without its blobs) is rebuilt.
        if (Option.isSome(existing) && Option.isSome(yield* blobs.size(existing.value.renditionHash).pipe(Effect.orDie))) return
        let renditionHash = sourceHash
        let dpis: ReadonlyArray<number> = []
        if (detected.kind === "image") {
          const bytes = yield* blobs.read(sourceHash).pipe(Effect.orDie)
          const converted = yield* Effect.tryPromise({
            try: () => imageToPdf(bytes, detected.format, { maxPixels: config.maxSourceImagePixels }),
            catch: (error) =>
              error instanceof ImageRejected
                ? new InvalidRequest({ message: error.message })
                : new InvalidRequest({ message: `The ${detected.format.toUpperCase()} image cannot be converted: ${String(error)}` })
          })
          renditionHash = (yield* blobs.putBytes(converted.pdf).pipe(Effect.orDie)).hash
          dpis = converted.dpis
        }
        const path = yield* blobs.localPath(renditionHash).pipe(Effect.orDie)
        const summary = yield* engine.analyze({ hash: renditionHash, path }, defaultDescriptor).pipe(
          Effect.mapError((error) =>
            new InvalidRequest({
              message: error._tag === "PdfOpenFailed" && error.reason === "password"
                ? "The PDF is protected by a password; upload it without the password protection"
                : `The file cannot be read as a ${detected.format.toUpperCase()}: ${error.message}`
            })
          )
        )
        if (summary.pages.length === 0) return yield* new InvalidRequest({ message: "The document has no pages" })
        if (summary.pages.length > config.maxPages) {
          return yield* new InvalidRequest({ message: `The document has ${summary.pages.length} pages, more than the limit of ${config.maxPages}` })
        }
        const pages = summary.pages.map((box, i) => new PageRecord({ ...box, dpi: dpis[i] ?? 72 }))
        if (summary.firstPage) yield* derived.put(renditionHash, pageImageName(0, defaultDescriptor), summary.firstPage)
        yield* registry.saveRendition(sourceHash, renditionHash, pages, summary.info)
      })

    /** Drops bytes no document references any more (a failed upload, a deleted document). */
    const collect = (hashes: ReadonlyArray<string>) =>
      Effect.forEach(hashes, (hash) => Effect.zipRight(blobs.remove(hash).pipe(Effect.orDie), derived.drop(hash)), { discard: true })

    const releaseIfUnused = (hash: string) =>
      registry.isReferenced(hash).pipe(Effect.flatMap((used) => (used ? Effect.void : collect([hash]))))

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
              fileName: fileNameOf(doc, extension),
              size,
              read: (range) => blobs.stream(hash, range).pipe(Stream.mapError(internal(doc.id)))
            })
        }))
      )

    const compressed = (doc: DocumentRecord, sourceHash: string) =>
      Effect.gen(function*() {
        const name = "original.zip"
        const cached = yield* derived.get(sourceHash, name)
        const archive = Option.isSome(cached)
          ? cached.value
          : yield* blobs.read(sourceHash).pipe(
            Effect.mapError(internal(doc.id)),
            Effect.flatMap((bytes) =>
              Effect.tryPromise({
                try: () => zipAsync({ [fileNameOf(doc, EXTENSIONS[doc.format] ?? "bin")]: bytes }),
                catch: (error) => new DocumentProcessingFailed({ documentId: doc.id, message: `Compressing failed: ${String(error)}` })
              })
            ),
            Effect.tap((bytes) => derived.put(sourceHash, name, bytes))
          )
        return {
          contentType: "application/zip",
          fileName: fileNameOf(doc, "zip"),
          size: archive.byteLength,
          read: (range?: ByteRange) => Stream.succeed(range ? archive.subarray(range.start, range.end + 1) : archive)
        } satisfies FileContent
      })

    /** Stores the body, recognises and analyses it, and registers the document; a refused file leaves nothing behind. */
    const upload = Effect.fn("Documents.upload")(function*(body: Stream.Stream<Uint8Array, InvalidRequest>, params: UploadParams) {
      if (params.documentId !== undefined && Option.isSome(yield* registry.find(params.documentId))) {
        return yield* DocumentAlreadyExists.of(params.documentId)
      }
      const stored = yield* blobs.put(capUpload(body, config.maxUploadBytes, config.uploadDrainBytes), config.maxUploadBytes).pipe(
        Effect.catchTags({ BlobTooLarge: () => Effect.fail(uploadTooLarge(config.maxUploadBytes)), BlobStoreError: Effect.die })
      )
      return yield* Effect.gen(function*() {
        if (stored.size === 0) return yield* new InvalidRequest({ message: "The request body is empty: send the file's bytes" })
        const head = yield* Stream.runCollect(blobs.stream(stored.hash, { start: 0, end: Math.min(1023, stored.size - 1) })).pipe(
          Effect.map((chunks) => Buffer.concat([...chunks])),
          Effect.orDie
        )
        const detected = detectFormat(head)
        if (detected) {
          yield* prepareRendition(stored.hash, detected)
        } else if (params.failOnUnsupported) {
          return yield* new InvalidRequest({ message: "Unsupported format: the file is not a PDF or an image (PNG, JPEG, GIF, WebP, BMP, TIFF)" })
        }
        const documentId = params.documentId ?? newDocumentId()
        yield* registry.insert({
          id: documentId,
          title: params.documentTitle ?? null,
          mimeType: detected?.mimeType ?? "application/octet-stream",
          format: detected?.format ?? "unknown",
          sourceHash: stored.hash,
          sourceSize: stored.size,
          registeredPages: null
        })
        return new DocumentIdRef({ id: documentId })
      }).pipe(Effect.onError(() => releaseIfUnused(stored.hash)))
    })

    return {
      upload,

      /** POST /documents with documentUrl: the same registration, with the bytes fetched from the URL. */
      uploadFromUrl: Effect.fn("Documents.uploadFromUrl")(function*(documentUrl: string, params: UploadParams) {
        const fetched = yield* urls.fetch(documentUrl).pipe(Effect.mapError((e) => new InvalidRequest({ message: e.message })))
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
          registeredPages: layout.pageDimensionsList.map((p) => new PageRecord({ width: p.width, height: p.height, rotation: p.rotation, dpi: p.dpi }))
        })
      }),

      metadata: Effect.fn("Documents.metadata")(function*(documentId: string) {
        const doc = yield* resolve(documentId)
        const pages = doc.renditionPages ?? doc.registeredPages
        return new DocumentMetadata({
          documentId: new DocumentIdRef({ id: doc.id }),
          mimeType: doc.mimeType,
          format: doc.format,
          renderedMimeType: doc.renditionHash ? "application/pdf" : doc.mimeType,
          renderedFormat: doc.renditionHash ? "pdf" : doc.format,
          conversionOrderIds: {},
          documentTitle: doc.title,
          documentMetadata: JSON.stringify({ ...doc.renditionInfo, ...(pages ? { pageCount: String(pages.length) } : {}), ...(doc.sourceSize !== null ? { fileSize: String(doc.sourceSize) } : {}) }),
          urlParameters: []
        })
      }),

      check: Effect.fn("Documents.check")((documentId: string) => Effect.asVoid(resolve(documentId))),

      remove: Effect.fn("Documents.remove")(function*(documentId: string) {
        const { orphans } = yield* registry.remove(documentId)
        yield* collect(orphans)
      }),

      layout: Effect.fn("Documents.layout")(function*(documentId: string) {
        const doc = yield* resolve(documentId)
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
        const doc = yield* resolve(documentId)
        if (!doc.sourceHash) {
          return yield* new DocumentProcessingFailed({ documentId, message: "The document was registered from a layout and has no file" })
        }
        if (format === "compressed") return yield* compressed(doc, doc.sourceHash)
        if (format === undefined) return yield* fileContent(doc, doc.sourceHash, doc.mimeType, EXTENSIONS[doc.format] ?? "bin")
        return yield* fileContent(doc, yield* renditionHashOf(doc), "application/pdf", "pdf")
      }),

      pageImage: Effect.fn("Documents.pageImage")(function*(documentId: string, page: number, requested: PageImageDescriptor | undefined) {
        const doc = yield* resolve(documentId)
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
        const doc = yield* resolve(documentId)
        yield* checkPage(doc, page)
        const pdf = yield* pdfOf(doc)
        const runs = yield* cachedJson(pdf.hash, `t${page}.json`, Schema.Array(TextPosition), engine.text(pdf, page).pipe(Effect.mapError(internal(doc.id))))
        return new PageText({ pageNumber: page, positionTextList: runs, imageHyperlinkPositionList: [] })
      }),

      searchPage: Effect.fn("Documents.searchPage")(function*(documentId: string, page: number, options: SearchOptions) {
        const doc = yield* resolve(documentId)
        yield* checkPage(doc, page)
        const results = yield* search(doc, page, page, options)
        return new PageSearchResult({ searchResults: results[0]?.hits ?? [] })
      }),

      searchDocument: Effect.fn("Documents.searchDocument")(function*(documentId: string, fromPage: number, toPage: number | undefined, options: SearchOptions) {
        const doc = yield* resolve(documentId)
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
        const doc = yield* resolve(documentId)
        const pages = yield* pagesOf(doc)
        const results = yield* search(doc, 0, pages.length - 1, options)
        return new PagesContainingText({ uuid: new DocumentIdRef({ id: doc.id }), searchText: options.searchText, pageList: results.map((r) => r.page) })
      }),

      bookmarks: Effect.fn("Documents.bookmarks")(function*(documentId: string) {
        const doc = yield* resolve(documentId)
        if (!doc.renditionHash) return new Bookmarks({ bookmarks: [] })
        const pdf = yield* pdfOf(doc)
        return yield* cachedJson(pdf.hash, "bookmarks.json", Bookmarks, engine.outline(pdf).pipe(Effect.map((bookmarks) => new Bookmarks({ bookmarks })), Effect.mapError(internal(doc.id))))
      }),

      destinations: Effect.fn("Documents.destinations")(function*(documentId: string) {
        const doc = yield* resolve(documentId)
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
        const doc = yield* resolve(documentId)
        if (!doc.renditionHash) return new Signatures({ signatures: [], wronglySigned: false, integrity: true })
        const pdf = yield* pdfOf(doc)
        const signatures = yield* engine.signatureFields(pdf).pipe(Effect.mapError(internal(doc.id)))
        // Nothing is verified yet, so integrity is claimed only where there is nothing to verify.
        return new Signatures({ signatures, wronglySigned: false, integrity: signatures.length === 0 })
      }),

      printable: Effect.fn("Documents.printable")(function*(documentId: string) {
        const doc = yield* resolve(documentId)
        return yield* fileContent(doc, yield* renditionHashOf(doc), "application/pdf", "pdf")
      }),

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
  }),
  dependencies: [DocumentRegistry.Default, DerivedCache.Default, UrlFetcher.Default]
}) {}

const uploadTooLarge = (limitBytes: number) =>
  new UploadTooLarge({ limitBytes, message: `The upload is larger than the limit of ${limitBytes} bytes (MAX_UPLOAD_BYTES)` })

/**
 * Passes the body through up to `limit` bytes. Past it, reads on without keeping anything for up to
 * `drain` more bytes, so that the client has sent its request and can read the 413 (a server that
 * stops reading resets the connection and the client sees no answer at all).
 */
const capUpload = <E>(body: Stream.Stream<Uint8Array, E>, limit: number, drain: number) => {
  let total = 0
  return body.pipe(
    Stream.filterEffect((chunk) => {
      total += chunk.byteLength
      return total > limit + drain ? Effect.fail(uploadTooLarge(limit)) : Effect.succeed(total <= limit)
    }),
    Stream.concat(Stream.suspend(() => (total > limit ? Stream.fail(uploadTooLarge(limit)) : Stream.empty)))
  )
}

/** Where a page image is cached under its PDF's hash. */
const pageImageName = (page: number, descriptor: PageImageDescriptor) => `p${page}_${descriptor.key}.png`

const fileNameOf = (doc: DocumentRecord, extension: string) => {
  const base = (doc.title ?? doc.id).replace(/[\\/:*?"<>|\u0000-\u001f]/g, "_")
  return base.toLowerCase().endsWith(`.${extension}`) ? base : `${base}.${extension}`
}
