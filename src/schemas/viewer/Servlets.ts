/**
 * The viewer's servlets' parameters and answers (docs/contract/viewer-api.md). Where the contract
 * leaves a format open (crop and print descriptors, the weather body), the choice is written in
 * docs/viewer.md and parsed here, so that a bad parameter is a 400 before any broker is called.
 */
import { Schema } from "effect"
import { DocumentIdRef, DocumentTitle, LAYOUT_TYPE_PREFIX, PageDimensions } from "../broker/Document.ts"

/** A required parameter: present and not empty. */
export const Required = (name: string) =>
  Schema.String.pipe(Schema.minLength(1, { message: () => `${name} is required` }))

/** A decimal integer parameter from `min` to `max`. */
export const IntegerParam = (name: string, min: number, max: number) =>
  Schema.String.pipe(
    Schema.pattern(/^\d{1,9}$/, { message: () => `${name} must be a whole number written in decimal digits` }),
    Schema.compose(Schema.NumberFromString),
    Schema.filter((n) => n >= min && n <= max, { message: () => `${name} must be from ${min} to ${max}` })
  )

/** The largest image width a viewer asks a broker for (the broker has its own limit too). */
export const MAX_IMAGE_WIDTH = 20_000

const Uuid = Required("uuid")
const PagePosition = IntegerParam("pagePosition (0-based)", 0, 999_999_999)

export const UuidParams = Schema.Struct({ uuid: Uuid })

/**
 * The two downloads without a document parameter in the contract: the session's current document,
 * or `uuid` when given (our addition, docs/viewer.md "The current document").
 */
export const CurrentDocumentParams = Schema.Struct({ uuid: Schema.optional(Uuid) })

export const DownloadType = Schema.Literal("INITIAL", "RENDERED", "COMPRESSED").annotations({
  message: () => "type must be INITIAL, RENDERED or COMPRESSED"
})

export const DownloadParams = Schema.Struct({
  uuid: Uuid,
  sourceId: Schema.optional(Schema.String),
  title: Schema.optional(DocumentTitle),
  type: Schema.optional(DownloadType)
})

export const AnnotatedDownloadParams = Schema.Struct({
  operationName: Schema.Literal("renderAnnotations", "renderFDFAnnotations").annotations({
    message: () => "operationName must be renderAnnotations (flattened) or renderFDFAnnotations (editable objects)"
  }),
  uuid: Schema.optional(Uuid)
})

export const CompareParams = Schema.Struct({ left: Required("left"), right: Required("right") })

/** `url`, repeatable: one value or several. */
export const MergeParams = Schema.Struct({
  url: Schema.Union(Required("url"), Schema.Array(Required("url")).pipe(Schema.minItems(1)))
})

/** POST mergeDocumentsServlet: `url` in the query or the form body, each optional (at least one in all). */
export const MergeFormParams = Schema.Struct({
  url: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String)))
})

export const OpenExternalParams = Schema.Struct({ url: Required("url") })

export class MergeResult extends Schema.Class<MergeResult>("MergeResult")({
  uuid: Schema.String,
  /** A string, as the contract has it. */
  nbPages: Schema.String
}) {}

export interface CompositeNode {
  readonly title?: string | undefined
  readonly queryUrl?: string | undefined
  readonly references?: ReadonlyArray<CompositeNode> | undefined
}

/** A node of POST compositeAccessorServlet: a document (`queryUrl`) or a folder (`references`). */
export const CompositeNode: Schema.Schema<CompositeNode> = Schema.Struct({
  title: Schema.optional(DocumentTitle),
  queryUrl: Schema.optional(Schema.String),
  references: Schema.optional(Schema.Array(Schema.suspend((): Schema.Schema<CompositeNode> => CompositeNode)))
}).annotations({ identifier: "CompositeNode" })

export const CompositeGetParams = Schema.Struct({ containerTitleComposite: Schema.optional(DocumentTitle) })

export const CompositePutParams = Schema.Struct({
  documentIdComposite: Required("documentIdComposite"),
  final: Schema.optional(Schema.String),
  containerTitleComposite: Schema.optional(DocumentTitle),
  mimeTypeComposite: Schema.optional(Schema.String)
})

export const PageParams = Schema.Struct({ uuid: Uuid, pagePosition: PagePosition })

/**
 * `annotations` of a page image (ours): `true` (default) draws the annotations as the broker does,
 * `false` leaves out those GET annotations lists, for a browser that draws them itself.
 */
const AnnotationsParam = Schema.BooleanFromString

export const ImageParams = Schema.Struct({
  uuid: Uuid,
  pagePosition: PagePosition,
  /** The image's width in pixels. */
  desc: IntegerParam("desc (the image width in pixels)", 1, MAX_IMAGE_WIDTH),
  annotations: Schema.optional(AnnotationsParam)
})

