/**
 * The viewer's HTTP contract (spec: viewer-api.md), one group per spec section. Paths are relative
 * to VIEWER_BASE_PATH (default /viewergwt/), added when the API is served (`viewerApiAt`).
 * Contract only: no service is imported here.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { AnnotationNotFound, AnnotationPolicy } from "../../schemas/broker/Annotations.ts"
import {
  DocumentNotFound,
  DocumentProcessingFailed,
  InvalidRequest,
  SourceUnreachable,
  UploadTooLarge
} from "../../schemas/broker/Document.ts"
import { OrderNotFound } from "../../schemas/broker/Orders.ts"
import {
  DocumentHasNoProvider,
  ProviderAccessDenied,
  ProviderDocumentNotFound,
  ProviderUnavailable
} from "../../schemas/broker/Providers.ts"
import { DocumentState, SearchParams, ViewerBookmarks, ViewerSearchResult } from "../../schemas/viewer/Reader.ts"
import {
  AnnotatedDownloadParams,
  AnnotationFileParams,
  CompareParams,
  CompositeGetParams,
  CompositeNode,
  CompositePutParams,
  CropParams,
  CurrentDocumentParams,
  DownloadParams,
  HealthParams,
  ImageParams,
  MergeFormParams,
  MergeParams,
  MergeResult,
  MetadataValues,
  OpenExternalParams,
  PageParams,
  PrintPageParams,
  PrintParams,
  TargetWeather,
  UuidParams,
  ViewerLayout,
  ViewerPageContent,
  WeatherParams
} from "../../schemas/viewer/Servlets.ts"
import { TextDifference } from "../../schemas/viewer/TextDifference.ts"
import {
  AnnotationIdList,
  ChangedAnnotations,
  ViewerAnnotationList,
  ViewerAnnotations
} from "../../schemas/viewer/ViewerAnnotation.ts"
import {
  AnnotationsReadOnly,
  ContainerNotFound,
  PageNotFound,
  RenditionUnavailable,
  TokenRejected,
  TokenValidationFailed
} from "../../schemas/viewer/ViewerErrors.ts"
import {
  ComparisonParams,
  OrderParams,
  OrderStarted,
  OrderStatus,
  TransformationBody
} from "../../schemas/viewer/ViewerOrders.ts"

const Text = HttpApiSchema.Text()
const Html = HttpApiSchema.Text({ contentType: "text/html" })
const Binary = (contentType: string, description: string) =>
  HttpApiSchema.Uint8Array({ contentType }).annotations({ description })

/** A multipart body with its `file` part (uploads and annotation imports). */
export const FileUpload = HttpApiSchema.Multipart(Schema.Struct({ file: Multipart.SingleFileSchema }))

export class ViewerDocumentsGroup extends HttpApiGroup.make("documents")
  .add(
    HttpApiEndpoint.get("uploadByReference", "/uploadServlet")
      .setUrlParams(UuidParams)
      .addSuccess(Text)
      .annotate(
        OpenApi.Description,
        "Opens a document of the brokers' default provider by its connector-level ID (`id=…&objectStoreName=…`, or a bare id) and answers the viewer's document ID."
      )
  )
  .add(
    HttpApiEndpoint.post("upload", "/uploadServlet")
      .setPayload(FileUpload)
      .addSuccess(Text)
      .addError(UploadTooLarge)
  )
  .add(
    HttpApiEndpoint.get("download", "/downloadServlet")
      .setUrlParams(DownloadParams)
      .addSuccess(
        Binary(
          "application/octet-stream",
          "The document: original (INITIAL), PDF rendition (RENDERED) or ZIP (COMPRESSED)"
        )
      )
  )
  .add(
    HttpApiEndpoint.get("downloadBase64", "/downloadBase64EncodedDocument")
      .setUrlParams(CurrentDocumentParams)
      .addSuccess(Text)
  )
  .add(
    HttpApiEndpoint.get("downloadWithAnnotations", "/downloadDocumentWithAnnotations")
      .setUrlParams(AnnotatedDownloadParams)
      .addSuccess(Binary("application/pdf", "The PDF with the annotations flattened or as editable objects"))
  )
  .add(
    HttpApiEndpoint.get("mergedWithCompareResult", "/downloadServlet/mergedWithCompareResult")
      .setUrlParams(CompareParams)
      .addSuccess(Binary("application/pdf", "Both documents, common text highlighted green and differing text red"))
  )
  .add(
    HttpApiEndpoint.get("merge", "/mergeDocumentsServlet")
      .setUrlParams(MergeParams)
      .addSuccess(MergeResult)
      .addError(SourceUnreachable)
      .addError(UploadTooLarge)
      .annotate(
        OpenApi.Description,
        "Merges into one PDF the documents each `url` names: loadingQuery?<provider parameters>, an http(s) URL, ?uuid=<document ID> or a document ID (b64_…)."
      )
  )
  .add(
    HttpApiEndpoint.post("mergeForm", "/mergeDocumentsServlet")
      .setUrlParams(MergeFormParams)
      .setPayload(
        Schema.Struct({ url: Schema.optional(Schema.String).annotations({ description: "Repeatable" }) }).pipe(
          HttpApiSchema.withEncoding({ kind: "UrlParams" })
        )
      )
      .addSuccess(MergeResult)
      .addError(SourceUnreachable)
      .addError(UploadTooLarge)
      .annotate(OpenApi.Description, "The same, `url` (repeatable) in the query, in a form-encoded body, or both.")
  )
  .add(HttpApiEndpoint.get("evict", "/evictDocument").setUrlParams(UuidParams).addSuccess(Text))
  .add(
    HttpApiEndpoint.get("openExternal", "/openExternalDocument")
      .setUrlParams(OpenExternalParams)
      .addSuccess(Text)
      .addError(SourceUnreachable)
      .addError(UploadTooLarge)
  )
  .addError(ProviderAccessDenied)
  .addError(ProviderDocumentNotFound)
  .addError(ProviderUnavailable)
{}

