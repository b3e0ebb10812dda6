/**
 * Inside a PDF worker thread: a PDF loaded with pdf-lib, for the features that read its objects or
 * write new ones (annotations, merges, transformations, signatures). Apart from pdf.js's open
 * documents (WorkerDocuments.ts), so that a feature loads only the library it uses
 * (FeatureHandlers.ts).
 */
import { readFile } from "node:fs/promises"
import { PDFDocument } from "pdf-lib"

/** A PDF for pdf-lib (reading its objects, writing new ones); encrypted files are read as they are. */
export const loadWithPdfLib = async (bytesOrPath: string | Uint8Array) =>
  PDFDocument.load(typeof bytesOrPath === "string" ? await readFile(bytesOrPath) : bytesOrPath, {
    ignoreEncryption: true,
    updateMetadata: false,
    throwOnInvalidObject: false
  })
