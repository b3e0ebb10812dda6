/**
 * Annotations as the broker's API shows them (spec: Annotation, Annotations wrapper, Annotation
 * creation policy), with the fields the spec leaves open for each type (docs/annotations.md).
 * Positions and geometry are in the displayed page's space, as text positions are: points, origin
 * at the top left of the page as shown, y downwards.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"
import { Rect } from "./Content.ts"
import { DocumentIdParam, DocumentIdRef, ReportAllErrors } from "./Document.ts"

/** The annotation types as a PDF's /Subtype names them (Redact is also the API's RedactText). */
export const PdfAnnotationSubtype = Schema.Literal(
  "Highlight",
  "Underline",
  "StrikeOut",
  "Squiggly",
  "Text",
  "FreeText",
  "Square",
  "Circle",
  "Line",
  "Polygon",
  "PolyLine",
  "Ink",
  "Stamp",
  "Redact"
)
export type PdfAnnotationSubtype = typeof PdfAnnotationSubtype.Type

/** The types the broker keeps; RedactText and Redact are both redactions (text-bound and area). */
export const AnnotationType = Schema.Literal(...PdfAnnotationSubtype.literals, "RedactText").annotations({
  message: () => `type must be one of ${[...PdfAnnotationSubtype.literals, "RedactText"].join(", ")}`
})
export type AnnotationType = typeof AnnotationType.Type

/** How a line's start or end is drawn (PDF 32000-1, table 176): R-arrows point back along the line. */
export const LineEnding = Schema.Literal(
  "None",
  "Square",
  "Circle",
  "Diamond",
  "OpenArrow",
  "ClosedArrow",
  "Butt",
  "ROpenArrow",
  "RClosedArrow",
  "Slash"
)
export type LineEnding = typeof LineEnding.Type

/** A Line's or PolyLine's endings, [start, end]. */
export const LineEndings = Schema.Tuple(LineEnding, LineEnding).annotations({
  message: () => `lineEndings is [start, end], each one of ${LineEnding.literals.join(", ")}`
})

const Component = Schema.Int.pipe(
  Schema.between(0, 255, { message: () => "colour components are integers from 0 to 255" })
)

export class Color extends Schema.Class<Color>("Color")({ r: Component, g: Component, b: Component }) {}

export class AnnotationFlags extends Schema.Class<AnnotationFlags>("AnnotationFlags")({
  hidden: Schema.Boolean,
  readonly: Schema.Boolean,
  locked: Schema.Boolean,
  print: Schema.Boolean
}) {}

export class Point extends Schema.Class<Point>("Point")({ x: Schema.Number, y: Schema.Number }) {}

/** A reply to a note: its own ID, who wrote it, when, and what. */
export class AnnotationReply extends Schema.Class<AnnotationReply>("AnnotationReply")({
  id: Schema.optional(Schema.String),
  creator: Schema.optional(Schema.String),
  date: Schema.optional(Schema.String),
  contents: Schema.String
}) {}

const NonNegative = Schema.Number.pipe(Schema.nonNegative())

/** An annotation's document: `{id}`, or the ID as a string (as transformation elements take it); always shown as `{id}`. */
const AnnotationDocumentId = Schema.transform(
  Schema.Union(Schema.Struct({ id: Schema.String }), Schema.String),
  DocumentIdRef,
  {
    strict: true,
    decode: (ref) => (typeof ref === "string" ? { id: ref } : ref),
    encode: (ref) => ref
  }
)

