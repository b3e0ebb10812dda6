import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Conversations } from "../../services/gateway/conversations/Conversations.ts"
import { Requests } from "../../services/gateway/requests/Requests.ts"
import { GatewayApi } from "./Api.ts"

export const ConversationsHttpLive = HttpApiBuilder.group(
  GatewayApi,
  "conversations",
  (handlers) =>
    Effect.gen(function*() {
      const conversations = yield* Conversations
      const requests = yield* Requests
      return handlers
        .handle("create", ({ payload }) => conversations.create(payload))
        .handle("list", ({ urlParams }) => conversations.list(urlParams))
        .handle("get", ({ path }) => conversations.get(path.conversation_id))
        .handle("remove", ({ path }) => conversations.remove(path.conversation_id))
        .handle("stop", ({ path }) => requests.stop(path.conversation_id).pipe(Effect.map((stopped) => ({ stopped }))))
    })
)
