/**
 * PDFium's WebAssembly (@embedpdf/pdfium's pdfium.wasm) compiled once, by the broker's main thread,
 * and handed to every worker thread in its settings (src/layers/Broker.ts), which instantiates it
 * (Pdfium.ts). A compiled module handed to a thread shares its code: a new thread runs PDFium's
 * functions as the threads before it compiled and optimized them, instead of compiling each again
 * on its first page. Measured (2026-12-02, tracemonkey p1 at 1240 px, each in a fresh thread):
 * PDFium's start 15-37 ms against 42-91 ms, the first page 48-63 ms against 169-212 ms, each thread
 * about 20 MB smaller; the main thread keeps the code, 17 MB compiled, 30 MB once threads have used
 * it (docs/page-images.md).
 */
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"

/** The key of the compiled module in the settings a worker thread is handed (WorkerSettings.ts). */
export const PDFIUM_MODULE_SETTING = "pdfiumModule"

const WASM = createRequire(import.meta.url).resolve("@embedpdf/pdfium/pdfium.wasm")

/** PDFium compiled: in a thread handed none (a test's), its own. */
export const compilePdfium = (): Promise<WebAssembly.Module> =>
  readFile(WASM).then((bytes) => WebAssembly.compile(bytes))

/** The broker's compiled PDFium, for the settings of its worker threads. */
export const compiledPdfium = Effect.promise(compilePdfium)
