/**
 * The broker's HTTP contract (spec: broker-api.md), one group per spec section. Contract only:
 * no service is imported here.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import {
  AnnotationConversionParams,
  AnnotationIds,
  AnnotationNotFound,
  AnnotationPolicy,
  AnnotationQuery,
  Annotations
} from "../../schemas/broker/Annotations.ts"
import {
  ComparisonOrder,
  ComparisonOrderCreated,
  ComparisonRequest,
  DifferenceParams,
  DifferenceResult
} from "../../schemas/broker/Comparisons.ts"
import {
  Bookmarks,
  Destinations,
  DocumentSearchParams,
  DocumentSearchResult,
  PagesContainingText,
  PageSearchResult,
  PageText,
  SearchOptions,
  Signatures
} from "../../schemas/broker/Content.ts"
import {
  AssignedDocumentId,
  DocumentAccessor,
  DocumentAlreadyExists,
  DocumentIdFromUrl,
  DocumentIdRef,
  DocumentLayout,
  DocumentMetadata,
  DocumentNotFound,
  DocumentProcessingFailed,
  FileFormatParam,
  InvalidRequest,
  LayoutRegistration,
  PrintableParams,
  RangeNotSatisfiable,
  SourceUnreachable,
  UploadParams,
  UploadTooLarge
} from "../../schemas/broker/Document.ts"
import { HealthRecords } from "../../schemas/broker/Health.ts"
import {
  ConversionOrder,
  ConversionOrderCreated,
  ConversionRequest,
  OrderIdRef,
  OrderNotFound,
  OrderWaitParams
} from "../../schemas/broker/Orders.ts"
import { PageImageParams } from "../../schemas/broker/PageImage.ts"
import {
  DocumentHasNoProvider,
  ProviderAccessDenied,
  ProviderDocumentNotFound,
  ProviderUnavailable
} from "../../schemas/broker/Providers.ts"
import {
  TransformationOrder,
  TransformationOrderCreated,
  TransformationRequest
} from "../../schemas/broker/Transformations.ts"
import {
  ProviderAnnotation,
  ProviderAnnotationId,
  ProviderFolder,
  ProviderMetadata
} from "../../schemas/provider/ProviderContract.ts"

const documentId = HttpApiSchema.param("documentId", DocumentIdFromUrl)
const page = HttpApiSchema.param(
  "page",
  Schema.String.pipe(
    Schema.pattern(/^\d{1,9}$/, { message: () => "page must be a 0-based page number written in decimal digits" }),
    Schema.compose(Schema.NumberFromString)
  )
)

const Binary = (contentType: string, description: string) =>
  HttpApiSchema.Uint8Array({ contentType }).annotations({ description })

const Ok = HttpApiSchema.Empty(200)

export class DocumentsGroup extends HttpApiGroup.make("documents")
  .add(
    HttpApiEndpoint.post("upload", "/documents")
      .setUrlParams(UploadParams)
      .setPayload(Binary("application/octet-stream", "The file's bytes"))
      .addSuccess(DocumentIdRef)
      .addError(DocumentAlreadyExists)
      .addError(UploadTooLarge)
      .addError(SourceUnreachable)
      .annotate(
        OpenApi.Description,
        "Registers a document from its bytes. PDFs and images are analysed and composite files (emails, ZIP) expanded before the answer, so a file that cannot be shown is refused here; office files, text, HTML, XPS and EPUB are converted by a conversion order that a layout request waits for."
      )
  )
  .add(
    HttpApiEndpoint.post("registerLayout", "/documents/layout")
      .setPayload(LayoutRegistration)
      .addSuccess(Ok)
      .addError(DocumentAlreadyExists)
  )
  .add(HttpApiEndpoint.get("metadata")`/documents/${documentId}`.addSuccess(DocumentMetadata))
  .add(
    HttpApiEndpoint.get("file")`/documents/${documentId}/file`
      .setUrlParams(FileFormatParam)
      .addSuccess(
        Binary(
          "application/octet-stream",
          "The original file, its PDF rendition (format=pdf or rendered), or the original in a ZIP (format=compressed)"
        )
      )
  )
  .add(
    HttpApiEndpoint.get("fileChunk")`/documents/${documentId}/file/chunk`
      .setUrlParams(FileFormatParam)
      .setHeaders(Schema.Struct({ range: Schema.optional(Schema.String) }))
      .addSuccess(Binary("application/octet-stream", "The requested bytes"), { status: 206 })
      .addError(RangeNotSatisfiable)
  )
  .add(HttpApiEndpoint.del("remove")`/documents/${documentId}`.addSuccess(Ok))
  .add(HttpApiEndpoint.get("check")`/documents/${documentId}/check`.addSuccess(Ok))
  .add(HttpApiEndpoint.get("layout")`/documents/${documentId}/layout`.addSuccess(DocumentLayout))
  .add(
    HttpApiEndpoint.get("pageImage")`/documents/${documentId}/pages/${page}/image`
      .setUrlParams(PageImageParams)
      .addSuccess(Binary("image/png", "The page as PNG"))
  )
  .add(
    HttpApiEndpoint.get("pageTextPositions")`/documents/${documentId}/pages/${page}/text/position`.addSuccess(PageText)
  )
  .add(
    HttpApiEndpoint.get("searchPage")`/documents/${documentId}/pages/${page}/text`
      .setUrlParams(SearchOptions)
      .addSuccess(PageSearchResult)
  )
  .add(
    HttpApiEndpoint.get("searchDocument")`/documents/${documentId}/search`
      .setUrlParams(DocumentSearchParams)
      .addSuccess(DocumentSearchResult)
  )
  .add(
    HttpApiEndpoint.get("pagesContaining")`/documents/${documentId}/pages`
      .setUrlParams(SearchOptions)
      .addSuccess(PagesContainingText)
  )
  .add(HttpApiEndpoint.get("bookmarks")`/documents/${documentId}/bookmarks`.addSuccess(Bookmarks))
  .add(HttpApiEndpoint.get("destinations")`/documents/${documentId}/destinations`.addSuccess(Destinations))
  .add(HttpApiEndpoint.get("signatures")`/documents/${documentId}/signatures`.addSuccess(Signatures))
  .add(
    HttpApiEndpoint.get("printable")`/documents/${documentId}/printable`
      .setUrlParams(PrintableParams)
      .addSuccess(
        Binary(
          "application/pdf",
          "A PDF ready to print: by default with the document's annotations drawn in and its redactions applied"
        )
      )
  )
  .add(
    HttpApiEndpoint.get("annotationsFile")`/documents/${documentId}/file/annotations`
      .addSuccess(Binary("application/vnd.adobe.xfdf", "The document's annotations as XFDF"))
      .addError(AnnotationNotFound)
      .annotate(
        OpenApi.Description,
        "Every annotation the document shows (the broker's and those of the PDF file) as XFDF; 404 when it has none."
      )
  )
  .add(
    HttpApiEndpoint.post("importAnnotationsFile")`/documents/${documentId}/file/annotations`
      .setPayload(Binary("application/octet-stream", "An XFDF or FDF file (told apart by content)"))
      .addSuccess(Schema.Array(DocumentIdRef))
      .annotate(
        OpenApi.Description,
        "Applies an XFDF or FDF file (FDF when it starts with %FDF-) to the document's annotations, placed with each page's real geometry: an annotation whose name is the id of one of the document's annotations replaces it, every other is added. Answers the ids of the annotations written, in the file's order. 400 (nothing written) for an unreadable file, one larger than ANNOTATION_FILE_MAX_BYTES, an annotation on a page the document lacks or an invalid one, or a composite document."
      )
  )
  .add(HttpApiEndpoint.get("conversions")`/documents/${documentId}/conversions`.addSuccess(Schema.Array(OrderIdRef)))
  .addError(InvalidRequest)
  .addError(DocumentNotFound)
  .addError(DocumentProcessingFailed)
{}

const orderId = HttpApiSchema.param("conversionOrderId", Schema.String)

export class ConversionsGroup extends HttpApiGroup.make("conversions")
  .add(
    HttpApiEndpoint.post("request", "/conversions")
      .setPayload(ConversionRequest)
      .addSuccess(ConversionOrderCreated)
      .annotate(
        OpenApi.Description,
        "Queues the conversion of a document (of every part, for a composite one) to its PDF rendition."
      )
  )
  .add(HttpApiEndpoint.get("list", "/conversions").addSuccess(Schema.Array(ConversionOrder)))
  .add(
    HttpApiEndpoint.get("get")`/conversions/${orderId}`
      .addSuccess(ConversionOrder)
      .annotate(OpenApi.Description, "One order, with queuedTime. processingTime and queuedTime are in milliseconds.")
  )
  .add(
    HttpApiEndpoint.del("remove")`/conversions/${orderId}`.addSuccess(Ok).annotate(
      OpenApi.Description,
      "Cancels the order (a running conversion is stopped) and removes it."
    )
  )
  .add(HttpApiEndpoint.del("removeAll", "/conversions").addSuccess(Ok))
  .addError(InvalidRequest)
  .addError(DocumentNotFound)
  .addError(OrderNotFound)
  .addError(DocumentProcessingFailed)
{}

const transformationOrderId = HttpApiSchema.param("transformationOrderId", Schema.String)

export class TransformationsGroup extends HttpApiGroup.make("transformations")
  .add(
    HttpApiEndpoint.post("request", "/transformations")
      .setPayload(TransformationRequest)
      .addSuccess(TransformationOrderCreated)
      .annotate(
        OpenApi.Description,
        "Queues a transformation: each transformation detail becomes one PDF document made of its elements' pages, in order (merge, split, reorder); RedactText and Redact annotations in `annotations` are redacted for real, other annotations are written into the result."
      )
  )
  .add(HttpApiEndpoint.get("list", "/transformations").addSuccess(Schema.Array(TransformationOrder)))
  .add(
    HttpApiEndpoint.get("get")`/transformations/${transformationOrderId}`
      .setUrlParams(OrderWaitParams)
      .addSuccess(TransformationOrder)
      .annotate(
        OpenApi.Description,
        "One order; with timeoutMs, answers when it is PROCESSED or FAILED or when timeoutMs has passed, whichever is first."
      )
  )
  .add(HttpApiEndpoint.del("remove")`/transformations/${transformationOrderId}`.addSuccess(Ok))
  .add(HttpApiEndpoint.del("removeAll", "/transformations").addSuccess(Ok))
  .addError(InvalidRequest)
  .addError(DocumentNotFound)
  .addError(OrderNotFound)
  .addError(DocumentProcessingFailed)
{}

const comparisonOrderId = HttpApiSchema.param("comparisonOrderId", Schema.String)

export class ComparisonsGroup extends HttpApiGroup.make("comparisons")
  .add(
    HttpApiEndpoint.post("request", "/comparisons")
      .setPayload(ComparisonRequest)
      .addSuccess(ComparisonOrderCreated)
      .annotate(
        OpenApi.Description,
        "Queues an image comparison of two documents, page by page; its result (targetDocumentId) is a document showing the differences."
      )
  )
  .add(HttpApiEndpoint.get("list", "/comparisons").addSuccess(Schema.Array(ComparisonOrder)))
  .add(
    HttpApiEndpoint.get("get")`/comparisons/${comparisonOrderId}`
      .setUrlParams(OrderWaitParams)
      .addSuccess(ComparisonOrder)
      .annotate(
        OpenApi.Description,
        "One order; with timeoutMs, answers when it is PROCESSED or FAILED or when timeoutMs has passed, whichever is first."
      )
  )
  .add(HttpApiEndpoint.del("remove")`/comparisons/${comparisonOrderId}`.addSuccess(Ok))
  .add(HttpApiEndpoint.del("removeAll", "/comparisons").addSuccess(Ok))
  .add(
    HttpApiEndpoint.get("difference", "/difference")
      .setUrlParams(DifferenceParams)
      .addSuccess(DifferenceResult)
      .annotate(
        OpenApi.Description,
        "The word-level difference of the two documents' text, with where each change stands on the pages."
      )
  )
  .addError(InvalidRequest)
  .addError(DocumentNotFound)
  .addError(OrderNotFound)
  .addError(DocumentProcessingFailed)
{}

export class AnnotationsGroup extends HttpApiGroup.make("annotations")
  .add(HttpApiEndpoint.get("list", "/annotation").setUrlParams(AnnotationQuery).addSuccess(Annotations))
  .add(
    HttpApiEndpoint.put("create", "/annotation")
      .setUrlParams(AnnotationQuery)
      .setPayload(Annotations)
      .addSuccess(Ok)
      .annotate(OpenApi.Description, "Creates the annotations; the broker gives each its id (GET lists them).")
  )
  .add(
    HttpApiEndpoint.post("update", "/annotation").setUrlParams(AnnotationQuery).setPayload(Annotations).addSuccess(Ok)
  )
  .add(
    HttpApiEndpoint.del("remove", "/annotation").setUrlParams(AnnotationQuery).setPayload(AnnotationIds).addSuccess(Ok)
  )
  .add(HttpApiEndpoint.get("policy", "/annotation/policy").setUrlParams(AnnotationQuery).addSuccess(AnnotationPolicy))
  .add(
    HttpApiEndpoint.post("convert", "/annotations/conversion")
      .setUrlParams(AnnotationConversionParams)
      .setHeaders(Schema.Struct({ accept: Schema.String }))
      .setPayload(Binary("application/octet-stream", "The FDF or XFDF file"))
      .addSuccess(
        Binary(
          "application/octet-stream",
          "The annotations in the target format (application/vnd.fdf or application/vnd.adobe.xfdf)"
        )
      )
  )
  .addError(InvalidRequest)
  .addError(DocumentNotFound)
  .addError(AnnotationNotFound)
  .addError(DocumentProcessingFailed)
{}

export class DocumentLoadingGroup extends HttpApiGroup.make("documentLoading")
  .add(
    HttpApiEndpoint.post("load", "/accessor/load")
      .setPayload(DocumentAccessor)
      .addSuccess(DocumentIdRef)
      .addError(UploadTooLarge)
      .addError(SourceUnreachable)
      .annotate(
        OpenApi.Description,
        "Registers a document fetched from a URL (http, https) or a local file inside FILE_URL_ROOTS."
      )
  )
  .addError(InvalidRequest)
  .addError(DocumentProcessingFailed)
{}

const annotationId = HttpApiSchema.param("annotationId", Schema.String)

/** Who asks, forwarded to the provider (its authentication parameters; these two by default). */
const ProviderUser = Schema.Struct({ user: Schema.optional(Schema.String), alf_ticket: Schema.optional(Schema.String) })

