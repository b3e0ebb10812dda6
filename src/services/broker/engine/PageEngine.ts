/**
 * Which engine draws page images, by name and version (the @embedpdf/pdfium package, which pins
 * one PDFium build). It is part of the name every drawn page image is cached under
 * (conversion/Renditions.ts): a cache never serves an image another engine drew, and a change of
 * engine or of its version simply finds no image under the new names and draws anew.
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
