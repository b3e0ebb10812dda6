/**
 * How the PDF engine sets pdf.js up: one place, used by the worker threads and by tests that read
 * real documents the way the engine reads them.
 */
import { createRequire } from "node:module"
import * as path from "node:path"

// pdf.js wants directories with trailing slashes; without standard fonts, non-embedded base-14 text renders as boxes.
const pdfjsRoot = path.dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json")) + path.sep

/** Where pdf.js finds its fonts, character maps and decoders, and how it runs in a worker. */
export const pdfjsResources = {
  standardFontDataUrl: `${pdfjsRoot}standard_fonts${path.sep}`,
  cMapUrl: `${pdfjsRoot}cmaps${path.sep}`,
  cMapPacked: true,
  wasmUrl: `${pdfjsRoot}wasm${path.sep}`,
  isEvalSupported: false,
  verbosity: 0
}

/**
 * The thread's own JSON, kept before pdf.js loads. pdf.js's legacy build (the one Node 20 runs)
 * carries core-js polyfills, one of which replaces JSON.stringify for the whole thread, twice (once
 * for pdf.mjs, once for the worker code pdf.js runs in the same thread), to support JSON.rawJSON,
 * which Node 20 lacks and pdf.js never uses. Every JSON.stringify of the thread then passes each
 * value through two replacer functions: a page's text positions (tracemonkey p1, 62 kB of JSON)
 * took 1.45 ms instead of 0.37 ms warm, and in a CPU profile of a worker thread's first text
 * requests after an upload's analysis had loaded pdf.js, the wrappers took more time than PDFium.
 */
const threadJson = { parse: JSON.parse, stringify: JSON.stringify }

let loaded: Promise<typeof import("pdfjs-dist/legacy/build/pdf.mjs")> | undefined

/**
 * pdf.js, loaded on first use with its worker code (which pdf.js takes from `globalThis.pdfjsWorker`
 * instead of importing it on the first document), and the thread's own JSON given back after both.
 */
export const loadPdfjs = () =>
  loaded ??= (async () => {
    const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs")
    ;(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import("pdfjs-dist/legacy/build/pdf.worker.mjs")
    Object.assign(JSON, threadJson)
    return pdfjs
  })()
