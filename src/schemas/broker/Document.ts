/**
 * Documents: identifiers, metadata, layouts and the errors of the document endpoints.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"

/**
 * Annotations of a request body's class: every problem of the body is reported, not only the first
 * (on the class's transformation, where its fields are decoded).
 */
export const ReportAllErrors = [undefined, { parseOptions: { errors: "all" } }] as const

/** The `{id}` object the spec calls DocumentId. */
export class DocumentIdRef extends Schema.Class<DocumentIdRef>("DocumentIdRef")({
  id: Schema.String
}) {}

/** A document ID given as a query parameter: part IDs may use '@' or '/' between indices. */
export const DocumentIdParam = Schema.transform(Schema.NonEmptyString, Schema.String, {
  strict: true,
  decode: (id) => id.replaceAll("@", "/"),
  encode: (id) => id
}).annotations({ description: "A document ID; part IDs use '@' (or '/') between indices" })

/**
 * `{documentId}` as it stands in a URL: one path segment, parts joined by `@`.
 * A `/` can only get here percent-encoded (a raw one splits the segment and never matches a route),
 * and the spec answers that with 400. Decodes to the internal ID with `/` between parts.
 */
export const DocumentIdFromUrl = Schema.transform(
  Schema.String.pipe(
    Schema.filter((s) => s.length > 0 && !s.includes("/"), {
      message: () => "documentId must be one path segment: use '@' between part indices, not a percent-encoded '/'"
    }),
    Schema.filter((s) => !/[\u0000-\u001f\u007f]/.test(s), {
      message: () => "documentId must not contain control characters"
    })
  ),
  Schema.String,
  { strict: true, decode: (s) => s.replaceAll("@", "/"), encode: (s) => s.replaceAll("/", "@") }
)

/** A caller-assigned ID: no `/` or `@`, which are reserved for part IDs. */
export const AssignedDocumentId = Schema.String.pipe(
  Schema.pattern(/^[^/@\s\u0000-\u001f\u007f]{1,200}$/, {
    message: () => "documentId must be 1-200 characters without '/', '@', white space or control characters"
  }),
  // Clients and proxies rewrite "." and ".." path segments, so such an ID could never be reached.
  Schema.filter((id) => id !== "." && id !== "..", { message: () => "documentId must not be '.' or '..'" })
)

/** A title to show people: any text but control characters, which databases and headers refuse. */
export const DocumentTitle = Schema.String.pipe(
  Schema.filter((t) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(t), {
    message: () => "documentTitle must not contain control characters"
  }),
  Schema.maxLength(1000, { message: () => "documentTitle must be at most 1000 characters" })
)

export const LAYOUT_TYPE_PREFIX = "com.docstack.viewer.client.api.document."

export class PageDimensions extends Schema.Class<PageDimensions>("PageDimensions")({
  /** Width of the unrotated page in points (1/72 inch). */
  width: Schema.Number,
  /** Height of the unrotated page in points. */
  height: Schema.Number,
  /** Clockwise rotation the page is displayed with (the PDF /Rotate), in degrees. */
  rotation: Schema.Int,
  dpi: Schema.Int,
  pageLayers: Schema.NullOr(Schema.Unknown)
}) {}

/** A page given by a client: sizes that a page can have. */
const RegisteredPage = Schema.Struct({
  width: Schema.Number.pipe(Schema.positive(), Schema.lessThanOrEqualTo(200_000)),
  height: Schema.Number.pipe(Schema.positive(), Schema.lessThanOrEqualTo(200_000)),
  rotation: Schema.Int.pipe(Schema.filter((r) => r % 90 === 0, { message: () => "rotation must be a multiple of 90" })),
  dpi: Schema.Int.pipe(Schema.positive()),
  pageLayers: Schema.optional(Schema.NullOr(Schema.Unknown))
})

export class DocumentPageLayout extends Schema.Class<DocumentPageLayout>("DocumentPageLayout")({
  type: Schema.Literal(`${LAYOUT_TYPE_PREFIX}DocumentPageLayout`),
  documentId: Schema.String,
  documentTitle: Schema.NullOr(Schema.String),
  mimeType: Schema.NullOr(Schema.String),
  pageDimensionsList: Schema.Array(PageDimensions)
}) {}

export class DocumentReference extends Schema.Class<DocumentReference>("DocumentReference")({
  type: Schema.Literal(`${LAYOUT_TYPE_PREFIX}DocumentReference`),
  documentId: Schema.String,
  documentTitle: Schema.NullOr(Schema.String),
  mimeType: Schema.NullOr(Schema.String)
}) {}

export interface DocumentContainer {
  readonly type: `${typeof LAYOUT_TYPE_PREFIX}DocumentContainer`
  readonly documentId: string
  readonly documentTitle: string | null
  readonly mimeType: string | null
  readonly children: ReadonlyArray<DocumentReference | DocumentContainer>
}

export const DocumentContainer: Schema.Schema<DocumentContainer> = Schema.Struct({
  type: Schema.Literal(`${LAYOUT_TYPE_PREFIX}DocumentContainer`),
  documentId: Schema.String,
  documentTitle: Schema.NullOr(Schema.String),
  mimeType: Schema.NullOr(Schema.String),
  children: Schema.Array(
    Schema.Union(DocumentReference, Schema.suspend((): Schema.Schema<DocumentContainer> => DocumentContainer))
  )
}).annotations({ identifier: "DocumentContainer" })

