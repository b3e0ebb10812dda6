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
