import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import { Effect, Option } from "effect"
import { InvalidRequest } from "../../schemas/broker/Document.ts"
import { AnnotationFiles } from "../../services/viewer/annotations/AnnotationFiles.ts"
import { CompareResult } from "../../services/viewer/comparing/CompareResult.ts"
import { DocumentMerge } from "../../services/viewer/documents/DocumentMerge.ts"
import type { DownloadedFile } from "../../services/viewer/documents/DownloadedFile.ts"
import { ViewerDocuments } from "../../services/viewer/documents/ViewerDocuments.ts"
import { Sessions } from "../../services/viewer/sessions/Sessions.ts"
import type { ViewerApi } from "./Api.ts"
import { currentSession, makeCurrent } from "./SessionCookie.ts"

const fileResponse = (file: DownloadedFile) =>
  HttpServerResponse.uint8Array(file.bytes, {
    contentType: file.contentType,
    headers: { "content-disposition": file.disposition }
  })

/** `url` as the query gives it: absent, once, or repeated. */
const urlList = (url: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  url === undefined ? [] : typeof url === "string" ? [url] : url

/** The `url`s of a form-encoded body (none for another body). */
const formUrls = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (!(request.headers["content-type"] ?? "").toLowerCase().includes("application/x-www-form-urlencoded")) return []
  const form = yield* request.urlParamsBody.pipe(
    Effect.mapError((error) => new InvalidRequest({ message: `The form body could not be read: ${error.message}` }))
  )
  return UrlParams.getAll(form, "url")
})

export const DocumentsHttp = (api: typeof ViewerApi) =>
  HttpApiBuilder.group(api, "documents", (handlers) =>
    Effect.gen(function*() {
      const documents = yield* ViewerDocuments
      const merging = yield* DocumentMerge
      const comparison = yield* CompareResult
      const annotationFiles = yield* AnnotationFiles
      const sessions = yield* Sessions

      /** Opening a document makes it the session's current document (docs/viewer.md "The current document"). */
      const opened = <A extends { readonly brokerId: string }, E, R>(effect: Effect.Effect<A, E, R>) =>
        effect.pipe(Effect.tap(({ brokerId }) => makeCurrent(brokerId)), Effect.provideService(Sessions, sessions))

      /** The session's current document (its broker ID), if it has a session and one. */
      const sessionDocument = currentSession.pipe(
        Effect.map(Option.flatMap((session) => Option.fromNullable(session.currentDocument))),
        Effect.provideService(Sessions, sessions)
      )

      return handlers
        .handle("uploadByReference", ({ urlParams }) =>
          opened(documents.openByConnectorId(urlParams.uuid)).pipe(Effect.map(({ viewerId }) =>
            viewerId
          )))
        // Raw: the multipart body is read as a stream, bounded by VIEWER_MAX_UPLOAD_BYTES (413).
        .handleRaw("upload", ({ request }) =>
          opened(documents.upload(request.headers["content-type"], request.multipartStream)).pipe(
            Effect.map(({ viewerId }) =>
              viewerId
            )
          ))
        .handle("download", ({ urlParams }) =>
          Effect.map(
            documents.download(urlParams.uuid, urlParams.type, urlParams.title, urlParams.sourceId),
            fileResponse
          ))
        .handle("downloadBase64", ({ urlParams }) =>
          Effect.flatMap(sessionDocument, (current) =>
            documents.base64(urlParams.uuid, current)))
        .handle("downloadWithAnnotations", ({ urlParams }) =>
          Effect.flatMap(sessionDocument, (current) =>
            Effect.map(annotationFiles.pdf(urlParams.operationName, urlParams.uuid, current), fileResponse)))
        .handle("mergedWithCompareResult", ({ urlParams }) =>
          Effect.map(comparison.compare(urlParams.left, urlParams.right), fileResponse))
        .handle("merge", ({ urlParams }) =>
          opened(merging.merge(urlList(urlParams.url))).pipe(Effect.map(({ result }) =>
            result
          )))
        // Raw: `url` may be in the query, the form body, or both.
        .handleRaw("mergeForm", ({ urlParams }) =>
          Effect.flatMap(formUrls, (fromBody) =>
            opened(merging.merge([...urlList(urlParams.url), ...fromBody])).pipe(
              Effect.map(({ result }) =>
                result
              )
            )))
        .handle("evict", ({ urlParams }) =>
          Effect.as(documents.evict(urlParams.uuid), "OK"))
        .handle("openExternal", ({ urlParams }) =>
          opened(documents.openExternal(urlParams.url)).pipe(Effect.map(({ viewerId }) =>
            viewerId
          )))
    }))