export class ViewerCompositeGroup extends HttpApiGroup.make("composite")
  .add(HttpApiEndpoint.post("create", "/compositeAccessorServlet").setPayload(CompositeNode).addSuccess(Text))
  .add(HttpApiEndpoint.get("open", "/compositeAccessorServlet").setUrlParams(CompositeGetParams).addSuccess(Text))
  .add(
    HttpApiEndpoint.put("add", "/compositeAccessorServlet")
      .setUrlParams(CompositePutParams)
      .setPayload(HttpApiSchema.Text({ contentType: "application/x-www-form-urlencoded" }))
      .addSuccess(Text)
      .addError(ContainerNotFound)
  )
  .addError(UploadTooLarge)
  .addError(ProviderAccessDenied)
  .addError(ProviderDocumentNotFound)
  .addError(ProviderUnavailable)
{}

export class ViewerStructureGroup extends HttpApiGroup.make("structure")
  .add(HttpApiEndpoint.get("layout", "/documentLayout").setUrlParams(UuidParams).addSuccess(ViewerLayout))
  .add(
    HttpApiEndpoint.get("flatLayout", "/flatDocumentLayout").setUrlParams(UuidParams).addSuccess(
      Schema.Array(Schema.String)
    )
  )
  .add(HttpApiEndpoint.get("pageContent", "/pageContent").setUrlParams(PageParams).addSuccess(ViewerPageContent))
{}

export class ViewerImagingGroup extends HttpApiGroup.make("imaging")
  .add(
    HttpApiEndpoint.get("image", "/imageServlet")
      .setUrlParams(ImageParams)
      .addSuccess(Binary("image/png", "The page at `desc` pixels wide"))
  )
  .add(
    HttpApiEndpoint.get("crop", "/cropImageServlet")
      .setUrlParams(CropParams)
      .addSuccess(Binary("image/png", "The part of the page `desc` names"))
  )
{}

export class ViewerAnnotationsGroup extends HttpApiGroup.make("annotations")
  .add(
    HttpApiEndpoint.get("export", "/servletXFDFAnnotations")
      .setUrlParams(AnnotationFileParams)
      .addSuccess(Binary("application/vnd.adobe.xfdf", "The document's annotations as XFDF, or FDF"))
  )
  .add(
    HttpApiEndpoint.post("import", "/servletXFDFAnnotations")
      .setUrlParams(UuidParams)
      .setPayload(FileUpload)
      .addSuccess(Text)
      .annotate(OpenApi.Description, "Applies an XFDF or FDF file (told apart by content) to the document; answers OK.")
  )
  .addError(AnnotationNotFound)
  .addError(ProviderAccessDenied)
  .addError(ProviderDocumentNotFound)
  .addError(ProviderUnavailable)
{}

