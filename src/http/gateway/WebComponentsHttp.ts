import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { WebComponentAssets } from "../../services/gateway/webcomponents/WebComponentAssets.ts"
import { builtFileResponse } from "../common/BuiltFileResponse.ts"
import { GatewayApi } from "./Api.ts"

export const WebComponentsHttpLive = HttpApiBuilder.group(
  GatewayApi,
  "webComponents",
  (handlers) =>
    Effect.gen(function*() {
      const assets = yield* WebComponentAssets
      return handlers.handle("asset", ({ headers, path }) =>
        assets.get(path["*"]).pipe(
          Effect.map(({ contentType, file }) => builtFileResponse(headers["if-none-match"], file, contentType))
        ))
    })
)
