/** pdf.js's worker code, which pdfjs-dist ships without types: what PdfJsSetup.ts hands pdf.js from it. */
declare module "pdfjs-dist/legacy/build/pdf.worker.mjs" {
  export const WorkerMessageHandler: unknown
}
