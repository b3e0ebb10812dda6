/**
 * How the PDF engine sets pdf.js up: one place, used by the worker threads and by tests that read
 * real documents the way the engine reads them; and how a worker thread loads it (`loadPdfjs`).
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
 * The functions of the thread's built-in objects, as they were before pdf.js loaded. pdf.js's
 * legacy build (the one Node 20 runs) carries core-js polyfills: most add what Node 20 lacks
 * (Promise.withResolvers, Uint8Array.fromBase64, iterator helpers), which pdf.js needs; a few
 * replace what the thread has, for corner cases pdf.js never meets, and slow the whole thread
 * down. Measured in Node 20 after loading pdf.mjs and its worker code: JSON.stringify replaced
 * twice, for a JSON.rawJSON Node 20 lacks (a page's text positions, tracemonkey p1, 62 kB of JSON:
 * 1.45 ms instead of 0.37 warm; in a CPU profile of a worker thread's first text requests after an
 * upload's analysis had loaded pdf.js, the wrappers took more time than PDFium), JSON.parse,
 * Array.prototype.push (a million pushes: 40 ms instead of 10) and Function.prototype.toString.
 */
const BUILT_INS: ReadonlyArray<object> = [
  JSON,
  Math,
  Reflect,
  Object,
  Object.prototype,
  Function.prototype,
  Array,
  Array.prototype,
  String,
  String.prototype,
  Number,
  Number.prototype,
  Promise,
  Promise.prototype,
  Map.prototype,
  Set.prototype,
  ArrayBuffer.prototype,
  Uint8Array,
  Object.getPrototypeOf(Uint8Array.prototype) as object,
  RegExp.prototype
]
const threadBuiltIns = BUILT_INS.map((builtIn) => [builtIn, Object.getOwnPropertyDescriptors(builtIn)] as const)

/** Puts back every function of the built-ins that something replaced (what was added stays). */
const restoreBuiltIns = () => {
  for (const [builtIn, descriptors] of threadBuiltIns) {
    for (const key of Reflect.ownKeys(descriptors)) {
      const was = descriptors[key as keyof typeof descriptors] as PropertyDescriptor
      if (typeof was.value !== "function") continue
      if (Object.getOwnPropertyDescriptor(builtIn, key)?.value !== was.value) Object.defineProperty(builtIn, key, was)
    }
  }
}

let loaded: Promise<typeof import("pdfjs-dist/legacy/build/pdf.mjs")> | undefined

/**
 * pdf.js, loaded on first use with its worker code (which pdf.js takes from `globalThis.pdfjsWorker`
 * instead of importing it on the first document), and the thread's built-ins given back after both.
 */
export const loadPdfjs = () =>
  loaded ??= (async () => {
    const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs")
    ;(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import("pdfjs-dist/legacy/build/pdf.worker.mjs")
    restoreBuiltIns()
    return pdfjs
  })()
