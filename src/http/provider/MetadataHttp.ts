import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { ProviderMetadata } from "../../services/provider/ProviderMetadata.ts"
import { ProviderApi } from "./Api.ts"

export const MetadataHttpLive = HttpApiBuilder.group(ProviderApi, "metadata", (handlers) =>
  Effect.gen(function*() {
    const metadata = yield* ProviderMetadata
    return handlers
      .handle("get", ({ urlParams }) => metadata.get(urlParams))
      .handle("update", ({ payload, urlParams }) => metadata.update(urlParams, payload))
  }))
