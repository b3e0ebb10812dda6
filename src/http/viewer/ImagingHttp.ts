import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { PageImages } from "../../services/viewer/imaging/PageImages.ts"
import type { ViewerApi } from "./Api.ts"

/** A document's pages never change under its ID: the browser may keep them (evictDocument ends the ID). */
const png = (bytes: Uint8Array) =>
  HttpServerResponse.uint8Array(bytes, {
    contentType: "image/png",
    headers: { "cache-control": "private, max-age=600" }
  })

export const ImagingHttp = (api: typeof ViewerApi) =>
  HttpApiBuilder.group(api, "imaging", (handlers) =>
    Effect.gen(function*() {
      const images = yield* PageImages
      return handlers
        .handle("image", ({ urlParams }) =>
          Effect.map(images.image(urlParams.uuid, urlParams.pagePosition, urlParams.desc, urlParams.annotations), png))
        .handle("crop", ({ urlParams }) =>
          Effect.map(images.crop(urlParams.uuid, urlParams.pagePosition, urlParams.desc, urlParams.annotations), png))
    }))