export const CropParams = Schema.Struct({
  uuid: Uuid,
  locale: Required("locale"),
  pagePosition: PagePosition,
  /** `width=…;x=…;y=…;w=…;h=…[;rotation=…]` (docs/viewer.md "Crop descriptor"). */
  desc: Required("desc"),
  annotations: Schema.optional(AnnotationsParam)
})

export const AnnotationFileParams = Schema.Struct({
  uuid: Uuid,
  type: Schema.optional(Schema.Literal("XFDF", "FDF").annotations({ message: () => "type must be XFDF or FDF" }))
})

export const PrintParams = Schema.Struct({
  uuid: Uuid,
  desc: Required("desc"),
  pages: Required("pages"),
  imagePrintStyle: Schema.optional(Schema.String)
})

export const PrintPageParams = Schema.Struct({
  uuid: Uuid,
  nbPages: IntegerParam("nbPages", 1, 999_999_999),
  renditionPrintWidth: IntegerParam("renditionPrintWidth", 1, MAX_IMAGE_WIDTH),
  browserPrintWidth: IntegerParam("browserPrintWidth", 1, MAX_IMAGE_WIDTH),
  page: Required("page")
})

export const HealthParams = Schema.Struct({
  check: Schema.optional(
    Schema.Literal("SELF", "RENDITION").annotations({ message: () => "check must be SELF or RENDITION" })
  )
})

export const WeatherParams = Schema.Struct({ format: Schema.optional(Schema.String) })

/** One rendition target as GET weather?format=JSON reports it. */
export class TargetWeather extends Schema.Class<TargetWeather>("TargetWeather")({
  url: Schema.String,
  available: Schema.Boolean,
  /** The broker's load score (lower is better), null until it first answers. */
  score: Schema.NullOr(Schema.Number),
  /** When it was last asked, ISO 8601; null before the first poll. */
  checkedAt: Schema.NullOr(Schema.String),
  /** Why it is unavailable. */
  error: Schema.NullOr(Schema.String),
  /** Milliseconds its last /weather answer took. */
  latencyMs: Schema.NullOr(Schema.Number)
}) {}

export const MetadataValues = Schema.Record({
  key: Schema.String,
  value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null)
})

/** One text run of pageContent, per the contract (startTime: a media position, 0 for documents). */
export class ViewerTextPosition extends Schema.Class<ViewerTextPosition>("ViewerTextPosition")({
  pageNumber: Schema.Int,
  position: Schema.Struct({ x: Schema.Number, y: Schema.Number, w: Schema.Number, h: Schema.Number }),
  text: Schema.String,
  individualWidths: Schema.Array(Schema.Number),
  fontSize: Schema.Number,
  font: Schema.String,
  paragraphId: Schema.Int,
  rightToLeftText: Schema.Boolean,
  startTime: Schema.Number,
  /** Clockwise rotation of the run in degrees (ours: the browser's text layer needs it). */
  rotation: Schema.Int
}) {}

export class ViewerPageContent extends Schema.Class<ViewerPageContent>("ViewerPageContent")({
  pageNumber: Schema.Int,
  positionTextList: Schema.Array(ViewerTextPosition),
  imageHyperlinkPositionList: Schema.Array(Schema.Unknown)
}) {}

/** A document of a layout as the viewer contract names it: `documentId` is `{id}`. */
const LayoutEntry = {
  documentId: DocumentIdRef,
  documentTitle: Schema.NullOr(Schema.String),
  mimeType: Schema.NullOr(Schema.String)
}

export class ViewerPageLayout extends Schema.Class<ViewerPageLayout>("ViewerPageLayout")({
  type: Schema.Literal(`${LAYOUT_TYPE_PREFIX}DocumentPageLayout`),
  ...LayoutEntry,
  pageDimensionsList: Schema.Array(PageDimensions)
}) {}

export class ViewerDocumentReference extends Schema.Class<ViewerDocumentReference>("ViewerDocumentReference")({
  type: Schema.Literal(`${LAYOUT_TYPE_PREFIX}DocumentReference`),
  ...LayoutEntry
}) {}

export interface ViewerContainer {
  readonly type: `${typeof LAYOUT_TYPE_PREFIX}DocumentContainer`
  readonly documentId: DocumentIdRef
  readonly documentTitle: string | null
  readonly mimeType: string | null
  readonly children: ReadonlyArray<ViewerDocumentReference | ViewerContainer>
}

/** A container; its `type` tells it from a document (the union below reads it first). */
export const ViewerContainer: Schema.Schema<ViewerContainer> = Schema.Struct({
  type: Schema.Literal(`${LAYOUT_TYPE_PREFIX}DocumentContainer`),
  ...LayoutEntry,
  children: Schema.Array(
    Schema.Union(ViewerDocumentReference, Schema.suspend((): Schema.Schema<ViewerContainer> => ViewerContainer))
  )
}).annotations({ identifier: "ViewerContainer" })

/** documentLayout's answer: a page layout, or a container of documents (parts of an email, a folder). */
export const ViewerLayout = Schema.Union(ViewerPageLayout, ViewerContainer)