export const DocumentLayout = Schema.Union(DocumentPageLayout, DocumentContainer)
export type DocumentLayout = typeof DocumentLayout.Type

/** Body of POST /documents/layout: a page layout whose documentId names the new document. */
export class LayoutRegistration extends Schema.Class<LayoutRegistration>("LayoutRegistration")({
  type: Schema.optional(Schema.String.pipe(Schema.filter((type) => !type.endsWith("DocumentContainer"), {
    message: () => "only a DocumentPageLayout can be registered: containers come from uploaded emails and archives"
  }))),
  documentId: Schema.Union(AssignedDocumentId, Schema.Struct({ id: AssignedDocumentId })),
  documentTitle: Schema.optional(Schema.NullOr(DocumentTitle)),
  mimeType: Schema.optional(Schema.NullOr(Schema.String)),
  pageDimensionsList: Schema.Array(RegisteredPage).pipe(Schema.minItems(1))
}) {}

export class DocumentMetadata extends Schema.Class<DocumentMetadata>("DocumentMetadata")({
  documentId: DocumentIdRef,
  mimeType: Schema.String,
  format: Schema.String,
  renderedMimeType: Schema.String,
  renderedFormat: Schema.String,
  conversionOrderIds: Schema.Record({ key: Schema.String, value: Schema.Struct({ id: Schema.String }) }),
  documentTitle: Schema.NullOr(Schema.String),
  documentMetadata: Schema.String,
  urlParameters: Schema.Array(Schema.String)
}) {}

export class UploadParams extends Schema.Class<UploadParams>("UploadParams")({
  documentId: Schema.optional(AssignedDocumentId),
  documentTitle: Schema.optional(DocumentTitle),
  documentUrl: Schema.optional(Schema.String),
  failOnUnsupported: Schema.optionalWith(Schema.BooleanFromString, { default: () => true })
}) {}

/** Body of POST /accessor/load: where the document is. Other fields are accepted and ignored. */
export class DocumentAccessor extends Schema.Class<DocumentAccessor>("DocumentAccessor")({
  url: Schema.NonEmptyString.annotations({
    description: "An http(s) URL, or a file: URL or absolute path inside FILE_URL_ROOTS"
  }),
  documentTitle: Schema.optional(DocumentTitle)
}) {}

/** How a PDF download carries the document's annotations: not at all, as annotation objects, or drawn into the pages. Redactions are applied for real either way. */
export const AnnotationsInFile = Schema.Literal("none", "embed", "flatten").annotations({
  message: () => "annotations must be none, embed (as annotation objects) or flatten (drawn into the pages)"
})
export type AnnotationsInFile = typeof AnnotationsInFile.Type

export const FileFormatParam = Schema.Struct({
  format: Schema.optional(Schema.Literal("pdf", "rendered", "compressed")),
  /** With format=pdf: the document's annotations written into the file (docs/annotations.md). */
  annotations: Schema.optional(AnnotationsInFile)
})

/** A printout shows the annotations, redactions applied, unless asked otherwise. */
export const PrintableParams = Schema.Struct({
  annotations: Schema.optionalWith(AnnotationsInFile, { default: () => "flatten" as const })
})

// ---- errors -------------------------------------------------------------------------------

export class DocumentNotFound extends Schema.TaggedError<DocumentNotFound>()(
  "DocumentNotFound",
  { documentId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  static of(documentId: string) {
    return new DocumentNotFound({ documentId, message: `No document with ID '${documentId}'` })
  }
}

export class DocumentAlreadyExists extends Schema.TaggedError<DocumentAlreadyExists>()(
  "DocumentAlreadyExists",
  { documentId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 409 })
) {
  static of(documentId: string) {
    return new DocumentAlreadyExists({
      documentId,
      message: `A document with ID '${documentId}' is already registered`
    })
  }
}

/** A request the broker will not act on: wrong content type, bad parameter, unsupported or unreadable file. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  {
    message: Schema.String,
    /** For programs: `pageOutOfRange` when the page asked for does not exist (the viewer answers that 404). */
    reason: Schema.optional(Schema.Literal("pageOutOfRange"))
  },
  HttpApiSchema.annotations({ status: 400 })
) {}

export class UploadTooLarge extends Schema.TaggedError<UploadTooLarge>()(
  "UploadTooLarge",
  { limitBytes: Schema.Number, message: Schema.String },
  HttpApiSchema.annotations({ status: 413 })
) {}

export class RangeNotSatisfiable extends Schema.TaggedError<RangeNotSatisfiable>()(
  "RangeNotSatisfiable",
  { size: Schema.Number, message: Schema.String },
  HttpApiSchema.annotations({ status: 416 })
) {}

/** Work on a registered document failed inside the broker (render, parse, missing blob). */
export class DocumentProcessingFailed extends Schema.TaggedError<DocumentProcessingFailed>()(
  "DocumentProcessingFailed",
  { documentId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {}

/** A document to load by URL or path could not be fetched from an address the broker may use. */
export class SourceUnreachable extends Schema.TaggedError<SourceUnreachable>()(
  "SourceUnreachable",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {}