export class ProvidersGroup extends HttpApiGroup.make("providers")
  .add(
    HttpApiEndpoint.post("open", "/registry/documents")
      .setHeaders(Schema.Struct({ "x-provider-id": Schema.optional(Schema.String) }))
      .setPayload(
        Schema.Record({ key: Schema.String, value: Schema.String }).pipe(
          HttpApiSchema.withEncoding({ kind: "UrlParams" })
        )
      )
      .addSuccess(DocumentIdRef)
      .annotate(
        OpenApi.Description,
        "Opens a document a provider holds, named by form-encoded parameters (id=…, nodeRef=…) forwarded to the provider named by X-Provider-ID (else REGISTRY_DEFAULT_PROVIDER). Content-Type is the document's expected type (application/json for a folder); the body is form-encoded whatever it says."
      )
  )
  .add(
    HttpApiEndpoint.post("openFolder", "/registry/folders")
      .setHeaders(Schema.Struct({ "x-provider-id": Schema.optional(Schema.String) }))
      .setUrlParams(Schema.Struct({ ...ProviderUser.fields, documentId: Schema.optional(AssignedDocumentId) }))
      .setPayload(ProviderFolder)
      .addSuccess(DocumentIdRef)
      .addError(DocumentAlreadyExists)
      .addError(UploadTooLarge)
      .annotate(
        OpenApi.Description,
        "Registers a container built from a folder tree (a ProviderFolder) as a provider's folder answer is: its files are fetched on first use from the provider named by X-Provider-ID (else REGISTRY_DEFAULT_PROVIDER) with user/alf_ticket, or, for a file whose parameters are only {documentUrl}, from that http(s) URL. Under documentId when given (409 if taken), else a new ID."
      )
  )
  .add(
    HttpApiEndpoint.post("updateMetadata")`/documents/${documentId}/metadata`
      .setUrlParams(ProviderUser)
      .setPayload(ProviderMetadata)
      .addSuccess(ProviderMetadata)
      .addError(DocumentHasNoProvider)
      .annotate(
        OpenApi.Description,
        "Sends metadata properties (null removes one) to the provider holding the document (a provider file, or a provider folder's file <id>/<i>), which merges them; answers all the provider stores for it. 404 DocumentHasNoProvider for any other document."
      )
  )
  .add(
    HttpApiEndpoint.get("annotationIds")`/documents/${documentId}/annotations/ids`
      .setUrlParams(ProviderUser)
      .addSuccess(Schema.Array(ProviderAnnotationId))
  )
  .add(
    HttpApiEndpoint.get("annotation")`/documents/${documentId}/annotations/${annotationId}`
      .setUrlParams(ProviderUser)
      .addSuccess(ProviderAnnotation)
  )
  .add(
    HttpApiEndpoint.post("createAnnotation")`/documents/${documentId}/annotations`
      .setUrlParams(ProviderUser)
      .setPayload(ProviderAnnotation)
      .addSuccess(ProviderAnnotation)
      .annotate(OpenApi.Description, "Creates the annotation with its provider, which gives it its id.")
  )
  .add(
    HttpApiEndpoint.put("updateAnnotation")`/documents/${documentId}/annotations/${annotationId}`
      .setUrlParams(ProviderUser)
      .setPayload(ProviderAnnotation)
      .addSuccess(ProviderAnnotation)
  )
  .add(
    HttpApiEndpoint.del("removeAnnotation")`/documents/${documentId}/annotations/${annotationId}`
      .setUrlParams(ProviderUser)
      .addSuccess(Ok)
  )
  .addError(InvalidRequest)
  .addError(ProviderAccessDenied)
  .addError(DocumentNotFound)
  .addError(AnnotationNotFound)
  .addError(ProviderDocumentNotFound)
  .addError(DocumentProcessingFailed)
  .addError(ProviderUnavailable)
  .annotate(
    OpenApi.Description,
    "Documents a provider holds, and their annotations and metadata, kept by the provider (docs/providers.md)."
  )
{}

