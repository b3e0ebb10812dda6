import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Annotations } from "../../services/broker/annotations/Annotations.ts"
import { Conversions } from "../../services/broker/documents/Conversions.ts"
import { Documents } from "../../services/broker/documents/Documents.ts"
import { Transformations } from "../../services/broker/transformations/Transformations.ts"
import { fileResponse, parseRange, rangeResponse } from "../common/FileResponse.ts"
import { octetStreamBody } from "../common/OctetStreamBody.ts"
import { BrokerApi } from "./Api.ts"

export const DocumentsHttpLive = HttpApiBuilder.group(BrokerApi, "documents", (handlers) =>
  Effect.gen(function*() {
    const documents = yield* Documents
    const conversions = yield* Conversions
    const annotations = yield* Annotations
    const transformations = yield* Transformations
    return handlers
      .handleRaw("upload", ({ request, urlParams }) =>
        octetStreamBody(request, "upload").pipe(
          Effect.flatMap((body) => (urlParams.documentUrl !== undefined ? documents.uploadFromUrl(urlParams.documentUrl, urlParams) : documents.upload(body, urlParams)))
        ))
      .handle("registerLayout", ({ payload }) => documents.registerLayout(payload))
      .handle("metadata", ({ path }) => documents.metadata(path.documentId))
      .handle("file", ({ path, urlParams }) =>
        transformations.file(path.documentId, urlParams.format, urlParams.annotations).pipe(Effect.map((f) => fileResponse(f))))
      .handle("fileChunk", ({ headers, path, urlParams }) =>
        documents.file(path.documentId, urlParams.format).pipe(
          Effect.flatMap((file) => parseRange(headers.range, file.size).pipe(Effect.map((range) => rangeResponse(file, range))))
        ))
      .handle("remove", ({ path }) => documents.remove(path.documentId))
      .handle("check", ({ path }) => documents.check(path.documentId))
      .handle("layout", ({ path }) => documents.layout(path.documentId))
      .handle("pageImage", ({ path, urlParams }) =>
        documents.pageImage(path.documentId, path.page, urlParams.pageImageDescription).pipe(
          Effect.map((png) => HttpServerResponse.uint8Array(png, { contentType: "image/png", headers: { "cache-control": "private, max-age=600" } }))
        ))
      .handle("pageTextPositions", ({ path }) => documents.pageText(path.documentId, path.page))
      .handle("searchPage", ({ path, urlParams }) => documents.searchPage(path.documentId, path.page, urlParams))
      .handle("searchDocument", ({ path, urlParams }) => documents.searchDocument(path.documentId, urlParams.fromPage, urlParams.toPage, urlParams))
      .handle("pagesContaining", ({ path, urlParams }) => documents.pagesContaining(path.documentId, urlParams))
      .handle("bookmarks", ({ path }) => documents.bookmarks(path.documentId))
      .handle("destinations", ({ path }) => documents.destinations(path.documentId))
      .handle("signatures", ({ path }) => documents.signatures(path.documentId))
      .handle("printable", ({ path, urlParams }) =>
        transformations.printable(path.documentId, urlParams.annotations).pipe(Effect.map((f) => fileResponse(f, "inline"))))
      .handle("conversions", ({ path }) => conversions.forDocument(path.documentId))
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
