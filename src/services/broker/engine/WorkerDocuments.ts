/**
 * Inside a PDF worker thread: the documents it keeps open with pdf.js, so that a request never
 * parses a file again. The features that read with pdf.js stand on this; the others do not, so that
 * a thread loads pdf.js only for a request that needs it (FeatureHandlers.ts).
 */
import { Effect } from "effect"
import { statSync } from "node:fs"
import { readFile } from "node:fs/promises"
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js"
import { Lru } from "../../common/Lru.ts"
import { loadPdfjs, pdfjsResources } from "./PdfJsSetup.ts"
import { attempt, PdfOpenFailed, PdfOperationFailed, type PdfSource } from "./PdfRequest.ts"
import { workerSettings } from "./WorkerSettings.ts"

/** The engine's default (PdfEngine.ts), for a thread started without settings (a test's). */
const { pdfjsDocumentBytes: DOCUMENT_BYTES } = workerSettings("engine", { pdfjsDocumentBytes: 128 * 1024 * 1024 })

/** A document parsed by pdf.js (which holds a copy of the file), weighed by its file's bytes. */
interface OpenPdf {
  readonly doc: Promise<PDFDocumentProxy>
  readonly bytes: number
}

/**
 * The documents this thread keeps parsed, within PDFJS_DOCUMENT_BYTES_PER_WORKER bytes of files.
 * A file larger than that weighs the whole budget: it stays alone, pushing out the others, rather
 * than being closed under the request that opened it.
 */
const openDocuments = new Lru<OpenPdf>(
  DOCUMENT_BYTES,
  (open) => open.doc.then((d) => d.destroy()).catch(() => {}),
  (open) => Math.min(open.bytes, DOCUMENT_BYTES)
)

const classifyOpenError = (error: unknown) => {
  const name = (error as { name?: string })?.name
  const message = error instanceof Error ? error.message : String(error)
  return name === "PasswordException"
    ? new PdfOpenFailed({ reason: "password", message: "The PDF is protected by a password" })
    : new PdfOpenFailed({ reason: "damaged", message: `The PDF cannot be read: ${message}` })
}

/** The PDF opened with pdf.js, from this thread's open documents when it is there. */
export const open = (source: PdfSource) =>
  Effect.tryPromise({
    try: () => {
      const kept = openDocuments.get(source.hash)
      if (kept) return kept.doc
      const doc = Promise.all([loadPdfjs(), readFile(source.path)]).then(([pdfjs, bytes]) =>
        pdfjs.getDocument({
          ...pdfjsResources,
          data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        }).promise
      )
      doc.catch(() => openDocuments.delete(source.hash))
      openDocuments.set(source.hash, { doc, bytes: statSync(source.path).size })
      return doc
    },
    catch: classifyOpenError
  })

/** A page of an opened document, 0-based. */
export const pageOf = (doc: PDFDocumentProxy, index: number) =>
  index < 0 || index >= doc.numPages
    ? Effect.fail(new PdfOperationFailed({ message: `Page ${index} is outside 0..${doc.numPages - 1}` }))
    : attempt(`Loading page ${index}`, () => doc.getPage(index + 1))
