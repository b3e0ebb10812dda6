/**
 * Which engine draws page images and reads page text, by name and version (the @embedpdf/pdfium
 * package, which pins one PDFium build). It is part of the name every drawn page image and every
 * page's runs are cached under (conversion/Renditions.ts, text/DocumentText.ts): a cache never
 * serves what another engine made, and a change of engine or of its version simply finds nothing
 * under the new names and makes it anew.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"

// The package exports no package.json: it is found beside its CommonJS entry (dist/index.cjs).
const entry = createRequire(import.meta.url).resolve("@embedpdf/pdfium")
/** The installed @embedpdf/pdfium's version (GET /version shows it). */
export const PDFIUM_PACKAGE_VERSION = (JSON.parse(
  readFileSync(path.join(path.dirname(entry), "..", "package.json"), "utf8")
) as { readonly version: string }).version

export const PAGE_IMAGE_ENGINE = `pdfium-${PDFIUM_PACKAGE_VERSION}`

/**
 * The engine of page text: PDFium's characters, and the version of how text/PdfiumText.ts makes
 * runs of them (raised whenever a change there changes a page's runs).
 */
export const PAGE_TEXT_ENGINE = `${PAGE_IMAGE_ENGINE}-runs1`