export class BrokerNotReady extends Schema.TaggedError<BrokerNotReady>()(
  "BrokerNotReady",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
) {}

const Html = HttpApiSchema.Text({ contentType: "text/html" })

export class AdministrationGroup extends HttpApiGroup.make("administration")
  .add(HttpApiEndpoint.get("readiness", "/health/readiness").addSuccess(Ok).addError(BrokerNotReady))
  .add(HttpApiEndpoint.get("healthRecords", "/health/records").addSuccess(Html))
  .add(HttpApiEndpoint.get("healthRecordsRaw", "/health/records/raw").addSuccess(HealthRecords))
  .add(
    HttpApiEndpoint.get("version", "/version").addSuccess(Schema.Record({ key: Schema.String, value: Schema.String }))
  )
  .add(
    HttpApiEndpoint.get("metadata", "/metadata").addSuccess(Schema.Record({ key: Schema.String, value: Schema.String }))
  )
  .add(HttpApiEndpoint.get("weather", "/weather").addSuccess(HttpApiSchema.Text({ contentType: "text/plain" })))
  .add(HttpApiEndpoint.get("admin", "/admin").addSuccess(Html))
{}

export class BrokerApi extends HttpApi.make("broker")
  .add(DocumentsGroup)
  .add(ConversionsGroup)
  .add(ComparisonsGroup)
  .add(TransformationsGroup)
  .add(AnnotationsGroup)
  .add(DocumentLoadingGroup)
  .add(ProvidersGroup)
  .add(AdministrationGroup)
  .annotate(OpenApi.Title, "Document broker")
  .annotate(OpenApi.Version, "2026.2.0")
{}
