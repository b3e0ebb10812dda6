/**
 * Inside a PDF worker thread: the documents it keeps open in PDFium, so that page N of a file does
 * not read and parse the file again. PDFium reads a document from the bytes it was given for as
 * long as it is open, so each one holds its whole file in the module's memory: the thread keeps
 * at most OPEN_DOCUMENT_BYTES_PER_WORKER bytes of files open, the least recently used closed first.
 * A file larger than that is opened for one request and closed after it.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs"
import { Lru } from "../../common/Lru.ts"
import { FPDF_ERR_PASSWORD, free, heap, loadErrorText, malloc, type Pdfium, withPdfium } from "./Pdfium.ts"
import type { PdfSource } from "./PdfRequest.ts"
import { workerSettings } from "./WorkerDocuments.ts"

/** The engine's default (PdfEngine.ts), for a thread started without settings (a test's). */
const { openDocumentBytes: OPEN_DOCUMENT_BYTES } = workerSettings("engine", { openDocumentBytes: 128 * 1024 * 1024 })

/** A document open in PDFium, with what must be given back when it closes. */
export interface PdfiumDocument {
  readonly document: number
  /** The form-fill environment: PDFium draws form fields through it (FPDF_FFLDraw). */
  readonly form: number
  readonly formInfo: number
  /** The file's bytes in the module's memory, read by PDFium while the document is open. */
  readonly bytes: number
  readonly size: number
  readonly pages: number
}

/** A file PDFium would not open: the caller turns it into PdfOpenFailed. */
export class PdfiumOpenError extends Error {
  constructor(readonly reason: "password" | "damaged", message: string) {
    super(message)
  }
}

const close = (pdfium: Pdfium, open: PdfiumDocument) => {
  try {
    pdfium.PDFiumExt_ExitFormFillEnvironment(open.form)
    pdfium.PDFiumExt_CloseFormFillInfo(open.formInfo)
    pdfium.FPDF_CloseDocument(open.document)
  } finally {
    free(pdfium, open.bytes)
  }
}

/** Reads the file straight into the module's memory (no second copy on the JavaScript side). */
const readInto = (pdfium: Pdfium, path: string) => {
  const fd = openSync(path, "r")
  try {
    const size = fstatSync(fd).size
    const bytes = malloc(pdfium, size)
    try {
      for (let done = 0; done < size;) {
        // A fresh view each turn: nothing grows the memory here, but a view must never be kept.
        const read = readSync(fd, heap(pdfium), bytes + done, size - done, done)
        if (read === 0) throw new Error(`the file ended after ${done} of ${size} bytes`)
        done += read
      }
      return { bytes, size }
    } catch (error) {
      free(pdfium, bytes)
      throw error
    }
  } finally {
    closeSync(fd)
  }
}

const open = (pdfium: Pdfium, path: string): PdfiumDocument => {
  const { bytes, size } = readInto(pdfium, path)
  let document = 0
  let formInfo = 0
  try {
    // No password: an empty user password opens the file, as in pdf.js; any other is refused.
    document = pdfium.FPDF_LoadMemDocument(bytes, size, "")
    if (document === 0) {
      const code = pdfium.FPDF_GetLastError()
      throw code === FPDF_ERR_PASSWORD
        ? new PdfiumOpenError("password", "The PDF is protected by a password")
        : new PdfiumOpenError("damaged", `The PDF cannot be read: ${loadErrorText(code)}`)
    }
    formInfo = pdfium.PDFiumExt_OpenFormFillInfo()
    const form = pdfium.PDFiumExt_InitFormFillEnvironment(document, formInfo)
    return { document, form, formInfo, bytes, size, pages: pdfium.FPDF_GetPageCount(document) }
  } catch (error) {
    if (formInfo !== 0) pdfium.PDFiumExt_CloseFormFillInfo(formInfo)
    if (document !== 0) pdfium.FPDF_CloseDocument(document)
    free(pdfium, bytes)
    throw error
  }
}

/** Created with the module (its eviction closes documents in it). */
let documents: Lru<PdfiumDocument> | undefined

/**
 * Runs `use` on the document, opened in PDFium or taken from this thread's open documents; the
 * whole of it synchronous, inside `withPdfium`. Kept open afterwards when it fits.
 */
export const withPdfiumDocument = <A>(source: PdfSource, use: (pdfium: Pdfium, document: PdfiumDocument) => A) =>
  withPdfium((pdfium) => {
    const cache = documents ??= new Lru<PdfiumDocument>(
      OPEN_DOCUMENT_BYTES,
      (evicted) => close(pdfium, evicted),
      (open) => open.size
    )
    const kept = cache.get(source.hash)
    const document = kept ?? open(pdfium, source.path)
    try {
      return use(pdfium, document)
    } finally {
      // Added after the use: one heavier than the whole capacity is closed at once by the cache.
      if (kept === undefined) cache.set(source.hash, document)
    }
  })
