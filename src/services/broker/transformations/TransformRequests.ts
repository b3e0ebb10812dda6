/**
 * The documents of a transformation, built by the engine: each output is a list of pages taken
 * from the sources, whose redaction areas are redacted for real first; annotations are written
 * onto output pages. Each output is written to a file of `outDir`; the answer lists them in order.
 * Handled in TransformWorker.ts.
 */
import { Config, Duration, Schema } from "effect"
import { durationConfig } from "../../common/DurationConfig.ts"
import { PdfAnnotation, PdfRect } from "../annotations/PdfAnnotation.ts"
import { PdfFailure, PdfSourceFields } from "../engine/PdfRequest.ts"
import { OutlineEntry } from "../outline/OutlineEntry.ts"

export class Transform extends Schema.TaggedRequest<Transform>()("Transform", {
  failure: PdfFailure,
  success: Schema.Array(Schema.String),
  payload: {
    /** Each source PDF, with the areas to redact on its pages (PDF user space). */
    sources: Schema.Array(
      Schema.Struct({
        ...PdfSourceFields,
        redactions: Schema.Array(Schema.Struct({ page: Schema.Int, rect: PdfRect }))
      })
    ),
    outputs: Schema.Array(Schema.Struct({
      pages: Schema.Array(Schema.Struct({ source: Schema.Int, page: Schema.Int })),
      /** Annotations to write into the output, each's `page` naming an output page: as annotation objects, or drawn into the pages. */
      annotations: Schema.Array(PdfAnnotation),
      annotationMode: Schema.Literal("objects", "flatten"),
      /** The result's /Title (what PDF readers show as the document's name). */
      title: Schema.optional(Schema.String),
      /** The result's bookmarks. */
      outline: Schema.optional(Schema.Array(OutlineEntry)),
      /** `annotations` are all of the document's: the pages' own annotations of the kept types go first. */
      replaceOwnAnnotations: Schema.optional(Schema.Boolean)
    })),
    outDir: Schema.String
  }
}) {}

/** What the worker threads need to transform: how long one document's redaction (MuPDF and the vector pass) may take. */
export const transformWorkerSettings = Config.all({
  redactionTimeoutMs: durationConfig("REDACTION_TIMEOUT", Duration.minutes(2)).pipe(Config.map(Duration.toMillis))
})
