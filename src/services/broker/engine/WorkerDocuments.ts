/**
 * Inside a PDF worker thread: the documents it keeps open (so that a page request never parses a
 * file again), how work on them fails, and the settings the engine handed the thread. Every
 * feature's worker handlers (`*Worker.ts`) stand on this.
 */
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { workerData } from "node:worker_threads"
import { PDFDocument } from "pdf-lib"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js"
import { Lru } from "../../common/Lru.ts"
import { pdfjsResources } from "./PdfJsSetup.ts"
import { PdfOpenFailed, PdfOperationFailed, type PdfSource } from "./PdfRequest.ts"

/** A feature's settings as the engine handed them to the thread (PdfWorkerSetup), or `fallback` (a thread started by a test). */
export const workerSettings = <A>(feature: string, fallback: A): A =>
  (workerData?.[feature] as A | undefined) ?? fallback

const { openDocuments: OPEN_DOCUMENTS } = workerSettings("engine", { openDocuments: 8 })

/** How many documents this thread keeps open: a cache keyed by them should hold as many. */
export const openDocumentCapacity = OPEN_DOCUMENTS

const openDocuments = new Lru<Promise<PDFDocumentProxy>>(OPEN_DOCUMENTS, (doc) => {
  doc.then((d) => d.destroy()).catch(() => {})
})

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
      let doc = openDocuments.get(source.hash)
      if (!doc) {
        doc = readFile(source.path).then((bytes) =>
          pdfjs.getDocument({
            ...pdfjsResources,
            data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
          }).promise
        )
        doc.catch(() => openDocuments.delete(source.hash))
        openDocuments.set(source.hash, doc)
      }
      return doc
    },
    catch: classifyOpenError
  })

/** Runs one step of PDF work; a failure says which step (`<what> failed: <why>`). */
export const attempt = <A>(what: string, run: () => Promise<A>) =>
  Effect.tryPromise({
    try: run,
    catch: (error) =>
      new PdfOperationFailed({ message: `${what} failed: ${error instanceof Error ? error.message : String(error)}` })
  })

/** A page of an opened document, 0-based. */
export const pageOf = (doc: PDFDocumentProxy, index: number) =>
  index < 0 || index >= doc.numPages
    ? Effect.fail(new PdfOperationFailed({ message: `Page ${index} is outside 0..${doc.numPages - 1}` }))
    : attempt(`Loading page ${index}`, () => doc.getPage(index + 1))

/** A PDF for pdf-lib (reading its objects, writing new ones); encrypted files are read as they are. */
export const loadWithPdfLib = async (bytesOrPath: string | Uint8Array) =>
  PDFDocument.load(typeof bytesOrPath === "string" ? await readFile(bytesOrPath) : bytesOrPath, {
    ignoreEncryption: true,
    updateMetadata: false,
    throwOnInvalidObject: false
  })
