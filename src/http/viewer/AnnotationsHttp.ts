import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { AnnotationFiles, CONTENT_TYPES } from "../../services/viewer/annotations/AnnotationFiles.ts"
import type { ViewerApi } from "./Api.ts"

export const AnnotationsHttp = (api: typeof ViewerApi) =>
  HttpApiBuilder.group(api, "annotations", (handlers) =>
    Effect.gen(function*() {
      const files = yield* AnnotationFiles
      return handlers
        .handle("export", ({ urlParams }) => {
          const type = urlParams.type ?? "XFDF"
          return Effect.map(files.export(urlParams.uuid, type), (bytes) =>
            // Its own Content-Type: the endpoint's default names XFDF only.
            HttpServerResponse.uint8Array(bytes, { contentType: CONTENT_TYPES[type] }))
        })
        .handle("import", ({ payload, urlParams }) => Effect.as(files.import(urlParams.uuid, payload.file.path), "OK"))
    }))
