import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { ProviderAnnotations } from "../../services/provider/ProviderAnnotations.ts"
import { ProviderApi } from "./Api.ts"

export const AnnotationsHttpLive = HttpApiBuilder.group(
  ProviderApi,
  "annotations",
  (handlers) =>
    Effect.gen(function*() {
      const annotations = yield* ProviderAnnotations
      return handlers
        .handle("list", ({ urlParams }) => annotations.list(urlParams))
        .handle("ids", ({ urlParams }) => annotations.ids(urlParams))
        .handle("get", ({ path, urlParams }) => annotations.get(urlParams, path.annotationId))
        .handle("create", ({ payload, urlParams }) => annotations.create(urlParams, payload))
        .handle("update", ({ path, payload, urlParams }) => annotations.update(urlParams, path.annotationId, payload))
        .handle("remove", ({ path, urlParams }) => annotations.remove(urlParams, path.annotationId))
    })
)
