/**
 * What annotations need of a PDF, read by the engine: every page's geometry, and the annotations
 * the file holds. Handled in AnnotationWorker.ts.
 */
import { Schema } from "effect"
import { PdfFailure, PdfSourceFields } from "../engine/PdfRequest.ts"
import { PdfAnnotation } from "./PdfAnnotation.ts"

export const PageGeometry = Schema.Struct({
  x0: Schema.Number,
  y0: Schema.Number,
  width: Schema.Number,
  height: Schema.Number,
  rotation: Schema.Int
})

export class AnnotationBasis extends Schema.Class<AnnotationBasis>("AnnotationBasis")({
  pages: Schema.Array(PageGeometry),
  fileAnnotations: Schema.Array(PdfAnnotation)
}) {}

export class ReadAnnotations extends Schema.TaggedRequest<ReadAnnotations>()("ReadAnnotations", {
  failure: PdfFailure,
  success: AnnotationBasis,
  payload: PdfSourceFields
}) {}
