/**
 * Annotations as the browser viewer holds them (docs/viewer.md "The browser viewer's JSON routes"):
 * the broker's Annotation, whichever store keeps them (the broker, or the provider of a document
 * opened through one). Positions are the broker's: points on the page as displayed, from its top
 * left corner, y downwards.
 */
import { Schema, Struct } from "effect"
import { Annotation } from "../broker/Annotations.ts"
import { ReportAllErrors } from "../broker/Document.ts"

/**
 * The broker's Annotation with `id` a plain string (absent on creation, when it is given one) and
 * without `documentId` (the route's `uuid` names the document).
 */
export class ViewerAnnotation extends Schema.Class<ViewerAnnotation>("ViewerAnnotation")({
  ...Struct.omit(Annotation.fields, "id", "documentId"),
  id: Schema.optional(Schema.String)
}) {}

/** Where a document's annotations are kept: the broker, or the provider the document was opened through. */
export const AnnotationStore = Schema.Literal("broker", "provider")
export type AnnotationStore = typeof AnnotationStore.Type

/** GET annotations. */
export class ViewerAnnotationList extends Schema.Class<ViewerAnnotationList>("ViewerAnnotationList")({
  annotations: Schema.Array(ViewerAnnotation),
  store: AnnotationStore,
  /** A provider's annotations that are not annotations of this shape, left out (and logged). */
  skipped: Schema.Int
}) {}

/** POST annotations (their body and answer) and the answer of PUT: annotations in the body's order. */
export class ViewerAnnotations extends Schema.Class<ViewerAnnotations>("ViewerAnnotations")({
  annotations: Schema.Array(ViewerAnnotation)
}, ReportAllErrors) {}

/** PUT annotations: each names the annotation it replaces. */
export class ChangedAnnotations extends Schema.Class<ChangedAnnotations>("ChangedAnnotations")({
  annotations: Schema.Array(
    ViewerAnnotation.pipe(
      Schema.filter((a) => a.id !== undefined, { message: () => "each annotation to change needs the id it was given" })
    )
  )
}, ReportAllErrors) {}

/** DELETE annotations: the annotations to remove (its body and answer). */
export class AnnotationIdList extends Schema.Class<AnnotationIdList>("AnnotationIdList")({
  ids: Schema.Array(Schema.String)
}) {}
