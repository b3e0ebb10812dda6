import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { CurrentPrincipal } from "../../schemas/gateway/Tenancy.ts"
import { Conversations } from "../../services/gateway/conversations/Conversations.ts"
import { Requests } from "../../services/gateway/requests/Requests.ts"
import { Statistics } from "../../services/gateway/statistics/Statistics.ts"
import { GatewayApi } from "./Api.ts"

/** An admin reaches the whole tenant, or one user of it when `userId` is given. */
const tenantReach = (userId?: string) => CurrentPrincipal.pipe(Effect.map((principal) => ({ tenantId: principal.tenantId, userId })))
const tenantId = CurrentPrincipal.pipe(Effect.map((principal) => principal.tenantId))

export const AdminActivityHttpLive = HttpApiBuilder.group(GatewayApi, "adminActivity", (handlers) =>
  Effect.gen(function*() {
    const conversations = yield* Conversations
    const requests = yield* Requests
    const statistics = yield* Statistics
    return handlers
      .handle("userStatistics", ({ urlParams }) => tenantReach().pipe(Effect.flatMap((reach) => statistics.users(reach, urlParams.page, urlParams.size))))
      .handle("userDetails", ({ urlParams }) => tenantId.pipe(Effect.flatMap((tenant) => statistics.activity(tenant, urlParams.userId, urlParams))))
      .handle("conversations", ({ urlParams }) => tenantReach(urlParams.userId).pipe(Effect.flatMap((reach) => conversations.list(reach, urlParams))))
      .handle("conversation", ({ path }) => tenantReach().pipe(Effect.flatMap((reach) => conversations.own(reach, path.conversation_id))))
      .handle("removeConversation", ({ path }) => tenantReach().pipe(Effect.flatMap((reach) => conversations.remove(reach, path.conversation_id))))
      .handle("requests", ({ urlParams }) =>
        tenantReach(urlParams.userId).pipe(Effect.flatMap((reach) => requests.list(reach, urlParams.conversation, urlParams.page, urlParams.size))))
      .handle("request", ({ path }) => tenantReach().pipe(Effect.flatMap((reach) => requests.get(reach, path.request_id))))
      .handle("removeRequest", ({ path }) => tenantReach().pipe(Effect.flatMap((reach) => requests.remove(reach, path.request_id))))
      .handle("global", ({ urlParams }) => tenantId.pipe(Effect.flatMap((tenant) => statistics.global(tenant, urlParams))))
      .handle("timeseries", ({ urlParams }) => tenantId.pipe(Effect.flatMap((tenant) => statistics.timeseries(tenant, urlParams.interval, urlParams))))
      .handle("llmDistribution", ({ urlParams }) => tenantId.pipe(Effect.flatMap((tenant) => statistics.llmDistribution(tenant, urlParams))))
      .handle("featureAdoption", ({ urlParams }) => tenantId.pipe(Effect.flatMap((tenant) => statistics.featureAdoption(tenant, urlParams))))
      .handle("topPromptsTimeSaved", ({ urlParams }) => tenantId.pipe(Effect.flatMap((tenant) => statistics.topPromptsTimeSaved(tenant, urlParams.limit))))
  }))
