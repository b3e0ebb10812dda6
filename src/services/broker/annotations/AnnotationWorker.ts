/**
 * Inside a PDF worker thread: the pages' geometry and the file's own annotations (AnnotationRequests.ts).
 */
import type { WorkerRunner } from "@effect/platform"
import { loadWithPdfLib } from "../engine/PdfLibDocuments.ts"
import { attempt } from "../engine/PdfRequest.ts"
import { AnnotationBasis, type ReadAnnotations } from "./AnnotationRequests.ts"
import { pageGeometries } from "./PageSpace.ts"
import { readAnnotations } from "./PdfAnnotationReader.ts"

export const annotationHandlers: WorkerRunner.SerializedRunner.Handlers<ReadAnnotations> = {
  ReadAnnotations: (req) =>
    attempt("Reading annotations", async () => {
      const pdf = await loadWithPdfLib(req.path)
      return new AnnotationBasis({ pages: pageGeometries(pdf), fileAnnotations: readAnnotations(pdf) })
    })
}
