import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { UserChannels } from "../../services/gateway/channels/UserChannels.ts"
import { GatewayApi } from "./Api.ts"
import { webSocketMessages } from "./WebSocketMessages.ts"

export const ChannelsHttpLive = HttpApiBuilder.group(GatewayApi, "channels", (handlers) =>
  Effect.gen(function*() {
    const channels = yield* UserChannels
    return handlers.handle("subscribe", ({ path }) =>
      channels.subscribe(path.userId).pipe(Effect.flatMap(webSocketMessages), Effect.scoped))
  }))
