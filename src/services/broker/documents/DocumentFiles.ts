/**
 * A document's files as the download endpoints send them: the original, its PDF rendition, a ZIP
 * of the original, a composite document's parts merged into one PDF (by the engine's workers), and
 * PDFs derived from the rendition (annotated copies). Each is streamed, whole or a byte range.
 */
import { Effect, Option, Stream } from "effect"
import { zip } from "fflate"
import { createHash } from "node:crypto"
import { promisify } from "node:util"
import { DocumentProcessingFailed } from "../../../schemas/broker/Document.ts"
import { BlobStore, type ByteRange } from "../../common/BlobStore.ts"
import { DerivedCache } from "../../common/DerivedCache.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import type { PdfSource } from "../engine/PdfRequest.ts"
import type { DocumentRecord } from "../registry/DocumentRegistry.ts"
import { type ContainerTarget, DocumentResolver, processingFailed } from "./DocumentResolver.ts"
import { MergePdfs } from "./MergeRequests.ts"

/** What a file endpoint sends: bytes with how to label them, read whole or a range at a time. */
export interface FileContent {
  readonly contentType: string
  readonly fileName: string
  readonly size: number
  readonly read: (range?: ByteRange) => Stream.Stream<Uint8Array, DocumentProcessingFailed>
}

const zipAsync = promisify(zip)

const EXTENSIONS: Readonly<Record<string, string>> = {
  pdf: "pdf",
  png: "png",
  jpeg: "jpg",
  gif: "gif",
  webp: "webp",
  tiff: "tif",
  bmp: "bmp",
  text: "txt"
}

