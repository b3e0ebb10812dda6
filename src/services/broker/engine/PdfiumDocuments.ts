/**
 * Inside a PDF worker thread: the documents it keeps open in PDFium, so that page N of a file does
 * not parse the file again. PDFium reads each one from its file as it needs (FPDF_LoadCustomDocument
 * with a reader on the open file), not from a copy in the module's memory: WebAssembly memory never
 * shrinks, and a copy of every large file a thread ever drew would stay in it for good. The thread
 * keeps open at most OPEN_DOCUMENT_BYTES_PER_WORKER bytes of files (what PDFium builds from a file
 * grows with it), the least recently used closed first; a larger file is opened for one request
 * and closed after it. The page it loaded last stays loaded (PdfiumPages.ts), and closes before its document.
 */
import { Effect } from "effect"
import { closeSync, fstatSync, openSync, readSync } from "node:fs"
import { Lru } from "../../common/Lru.ts"
import { FPDF_ERR_PASSWORD, free, heap, loadErrorText, malloc, type Pdfium, withPdfium } from "./Pdfium.ts"
import { type PageOwner, PdfiumPages } from "./PdfiumPages.ts"
import { PdfOpenFailed, type PdfSource, stepFailed } from "./PdfRequest.ts"
import { workerSettings } from "./WorkerSettings.ts"

/** The engine's default (PdfEngine.ts), for a thread started without settings (a test's). */
const { openDocumentBytes: OPEN_DOCUMENT_BYTES } = workerSettings("engine", { openDocumentBytes: 128 * 1024 * 1024 })

/** A document open in PDFium, with what must be given back when it closes. */
export interface PdfiumDocument extends PageOwner {
  readonly document: number
  /** The form-fill environment: PDFium draws form fields through it (FPDF_FFLDraw). */
  readonly form: number
  readonly formInfo: number
  /** The FPDF_FILEACCESS PDFium reads the file through, in the module's memory while the document is open. */
  readonly access: number
  /** The access's parameter: the key of the open file in `files`. */
  readonly param: number
  readonly size: number
  readonly pages: number
}

/** A file PDFium would not open: the caller turns it into PdfOpenFailed. */
export class PdfiumOpenError extends Error {
  constructor(readonly reason: "password" | "damaged", message: string) {
    super(message)
  }
}

/** The open files PDFium reads, by the number each FPDF_FILEACCESS carries as its parameter. */
const files = new Map<number, number>()
let lastFile = 0

/**
 * PDFium's reader (FPDF_FILEACCESS.m_GetBlock): `size` bytes at `position` of the file into `buffer`
 * in the module's memory; 1 when done, 0 when not. Nothing may be thrown from it: an exception
 * crossing PDFium's frames would skip its clean-up.
 */
const readBlock = (pdfium: Pdfium) => (param: number, position: number, buffer: number, size: number) => {
  try {
    const fd = files.get(param)
    if (fd === undefined) return 0
    // Unsigned longs of 32 bits arrive as signed numbers past 2 GiB.
    const [at, into, length] = [position >>> 0, buffer >>> 0, size >>> 0]
    for (let done = 0; done < length;) {
      const read = readSync(fd, heap(pdfium), into + done, length - done, at + done)
      if (read === 0) return 0
      done += read
    }
    return 1
  } catch {
    return 0
  }
}

const closeFile = (param: number) => {
  const fd = files.get(param)
  files.delete(param)
  if (fd !== undefined) closeSync(fd)
}

/** The reader's place in the module's function table, made once per module. */
let reader: number | undefined

const close = (pdfium: Pdfium, pages: PdfiumPages, open: PdfiumDocument) => {
  try {
    pages.closeFor(open)
    pdfium.PDFiumExt_ExitFormFillEnvironment(open.form)
    pdfium.PDFiumExt_CloseFormFillInfo(open.formInfo)
    pdfium.FPDF_CloseDocument(open.document)
  } finally {
    free(pdfium, open.access)
    closeFile(open.param)
  }
}