export class Annotation extends Schema.Class<Annotation>("Annotation")({
  /**
   * Given on creation (PUT) by the client (of the form ^[A-Za-z0-9_-]{8,64}$) or else by the broker;
   * names the annotation in updates and deletions.
   */
  id: Schema.optional(DocumentIdRef),
  type: AnnotationType,
  /** 0-based page index. */
  page: Schema.Int.pipe(Schema.nonNegative({ message: () => "page is a 0-based page index" })),
  position: Rect,
  color: Schema.optional(Color),
  opacity: Schema.optional(Schema.Number.pipe(Schema.between(0, 1, { message: () => "opacity goes from 0 to 1" }))),
  creator: Schema.optional(Schema.String),
  subject: Schema.optional(Schema.String),
  /** Last change and creation, ISO 8601 (set by the broker when a client gives none). */
  date: Schema.optional(Schema.String),
  creationDate: Schema.optional(Schema.String),
  documentId: Schema.optional(AnnotationDocumentId),
  flags: Schema.optional(AnnotationFlags),
  // What the spec leaves open, per type (docs/annotations.md):
  /** A note's, FreeText's, stamp's text; a redaction's overlay text. */
  contents: Schema.optional(Schema.String),
  /** Text notes: the replies, oldest first. */
  replies: Schema.optional(Schema.Array(AnnotationReply)),
  /** Text notes: the review status (Accepted, Rejected, Cancelled, Completed, None). */
  status: Schema.optional(Schema.String),
  /** Highlight, Underline, StrikeOut, Squiggly, RedactText: one box per marked piece of a line. */
  quadPoints: Schema.optional(Schema.Array(Rect)),
  /** Line (its two ends), Polygon and PolyLine (their vertices). */
  points: Schema.optional(Schema.Array(Point)),
  /** Ink: the strokes. */
  inkList: Schema.optional(Schema.Array(Schema.Array(Point))),
  /** Square, Circle, Polygon: fill colour; Line, PolyLine: that of their closed endings. */
  interiorColor: Schema.optional(Color),
  lineWidth: Schema.optional(NonNegative),
  /** Line and PolyLine: how the start and the end are drawn (absent: ["None", "None"]). */
  lineEndings: Schema.optional(LineEndings),
  /** FreeText: font size in points and text colour. */
  fontSize: Schema.optional(NonNegative),
  fontColor: Schema.optional(Color),
  /** Stamp: its name (Approved, Confidential, …); Text: the note's icon. */
  stampName: Schema.optional(Schema.String),
  /** Redactions: the reason (a symbolic name from the policy's availableRedactReasons). */
  redactReason: Schema.optional(Schema.String),
  /** "store" for annotations kept by the broker, "file" for those read from the PDF itself. */
  origin: Schema.optional(Schema.Literal("store", "file"))
}) {}

export class Annotations extends Schema.Class<Annotations>("Annotations")({
  annotations: Schema.Array(Annotation)
}, ReportAllErrors) {}

/** The body of DELETE /annotation: the annotations to remove, by ID (their other fields, if sent, are not read). */
export class AnnotationIds extends Schema.Class<AnnotationIds>("AnnotationIds")({
  annotations: Schema.Array(Schema.Struct({ id: DocumentIdRef }))
}) {}

export const AnnotationQuery = Schema.Struct({ documentId: DocumentIdParam })

const LocalizedNames = Schema.Record({ key: Schema.String, value: Schema.String })

export class AnnotationPolicy extends Schema.Class<AnnotationPolicy>("AnnotationPolicy")({
  canCreateAnnotations: Schema.Boolean,
  textAnnotationsSupportHtml: Schema.Boolean,
  textAnnotationsSupportReply: Schema.Boolean,
  textAnnotationsSupportStatus: Schema.Boolean,
  textAnnotationsCommentSupportReply: Schema.Boolean,
  annotationsSupportSecurity: Schema.Boolean,
  availableSecurityLevels: Schema.Array(
    Schema.Struct({ symbolicName: Schema.String, localizedDisplayNames: LocalizedNames })
  ),
  annotationTemplateCatalog: Schema.Struct({
    annotationTemplates: Schema.Array(Schema.Struct({
      name: Schema.String,
      annotationType: Schema.String,
      contentTemplate: Schema.String,
      annotationStyle: Schema.Struct({ fontColor: Schema.String, fontSize: Schema.Number, rotation: Schema.Number })
    })),
    waterMarkTemplates: Schema.Array(
      Schema.Struct({ name: Schema.String, annotationType: Schema.String, contentTemplate: Schema.String })
    )
  }),
  annotationCreationRuleCatalog: Schema.Struct({
    annotationCreationRules: Schema.Array(Schema.Struct({
      ruleId: Schema.String,
      ruleName: Schema.String,
      annotationTemplate: Schema.Struct({ annotationType: Schema.String }),
      searchOptions: Schema.Struct({ searchText: Schema.String, regex: Schema.Boolean, searchAction: Schema.String })
    }))
  }),
  availableRedactReasons: Schema.Array(Schema.Struct({ symbolicName: Schema.String, displayName: LocalizedNames })),
  defaultRedactReasons: Schema.NullOr(Schema.Array(Schema.String))
}) {}

export const AnnotationFileType = Schema.Literal("FDF", "XFDF").annotations({
  message: () => "sourceType and targetType are FDF or XFDF"
})
export type AnnotationFileType = typeof AnnotationFileType.Type

export const AnnotationConversionParams = Schema.Struct({
  sourceType: AnnotationFileType,
  targetType: AnnotationFileType,
  documentId: DocumentIdParam
})

/** No annotation with that ID on the document, or (for the XFDF export) no annotation at all. */
export class AnnotationNotFound extends Schema.TaggedError<AnnotationNotFound>()(
  "AnnotationNotFound",
  { documentId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {}
