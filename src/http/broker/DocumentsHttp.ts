import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { AnnotationImport } from "../../services/broker/annotations/AnnotationImport.ts"
import { Annotations } from "../../services/broker/annotations/Annotations.ts"
import { Conversions } from "../../services/broker/documents/Conversions.ts"
import { DocumentFiles } from "../../services/broker/documents/DocumentFiles.ts"
import { DocumentInfo } from "../../services/broker/documents/DocumentInfo.ts"
import { DocumentRegistration } from "../../services/broker/documents/DocumentRegistration.ts"
import { DocumentResolver } from "../../services/broker/documents/DocumentResolver.ts"
import { DocumentOutline } from "../../services/broker/outline/DocumentOutline.ts"
import { PageImages } from "../../services/broker/pages/PageImages.ts"
import { DocumentSignatures } from "../../services/broker/signatures/DocumentSignatures.ts"
import { DocumentText } from "../../services/broker/text/DocumentText.ts"
import { Transformations } from "../../services/broker/transformations/Transformations.ts"
import { fileResponse, parseRange, rangeResponse } from "../common/FileResponse.ts"
import { octetStreamBody } from "../common/OctetStreamBody.ts"
import { BrokerApi } from "./Api.ts"

export const DocumentsHttpLive = HttpApiBuilder.group(BrokerApi, "documents", (handlers) =>
  Effect.gen(function*() {
    const registration = yield* DocumentRegistration
    const resolver = yield* DocumentResolver
    const info = yield* DocumentInfo
    const files = yield* DocumentFiles
    const pages = yield* PageImages
    const text = yield* DocumentText
    const outline = yield* DocumentOutline
    const signatures = yield* DocumentSignatures
    const conversions = yield* Conversions
    const annotations = yield* Annotations
    const annotationImport = yield* AnnotationImport
    const transformations = yield* Transformations
    return handlers
      .handleRaw("upload", ({ request, urlParams }) =>
        octetStreamBody(request, "upload").pipe(
          Effect.flatMap((body) => (urlParams.documentUrl !== undefined
            ? registration.uploadFromUrl(urlParams.documentUrl, urlParams)
            : registration.upload(body, urlParams))
          )
        ))
      .handle("registerLayout", ({ payload }) => registration.registerLayout(payload))
      .handle("metadata", ({ path }) => info.metadata(path.documentId))
      .handle("file", ({ path, urlParams }) =>
        transformations.file(path.documentId, urlParams.format, urlParams.annotations).pipe(Effect.map((f) =>
          fileResponse(f)
        )))
      .handle("fileChunk", ({ headers, path, urlParams }) =>
        files.file(path.documentId, urlParams.format).pipe(
          Effect.flatMap((file) =>
            parseRange(headers.range, file.size).pipe(Effect.map((range) =>
              rangeResponse(file, range)
            ))
          )
        ))
      .handle("remove", ({ path }) => registration.remove(path.documentId))
      .handle("check", ({ path }) => resolver.check(path.documentId))
      .handle("layout", ({ path }) => info.layout(path.documentId))
      .handle("pageImage", ({ path, urlParams }) =>
        pages.pageImage(path.documentId, path.page, urlParams.pageImageDescription, urlParams.crop).pipe(
          Effect.map((png) =>
            HttpServerResponse.uint8Array(png, {
              contentType: "image/png",
              headers: { "cache-control": "private, max-age=600" }
            })
          )
        ))
      .handle("pageTextPositions", ({ path }) =>
        // The body is the PageText as the contract encodes it, made without encoding it again.
        text.pageText(path.documentId, path.page).pipe(
          Effect.map((body) =>
            HttpServerResponse.uint8Array(body, { contentType: "application/json" })
          )
        ))
      .handle("searchPage", ({ path, urlParams }) =>
        text.searchPage(path.documentId, path.page, urlParams))
      .handle("searchDocument", ({ path, urlParams }) =>
        text.searchDocument(path.documentId, urlParams.fromPage, urlParams.toPage, urlParams))
      .handle("pagesContaining", ({ path, urlParams }) =>
        text.pagesContaining(path.documentId, urlParams))
      .handle("bookmarks", ({ path }) =>
        outline.bookmarks(path.documentId))
      .handle("destinations", ({ path }) => outline.destinations(path.documentId))
      .handle("signatures", ({ path }) => signatures.signatures(path.documentId))
      .handle("printable", ({ path, urlParams }) =>
        transformations.printable(path.documentId, urlParams.annotations).pipe(Effect.map((f) =>
          fileResponse(f, "inline")
        )))
      .handleRaw("importAnnotationsFile", ({ path, request }) =>
        octetStreamBody(request, "annotation file").pipe(
          Effect.flatMap((body) =>
            annotationImport.importFile(path.documentId, body)
          )
        ))
      .handle("conversions", ({ path }) =>
        conversions.forDocument(path.documentId))
      .handle("annotationsFile", ({ path }) =>
        annotations.xfdf(path.documentId).pipe(
          Effect.map((xfdf) =>
            HttpServerResponse.text(xfdf, {
              contentType: "application/vnd.adobe.xfdf",
              headers: { "content-disposition": `attachment; filename="annotations.xfdf"` }
            })
          )
        ))
  }))