export class ViewerPrintingGroup extends HttpApiGroup.make("printing")
  .add(HttpApiEndpoint.get("preview", "/printServlet").setUrlParams(PrintParams).addSuccess(Html))
  .add(HttpApiEndpoint.get("pages", "/printPage").setUrlParams(PrintPageParams).addSuccess(Html))
{}

export class ViewerMonitoringGroup extends HttpApiGroup.make("monitoring")
  .add(HttpApiEndpoint.get("version", "/version").addSuccess(Text))
  .add(HttpApiEndpoint.get("healthRecords", "/health/records").setUrlParams(HealthParams).addSuccess(Html))
  .add(
    HttpApiEndpoint.get("prometheus", "/prometheus").addSuccess(
      HttpApiSchema.Text({ contentType: "text/plain; version=0.0.4" })
    )
  )
  .add(
    HttpApiEndpoint.get("weather", "/weather")
      .setUrlParams(WeatherParams)
      .addSuccess(Schema.Array(TargetWeather))
      .annotate(
        OpenApi.Description,
        "The rendition targets' weather: an HTML page, or JSON with format=JSON (any value but HTML)."
      )
  )
  .add(
    HttpApiEndpoint.post("replaceTargets", "/weather")
      .setPayload(HttpApiSchema.Text())
      .addSuccess(Text)
      .annotate(
        OpenApi.Description,
        "Replaces the rendition targets: a body such as {[http://broker-a:8761, http://broker-b:8761]}."
      )
  )
  .add(
    HttpApiEndpoint.put("addTargets", "/weather")
      .setPayload(HttpApiSchema.Text())
      .addSuccess(Text)
      .annotate(OpenApi.Description, "Adds rendition targets, in the same form as POST.")
  )
{}

export class ViewerSessionsGroup extends HttpApiGroup.make("sessions")
  .add(HttpApiEndpoint.get("destroy", "/destroySession").addSuccess(Text))
  .add(HttpApiEndpoint.post("destroyByPost", "/destroySession").addSuccess(Text))
  .add(HttpApiEndpoint.put("destroyByPut", "/destroySession").addSuccess(Text))
  .add(HttpApiEndpoint.del("destroyByDelete", "/destroySession").addSuccess(Text))
  .add(
    HttpApiEndpoint.post("validateToken", "/validateToken")
      .setPayload(
        Schema.Struct({ token: Schema.optional(Schema.String) }).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))
      )
      .addSuccess(Text)
      .addError(TokenRejected)
      .addError(TokenValidationFailed)
      .annotate(
        OpenApi.Description,
        "Checks the token (form field `token`, URL-encoded or multipart, else the cookie `token`) with the validator VIEWER_TOKEN_VALIDATOR names; answers `Valid`."
      )
  )
{}

export class ViewerConnectorGroup extends HttpApiGroup.make("connector")
  .add(
    HttpApiEndpoint.post("updateMetadata", "/updateDocumentMetadataServlet")
      .setUrlParams(UuidParams)
      .setPayload(MetadataValues)
      .addSuccess(MetadataValues)
      .addError(DocumentHasNoProvider)
  )
  .addError(ProviderAccessDenied)
  .addError(ProviderDocumentNotFound)
  .addError(ProviderUnavailable)
{}

/** Not in the contract: what the browser viewer needs beside it (docs/viewer.md "The browser viewer's JSON routes"). */
export class ViewerReaderGroup extends HttpApiGroup.make("reader")
  .add(
    HttpApiEndpoint.get("search", "/search")
      .setUrlParams(SearchParams)
      .addSuccess(ViewerSearchResult)
      .annotate(
        OpenApi.Description,
        "The hits of `searchText` on pages `fromPage` to `toPage` (0-based, inclusive; default the last page, at most VIEWER_SEARCH_MAX_PAGES pages), one box per line in pageContent's space."
      )
  )
  .add(
    HttpApiEndpoint.get("bookmarks", "/bookmarks")
      .setUrlParams(UuidParams)
      .addSuccess(ViewerBookmarks)
      .annotate(OpenApi.Description, "The document's outline, each entry with its 0-based page and its top on it.")
  )
  .add(
    HttpApiEndpoint.get("documentState", "/documentState")
      .setUrlParams(UuidParams)
      .addSuccess(DocumentState)
      .annotate(
        OpenApi.Description,
        "ready, converting or failed, from the document's latest conversion order; answers at once, never waits for a conversion."
      )
  )
{}

/**
 * Not in the contract: what the browser viewer needs to annotate, redact, compare and rearrange
 * pages (docs/viewer.md "The browser viewer's JSON routes").
 */
