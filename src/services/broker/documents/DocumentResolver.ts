/**
 * Document IDs resolved: a root document, or a part of a composite one (`<id>/<i>/<j>…`), with its
 * record and what its bytes are; and a document made ready for page work (its conversion awaited).
 * What every feature that works on a document's pages stands on.
 */
import { Duration, Effect, Option } from "effect"
import { DocumentNotFound, DocumentProcessingFailed, InvalidRequest } from "../../../schemas/broker/Document.ts"
import { BlobStore } from "../../common/BlobStore.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import { Containers, type Expansion, isComposite } from "../composite/Containers.ts"
import { findEntry, type PartEntry } from "../composite/Parts.ts"
import { isConvertible } from "../conversion/Converter.ts"
import { type DetectedFormat, formatOfRecord } from "../conversion/FormatDetector.ts"
import { Renditions } from "../conversion/Renditions.ts"
import type { PdfSource } from "../engine/PdfRequest.ts"
import { Orders } from "../orders/Orders.ts"
import { DocumentRecord, DocumentRegistry, type PageRecord } from "../registry/DocumentRegistry.ts"
import { LinkedParts } from "./LinkedParts.ts"

/** A document ID resolved: a document with content (or a registered layout), or a composite file or folder. */
export type Target = DocumentTarget | ContainerTarget

export interface DocumentTarget {
  readonly kind: "document"
  readonly doc: DocumentRecord
  readonly detected: DetectedFormat | undefined
}