/** A file name for a title: characters file systems refuse replaced, the extension added when missing. */
export const fileNameOf = (title: string, extension: string) => {
  const base = title.replace(/[\\/:*?"<>|\u0000-\u001f]/g, "_")
  return base.toLowerCase().endsWith(`.${extension}`) ? base : `${base}.${extension}`
}

export class DocumentFiles extends Effect.Service<DocumentFiles>()("docstack/DocumentFiles", {
  effect: Effect.gen(function*() {
    const resolver = yield* DocumentResolver
    const blobs = yield* BlobStore
    const derived = yield* DerivedCache
    const engine = yield* PdfEngine

    /** A stored blob as a file to send; its size is read first, so missing bytes fail before any header is sent. */
    const blobFile = (doc: DocumentRecord, hash: string, contentType: string, extension: string) =>
      blobs.size(hash).pipe(
        Effect.mapError(processingFailed(doc.id)),
        Effect.flatMap(Option.match({
          onNone: () =>
            Effect.fail(
              new DocumentProcessingFailed({
                documentId: doc.id,
                message: "The document's bytes are missing from the blob store"
              })
            ),
          onSome: (size): Effect.Effect<FileContent> =>
            Effect.succeed({
              contentType,
              fileName: fileNameOf(doc.title ?? doc.id, extension),
              size,
              read: (range) => blobs.stream(hash, range).pipe(Stream.mapError(processingFailed(doc.id)))
            })
        }))
      )

    /** A file kept in the derived cache under `hash` (made the first time), streamed from there. */
    const derivedFile = <E>(
      hash: string,
      name: string,
      contentType: string,
      fileName: string,
      made: Effect.Effect<number, E>
    ) =>
      made.pipe(
        Effect.map((size): FileContent => ({
          contentType,
          fileName,
          size,
          read: (range) => derived.stream(hash, name, range)
        }))
      )

    /** Bytes computed once and kept in the derived cache under `hash`. */
    const derivedBytes = <E>(
      hash: string,
      name: string,
      contentType: string,
      fileName: string,
      compute: Effect.Effect<Uint8Array, E>
    ) => derivedFile(hash, name, contentType, fileName, derived.fileFromBytes(hash, name, compute))

    const compressed = (doc: DocumentRecord, sourceHash: string) =>
      derivedBytes(
        sourceHash,
        "original.zip",
        "application/zip",
        fileNameOf(doc.title ?? doc.id, "zip"),
        blobs.read(sourceHash).pipe(
          Effect.mapError(processingFailed(doc.id)),
          Effect.flatMap((bytes) =>
            Effect.tryPromise({
              try: () => zipAsync({ [fileNameOf(doc.title ?? doc.id, EXTENSIONS[doc.format] ?? doc.format)]: bytes }),
              catch: (error) =>
                new DocumentProcessingFailed({ documentId: doc.id, message: `Compressing failed: ${String(error)}` })
            })
          )
        )
      )

    /** All parts of a container as one PDF, in layout order, merged in the engine's workers. */
    const mergedPdf = (target: ContainerTarget) =>
      Effect.gen(function*() {
        const ids = yield* resolver.documentIdsUnder(target)
        const docs = yield* Effect.forEach(ids, resolver.ready)
        const sources = yield* Effect.forEach(docs, resolver.pdfOf)
        if (sources.length === 0) {
          return yield* processingFailed(target.id)({
            message: "None of the parts of this composite document can be shown as pages"
          })
        }
        const key = createHash("sha256").update(sources.map((s) => s.hash).join("\n")).digest("hex").slice(0, 32)
        const name = `merged-${key}.pdf`
        return yield* derivedFile(
          sources[0]!.hash,
          name,
          "application/pdf",
          fileNameOf(target.title ?? target.id, "pdf"),
          derived.file(sources[0]!.hash, name, (outPath) =>
            engine.runDocumentWork(new MergePdfs({ sources, outPath })).pipe(
              Effect.mapError(processingFailed(target.id))
            ))
        )
      })

    /** The document's PDF rendition, its conversion awaited. */
    const renditionFile = (documentId: string) =>
      Effect.gen(function*() {
        const doc = yield* resolver.ready(documentId)
        return yield* blobFile(doc, yield* resolver.renditionHashOf(doc), "application/pdf", "pdf")
      })

    return {
      /** GET /documents/{id}/file: the original (no format), its PDF rendition (pdf, rendered) or a ZIP of it (compressed). */
      file: Effect.fn("DocumentFiles.file")(
        function*(documentId: string, format: "pdf" | "rendered" | "compressed" | undefined) {
          const target = yield* resolver.resolve(documentId)
          if (target.kind === "container") {
            if (format === "pdf" || format === "rendered") return yield* mergedPdf(target)
            if (!target.file?.sourceHash) {
              return yield* processingFailed(documentId)({
                message: "A folder has no file of its own: ask for format=pdf, all its parts in one PDF"
              })
            }
            return yield* (format === "compressed"
              ? compressed(target.file, target.file.sourceHash)
              : blobFile(
                target.file,
                target.file.sourceHash,
                target.file.mimeType,
                EXTENSIONS[target.format] ?? target.format
              ))
          }
          const { doc } = target
          if (!doc.sourceHash) {
            return yield* new DocumentProcessingFailed({
              documentId,
              message: "The document was registered from a layout and has no file"
            })
          }
          if (format === "compressed") return yield* compressed(doc, doc.sourceHash)
          if (format === undefined) {
            return yield* blobFile(doc, doc.sourceHash, doc.mimeType, EXTENSIONS[doc.format] ?? doc.format)
          }
          return yield* renditionFile(documentId)
        }
      ),

      /** The PDF ready to print as it stands (annotations drawn in by Transformations.printable). */
      printable: Effect.fn("DocumentFiles.printable")(renditionFile),

      /** A PDF made from the document's rendition, computed once and kept in the derived cache under `name`. */
      derivedPdf: <E>(documentId: string, name: string, compute: (source: PdfSource) => Effect.Effect<Uint8Array, E>) =>
        Effect.gen(function*() {
          const doc = yield* resolver.ready(documentId)
          const pdf = yield* resolver.pdfOf(doc)
          return yield* derivedBytes(
            pdf.hash,
            name,
            "application/pdf",
            fileNameOf(doc.title ?? doc.id, "pdf"),
            compute(pdf)
          )
        })
    }
  }),
  dependencies: [DocumentResolver.Default, DerivedCache.Default, PdfEngine.Default]
}) {}