export class ViewerEditingGroup extends HttpApiGroup.make("editing")
  .add(
    HttpApiEndpoint.get("annotations", "/annotations")
      .setUrlParams(UuidParams)
      .addSuccess(ViewerAnnotationList)
      .annotate(
        OpenApi.Description,
        "The document's annotations, from the broker or from the provider the document was opened through (`store`); a provider's annotation of another shape is left out and counted in `skipped`."
      )
  )
  .add(
    HttpApiEndpoint.post("createAnnotations", "/annotations")
      .setUrlParams(UuidParams)
      .setPayload(ViewerAnnotations)
      .addSuccess(ViewerAnnotations)
      .annotate(
        OpenApi.Description,
        "Creates the annotations and answers them as kept (IDs, dates, author), in the body's order; an annotation without id is given one. With a session user, new annotations and replies are that user's."
      )
  )
  .add(
    HttpApiEndpoint.put("updateAnnotations", "/annotations")
      .setUrlParams(UuidParams)
      .setPayload(ChangedAnnotations)
      .addSuccess(ViewerAnnotations)
      .annotate(OpenApi.Description, "Replaces the annotations each id names; answers them as kept.")
  )
  .add(
    HttpApiEndpoint.del("deleteAnnotations", "/annotations")
      .setUrlParams(UuidParams)
      .setPayload(AnnotationIdList)
      .addSuccess(AnnotationIdList)
  )
  .add(
    HttpApiEndpoint.get("annotationPolicy", "/annotationPolicy").setUrlParams(UuidParams).addSuccess(AnnotationPolicy)
  )
  .add(
    HttpApiEndpoint.post("transformation", "/transformation")
      .setPayload(TransformationBody)
      .addSuccess(OrderStarted)
      .annotate(
        OpenApi.Description,
        "Queues one result document made of the parts' pages, in order, with the parts' annotations (their redaction marks applied with redact=true); poll it with GET order."
      )
  )
  .add(
    HttpApiEndpoint.post("comparison", "/comparison")
      .setUrlParams(ComparisonParams)
      .addSuccess(OrderStarted)
      .annotate(
        OpenApi.Description,
        "Queues the broker's image comparison of the two documents; poll it with GET order."
      )
  )
  .add(
    HttpApiEndpoint.get("order", "/order")
      .setUrlParams(OrderParams)
      .addSuccess(OrderStatus)
      .annotate(
        OpenApi.Description,
        "An order's state, waiting up to waitMs for it to end; once PROCESSED, its result documents' viewer IDs."
      )
  )
  .add(
    HttpApiEndpoint.del("cancelOrder", "/order")
      .setUrlParams(OrderParams)
      .addSuccess(Text)
      .annotate(OpenApi.Description, "Cancels and removes the order (not its result documents); answers OK.")
  )
  .add(
    HttpApiEndpoint.get("difference", "/difference")
      .setUrlParams(CompareParams)
      .addSuccess(TextDifference)
      .annotate(
        OpenApi.Description,
        "The word-level text difference of two documents, each side of each change boxed line by line in pageContent's space."
      )
  )
  .addError(AnnotationsReadOnly)
  .addError(AnnotationNotFound)
  .addError(OrderNotFound)
  .addError(ProviderAccessDenied)
  .addError(ProviderDocumentNotFound)
  .addError(ProviderUnavailable)
{}

export class ViewerApi extends HttpApi.make("viewer")
  .add(ViewerDocumentsGroup)
  .add(ViewerCompositeGroup)
  .add(ViewerStructureGroup)
  .add(ViewerImagingGroup)
  .add(ViewerAnnotationsGroup)
  .add(ViewerPrintingGroup)
  .add(ViewerMonitoringGroup)
  .add(ViewerSessionsGroup)
  .add(ViewerConnectorGroup)
  .add(ViewerReaderGroup)
  .add(ViewerEditingGroup)
  .addError(InvalidRequest)
  .addError(DocumentNotFound)
  .addError(DocumentProcessingFailed)
  .addError(RenditionUnavailable)
  .addError(PageNotFound)
  .annotate(OpenApi.Title, "Document viewer")
  .annotate(OpenApi.Version, "2026.2.0")
{}

/** The viewer's API under its base path (`/viewergwt/` by default: a prefix `/viewergwt`). */
export const viewerApiAt = (prefix: `/${string}` | "") => (prefix === "" ? ViewerApi : ViewerApi.prefix(prefix))