export interface ContainerTarget {
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

/** Work on a registered document failed: the 500 the broker answers, saying why. */
export const processingFailed = (documentId: string) => (error: { readonly message: string }) =>
  new DocumentProcessingFailed({ documentId, message: error.message })

/** The title a document was given, else the /Title its PDF carries: what results and downloads are named by. */
export const titleOf = (doc: DocumentRecord) => doc.title ?? doc.renditionInfo?.["Title"] ?? null

const notPages = (target: ContainerTarget) =>
  new DocumentProcessingFailed({
    documentId: target.id,
    message:
      "This is a composite document (an email, an archive or a folder): it has no pages of its own. Open its parts, listed in its layout"
  })

export class DocumentResolver extends Effect.Service<DocumentResolver>()("docstack/DocumentResolver", {
  effect: Effect.gen(function*() {
    /** How long a request that needs pages waits for the document's conversion. */
    const conversionWait = yield* durationConfig("CONVERSION_WAIT_TIMEOUT", Duration.minutes(10))
    const registry = yield* DocumentRegistry
    const blobs = yield* BlobStore
    const renditions = yield* Renditions
    const containers = yield* Containers
    const orders = yield* Orders
    const links = yield* LinkedParts

    const containerOf = (doc: DocumentRecord, detected: DetectedFormat) =>
      containers.expansion(doc.sourceHash!, detected).pipe(
        Effect.mapError(processingFailed(doc.id)),
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
      return doc.sourceHash && isComposite(detected)
        ? containerOf(doc, detected!)
        : Effect.succeed({ kind: "document", doc, detected })
    }

    /** A part as a document record of its own: its bytes, what they are, and their rendition if built. */
    const partRecord = (
      id: string,
      entry: Extract<PartEntry, { kind: "file" }>,
      detected: DetectedFormat | undefined
    ) =>
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
          if (entry.kind === "link") {
            // A provider folder's file: registered under its part ID when first opened.
            const known = yield* registry.find(id)
            target = yield* targetOf(Option.isSome(known) ? known.value : yield* links.open(id, entry))
            continue
          }
          const detected = target.expansion.formatOf(entry.hash)
          const doc = yield* partRecord(id, entry, detected)
          target = isComposite(detected) ? yield* containerOf(doc, detected!) : { kind: "document", doc, detected }
        }
        return target
      })

    /** Waits for the document's conversion, starting one when none is under way. */
    const awaitConversion = (doc: DocumentRecord) =>
      Effect.gen(function*() {
        const latest = (yield* orders.forDocument("conversion", doc.id)).at(-1)
        if (latest?.state === "FAILED") {
          return yield* processingFailed(doc.id)({ message: latest.errorMessage ?? "The conversion failed" })
        }
        const orderId = latest && !latest.finished
          ? latest.id
          : yield* orders.submit({ kind: "conversion", documentId: doc.id, format: "pdf" })
        const done = yield* orders.awaitFinished(orderId, conversionWait)
        if (Option.isNone(done)) {
          return yield* processingFailed(doc.id)({ message: "The conversion of this document was cancelled" })
        }
        if (done.value.state === "FAILED") {
          return yield* processingFailed(doc.id)({ message: done.value.errorMessage ?? "The conversion failed" })
        }
        if (!done.value.finished) {
          return yield* processingFailed(doc.id)({
            message: `The document is still being converted after ${
              Duration.format(conversionWait)
            } (CONVERSION_WAIT_TIMEOUT)`
          })
        }
      })

    /**
     * The document `resolve` found, with its rendition ready: what every request about pages needs.
     * Read again only when a conversion had to be awaited (its rendition is then in the record).
     */
    const readyTarget = (documentId: string, target: Target) =>
      Effect.gen(function*() {
        if (target.kind === "container") return yield* notPages(target)
        const { doc, detected } = target
        if (doc.renditionHash || doc.registeredPages || !isConvertible(detected)) return doc
        yield* awaitConversion(doc)
        const again = yield* resolve(documentId)
        return again.kind === "document" ? again.doc : yield* notPages(again)
      })

    /** The document with its rendition ready: what every request about pages needs. */
    const ready = Effect.fn("DocumentResolver.ready")(function*(documentId: string) {
      return yield* readyTarget(documentId, yield* resolve(documentId))
    })

    const pagesOf = (doc: DocumentRecord): Effect.Effect<ReadonlyArray<PageRecord>, DocumentProcessingFailed> => {
      const pages = doc.renditionPages ?? doc.registeredPages
      return pages
        ? Effect.succeed(pages)
        : Effect.fail(
          new DocumentProcessingFailed({
            documentId: doc.id,
            message: `The ${doc.format} file of this document cannot be shown as pages`
          })
        )
    }

    const renditionHashOf = (doc: DocumentRecord): Effect.Effect<string, DocumentProcessingFailed> =>
      doc.renditionHash
        ? Effect.succeed(doc.renditionHash)
        : Effect.fail(
          new DocumentProcessingFailed({
            documentId: doc.id,
            message: doc.sourceHash
              ? `The ${doc.format} file of this document has no PDF rendition`
              : "The document was registered from a layout and has no content"
          })
        )

    const pdfOf = (doc: DocumentRecord): Effect.Effect<PdfSource, DocumentProcessingFailed> =>
      renditionHashOf(doc).pipe(
        Effect.flatMap((hash) =>
          blobs.localPath(hash).pipe(Effect.map((path) => ({ hash, path })), Effect.mapError(processingFailed(doc.id)))
        )
      )

    /** Every document under a container, in layout order (depth first), as IDs; parts that are not documents (unknown files) left out. */
    const documentIdsUnder = (
      target: ContainerTarget
    ): Effect.Effect<ReadonlyArray<string>, DocumentNotFound | DocumentProcessingFailed> =>
      Effect.forEach(
        target.entries.flatMap(function walk(entry): Array<string> {
          return entry.kind === "folder" ? entry.children.flatMap(walk) : [`${target.numbering}/${entry.index}`]
        }),
        (id) =>
          resolve(id).pipe(
            Effect.flatMap((part) =>
              part.kind === "container"
                ? documentIdsUnder(part)
                : Effect.succeed(part.doc.registeredPages || isConvertible(part.detected) ? [id] : [])
            )
          )
      ).pipe(Effect.map((ids) => ids.flat()))

    return {
      resolve,
      ready,
      readyTarget,
      pagesOf,
      renditionHashOf,
      pdfOf,
      documentIdsUnder,

      check: Effect.fn("DocumentResolver.check")((documentId: string) => Effect.asVoid(resolve(documentId))),

      /** The page of a ready document, or a 400 naming the pages it has. */
      checkPage: (doc: DocumentRecord, page: number) =>
        pagesOf(doc).pipe(
          Effect.filterOrFail(
            (pages) => Number.isInteger(page) && page >= 0 && page < pages.length,
            (pages) =>
              new InvalidRequest({
                message: `Page ${page} does not exist: the document has pages 0 to ${pages.length - 1}`,
                reason: "pageOutOfRange"
              })
          )
        ),

      /** The document's PDF (its conversion awaited) and pages: what transformations and comparisons work on. */
      rendition: Effect.fn("DocumentResolver.rendition")(function*(documentId: string) {
        const doc = yield* ready(documentId)
        const pages = yield* pagesOf(doc)
        const pdf = yield* pdfOf(doc)
        return { documentId: doc.id, title: titleOf(doc), pages, pdf }
      }),

      /**
       * The page count of a document an order takes as a source, when known without waiting for a
       * conversion (None while one is due or running); a composite document is refused (400): only
       * its parts have pages.
       */
      sourcePageCount: Effect.fn("DocumentResolver.sourcePageCount")(function*(documentId: string) {
        const target = yield* resolve(documentId)
        if (target.kind === "container") {
          return yield* new InvalidRequest({ message: `${documentId}: ${notPages(target).message}` })
        }
        const pages = target.doc.renditionPages ?? target.doc.registeredPages
        return Option.fromNullable(pages?.length)
      }),

      /** The document's title, if it has one: the one it was given, else its PDF's own /Title. */
      title: Effect.fn("DocumentResolver.title")((documentId: string) =>
        resolve(documentId).pipe(
          Effect.map((target) => Option.fromNullable(target.kind === "container" ? target.title : titleOf(target.doc)))
        )
      )
    }
  }),
  dependencies: [DocumentRegistry.Default, Renditions.Default, Containers.Default, Orders.Default]
}) {}
