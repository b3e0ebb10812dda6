import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { DocumentMetadata } from "../../services/viewer/connector/DocumentMetadata.ts"
import type { ViewerApi } from "./Api.ts"

export const ConnectorHttp = (api: typeof ViewerApi) =>
  HttpApiBuilder.group(api, "connector", (handlers) =>
    Effect.gen(function*() {
      const metadata = yield* DocumentMetadata
      return handlers.handle("updateMetadata", ({ payload, urlParams }) => metadata.update(urlParams.uuid, payload))
    }))
