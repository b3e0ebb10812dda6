import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { create as contentDisposition } from "content-disposition"
import { Effect } from "effect"
import { type TempFile, TempFiles } from "../../services/gateway/tempfiles/TempFiles.ts"
import { GatewayApi } from "./Api.ts"

/**
 * Types a browser may show in the page: they run no script. Anything else (HTML, SVG, ...) is a
 * download, never a document of the gateway's origin.
 */
const SHOWN_INLINE = new Set([
  "application/json",
  "application/pdf",
  "image/gif",
  "image/jpeg",
  "image/png",
  "image/webp",
  "text/csv",
  "text/plain"
])

const fileResponse = (file: TempFile) => {
  const mediaType = file.contentType.split(";")[0]!.trim().toLowerCase()
  return HttpServerResponse.uint8Array(file.bytes, {
    contentType: file.contentType,
    headers: {
      "content-disposition": contentDisposition(file.fileName, {
        type: SHOWN_INLINE.has(mediaType) ? "inline" : "attachment"
      }),
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff"
    }
  })
}

export const TempFilesHttpLive = HttpApiBuilder.group(GatewayApi, "tempFiles", (handlers) =>
  Effect.gen(function*() {
    const files = yield* TempFiles
    return handlers.handle("download", ({ path }) => files.read(path.fileKey).pipe(Effect.map(fileResponse)))
  }))
