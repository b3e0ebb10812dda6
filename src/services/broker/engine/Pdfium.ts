/**
 * Inside a PDF worker thread: PDFium, the PDF engine of Chromium, as WebAssembly (@embedpdf/pdfium).
 * It draws every page image (Rasterizer.ts) and reads page text (text/PdfiumText.ts); pdf.js still
 * reads the rest (outline, destinations, annotations, the analysis's page boxes). Instantiated once
 * per thread, on first use, from the module the broker compiled from the package's own .wasm file
 * (PdfiumModule.ts): nothing is fetched at run time.
 *
 * Everything PDFium holds lives in the module's linear memory, which only grows: every allocation
 * here is freed and every handle closed in a `finally`. A WebAssembly trap leaves that memory in a
 * state nothing can trust, so the thread ends (see `withPdfium`).
 */
import { init, type WrappedPdfiumModule } from "@embedpdf/pdfium"
import { compilePdfium, PDFIUM_MODULE_SETTING } from "./PdfiumModule.ts"
import { workerSettings } from "./WorkerSettings.ts"

export type Pdfium = WrappedPdfiumModule

/** Render flags (public/fpdfview.h). */
export const FPDF_ANNOT = 0x01
/** The bitmap's bytes in R, G, B, A order (PDFium's own order is B, G, R, A). */
export const FPDF_REVERSE_BYTE_ORDER = 0x10

/**
 * FPDFBitmap_BGR: 3 bytes a pixel, no alpha (R, G, B with FPDF_REVERSE_BYTE_ORDER). A page is drawn
 * on white, so an alpha channel would only be dropped again before the PNG: measured on tracemonkey
 * p1 at 1240 px, drawing and copying took 12 ms instead of 20, encoding 9 instead of 14, the PNG the
 * same bytes.
 */
export const BITMAP_BGR = 2

/** Annotation flag Hidden (PDF 32000-1, table 165): not drawn, neither on screen nor on paper. */
export const ANNOT_FLAG_HIDDEN = 0x02

/** FPDF_GetLastError codes (public/fpdfview.h) in words. */
const LOAD_ERRORS: Readonly<Record<number, string>> = {
  1: "an unknown error",
  2: "the file could not be read",
  3: "it is not a PDF or it is damaged",
  4: "a password is required",
  5: "its security scheme is not supported",
  6: "the page was not found"
}
export const FPDF_ERR_PASSWORD = 4
export const loadErrorText = (code: number) => LOAD_ERRORS[code] ?? `error ${code}`

/** The module of this thread, loaded on first use (a thread that never draws a page never pays for it). */
let loaded: Promise<Pdfium> | undefined

const load = async (): Promise<Pdfium> => {
  const compiled = workerSettings<WebAssembly.Module | undefined>(PDFIUM_MODULE_SETTING, undefined) ??
    (await compilePdfium())
  const pdfium = await new Promise<Pdfium>((resolve, reject) => {
    init({
      // Emscripten's hook for a module compiled elsewhere: instantiated here, its exports given back.
      instantiateWasm: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance) => void) => {
        WebAssembly.instantiate(compiled, imports).then(receive, reject)
        return {}
      }
    }).then(resolve, reject)
  })
  // The wrapper's own initialisation (FPDF_InitLibrary and its extensions): before any other call.
  pdfium.PDFiumExt_Init()
  return pdfium
}

/**
 * A WebAssembly trap: out-of-bounds memory access, `unreachable`, Emscripten's abort (all
 * RuntimeError), or the native stack running out inside the module.
 */
const isTrap = (error: unknown) =>
  error instanceof WebAssembly.RuntimeError ||
  (error instanceof RangeError && /call stack/i.test(error.message))

/** Set by a trap: from then on nothing touches the module, whose thread is ending. */
let trapped = false

/**
 * Ends this worker thread with an uncaught error: the engine sees the thread stop under its request
 * (PdfEngine.ts), answers that request with PdfOperationFailed (500) saying why, and replaces the
 * thread; the other threads, and the documents they hold, are untouched. Thrown on the next tick,
 * outside every promise and fiber, so that nothing can catch it and answer in its stead.
 */
const endThread = (trap: unknown): Promise<never> => {
  trapped = true
  const why = trap instanceof Error ? `${trap.name}: ${trap.message}` : String(trap)
  process.nextTick(() => {
    throw new Error(`PDFium failed inside its WebAssembly (${why}); its thread ends and another takes its place`)
  })
  return new Promise<never>(() => {})
}

/**
 * Runs synchronous work on this thread's PDFium. The work runs whole, with no other request of the
 * thread in between (JavaScript runs one thing at a time), so a document shared by the thread's
 * requests may be changed for the work's duration if the work puts it back before it returns.
 * After a trap the request never answers from here: the thread ends (`endThread`).
 */
export const withPdfium = async <A>(work: (pdfium: Pdfium) => A): Promise<A> => {
  const pdfium = await (loaded ??= load())
  if (trapped) return new Promise<never>(() => {})
  try {
    return work(pdfium)
  } catch (error) {
    if (isTrap(error)) return endThread(error)
    throw error
  }
}

/**
 * The module's memory as bytes. Asked anew for each use and never kept across a PDFium call:
 * growing the memory replaces the view.
 */
export const heap = (pdfium: Pdfium): Uint8Array =>
  // Emscripten sets it on the module (and anew when the memory grows); the package's types omit it.
  (pdfium.pdfium as unknown as { readonly HEAPU8: Uint8Array }).HEAPU8

/** The module's allocator, every allocation to be handed back with `free`. */
export const malloc = (pdfium: Pdfium, size: number) => {
  const pointer = pdfium.pdfium.wasmExports.malloc(Math.max(1, size))
  if (pointer === 0) throw new Error(`PDFium's memory cannot hold ${size} more bytes`)
  return pointer
}

export const free = (pdfium: Pdfium, pointer: number) => pdfium.pdfium.wasmExports.free(pointer)
