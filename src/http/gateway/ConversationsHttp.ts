import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { CurrentPrincipal } from "../../schemas/gateway/Tenancy.ts"
import { Conversations } from "../../services/gateway/conversations/Conversations.ts"
import { Requests } from "../../services/gateway/requests/Requests.ts"
import { GatewayApi } from "./Api.ts"

export const ConversationsHttpLive = HttpApiBuilder.group(GatewayApi, "conversations", (handlers) =>
  Effect.gen(function*() {
    const conversations = yield* Conversations
    const requests = yield* Requests
    return handlers
      .handle("create", ({ payload }) => CurrentPrincipal.pipe(Effect.flatMap((principal) => conversations.create(principal, payload.title))))
      .handle("list", ({ urlParams }) => CurrentPrincipal.pipe(Effect.flatMap((principal) => conversations.list(principal, urlParams))))
      .handle("get", ({ path }) => CurrentPrincipal.pipe(Effect.flatMap((principal) => conversations.own(principal, path.conversation_id))))
      .handle("remove", ({ path }) => CurrentPrincipal.pipe(Effect.flatMap((principal) => conversations.remove(principal, path.conversation_id))))
      .handle("stop", ({ path }) =>
        CurrentPrincipal.pipe(Effect.flatMap((principal) => requests.stop(principal, path.conversation_id)), Effect.map((stopped) => ({ stopped }))))
  }))
