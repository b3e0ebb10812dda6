/**
 * A file of the build answered with its ETag (304 when the browser holds it already), revalidated
 * on every use: a rebuild changes it under the same URL.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { BuiltFile } from "../../services/common/BuiltFiles.ts"
import { holdsCurrent } from "./EntityTags.ts"

export const builtFileResponse = (ifNoneMatch: string | undefined, file: BuiltFile, contentType: string) =>
  holdsCurrent(ifNoneMatch, file.etag)
    ? HttpServerResponse.empty({ status: 304, headers: { etag: file.etag } })
    : HttpServerResponse.uint8Array(file.body, {
      contentType,
      headers: { etag: file.etag, "cache-control": "no-cache", "x-content-type-options": "nosniff" }
    })