const open = (pdfium: Pdfium, { hash, path }: PdfSource): PdfiumDocument => {
  reader ??= pdfium.pdfium.addFunction(readBlock(pdfium), "iiiii")
  const param = ++lastFile
  files.set(param, openSync(path, "r"))
  let access = 0
  let document = 0
  let formInfo = 0
  try {
    const size = fstatSync(files.get(param)!).size
    // FPDF_FILEACCESS: the file's length, the reader, its parameter (three 32-bit fields).
    access = malloc(pdfium, 12)
    pdfium.pdfium.setValue(access, size, "i32")
    pdfium.pdfium.setValue(access + 4, reader, "i32")
    pdfium.pdfium.setValue(access + 8, param, "i32")
    // No password: an empty user password opens the file, as in pdf.js; any other is refused.
    document = pdfium.FPDF_LoadCustomDocument(access, "")
    if (document === 0) {
      const code = pdfium.FPDF_GetLastError()
      throw code === FPDF_ERR_PASSWORD
        ? new PdfiumOpenError("password", "The PDF is protected by a password")
        : new PdfiumOpenError("damaged", `The PDF cannot be read: ${loadErrorText(code)}`)
    }
    formInfo = pdfium.PDFiumExt_OpenFormFillInfo()
    const form = pdfium.PDFiumExt_InitFormFillEnvironment(document, formInfo)
    return { key: hash, document, form, formInfo, access, param, size, pages: pdfium.FPDF_GetPageCount(document) }
  } catch (error) {
    if (formInfo !== 0) pdfium.PDFiumExt_CloseFormFillInfo(formInfo)
    if (document !== 0) pdfium.FPDF_CloseDocument(document)
    if (access !== 0) free(pdfium, access)
    closeFile(param)
    throw error
  }
}

/** Created with the module (their eviction closes documents and pages in it). */
let held: { readonly documents: Lru<PdfiumDocument>; readonly pages: PdfiumPages } | undefined

const keptIn = (pdfium: Pdfium) => {
  if (held !== undefined) return held
  const pages = new PdfiumPages(pdfium)
  const documents = new Lru<PdfiumDocument>(
    OPEN_DOCUMENT_BYTES,
    (evicted) => close(pdfium, pages, evicted),
    (open) => open.size
  )
  return held = { documents, pages }
}

/**
 * Runs `use` on the document, opened in PDFium or taken from this thread's open documents; the
 * whole of it synchronous, inside `withPdfium`. Kept open afterwards when it fits.
 */
export const withPdfiumDocument = <A>(source: PdfSource, use: (pdfium: Pdfium, document: PdfiumDocument) => A) =>
  withPdfium((pdfium) => {
    const cache = keptIn(pdfium).documents
    const kept = cache.get(source.hash)
    const document = kept ?? open(pdfium, source)
    try {
      return use(pdfium, document)
    } finally {
      // Added after the use: one heavier than the whole capacity is closed at once by the cache.
      if (kept === undefined) cache.set(source.hash, document)
    }
  })

/**
 * Runs `use` on page `index` (0-based) of the document: loaded now, or still loaded from the
 * thread's last request, and kept loaded afterwards until another page is needed.
 */
export const withPdfiumPage = <A>(
  source: PdfSource,
  index: number,
  use: (pdfium: Pdfium, document: PdfiumDocument, page: number) => A
) =>
  withPdfiumDocument(source, (pdfium, document) => {
    if (index < 0 || index >= document.pages) throw new Error(`Page ${index} is outside 0..${document.pages - 1}`)
    return keptIn(pdfium).pages.use(document, index, (page) => use(pdfium, document, page))
  })

/** Whether this thread keeps page `index` of the file loaded (what the tests check). */
export const keepsPageLoaded = (source: PdfSource, index: number) =>
  withPdfium((pdfium) => {
    const document = keptIn(pdfium).documents.get(source.hash)
    return document !== undefined && keptIn(pdfium).pages.has(document, index)
  })

/** The number of pages of the document, as PDFium reads its page tree. */
export const pdfiumPageCount = (source: PdfSource) => withPdfiumDocument(source, (_, document) => document.pages)

/**
 * PDFium work as a step of a worker handler: a file PDFium will not open fails as PdfOpenFailed
 * (password or damaged, as pdf.js would say), anything else as PdfOperationFailed saying what
 * failed (`<what> failed: <why>`).
 */
export const pdfiumStep = <A>(what: string, run: () => Promise<A>) =>
  Effect.tryPromise({
    try: run,
    catch: (error) =>
      error instanceof PdfiumOpenError
        ? new PdfOpenFailed({ reason: error.reason, message: error.message })
        : stepFailed(what, error)
  })
