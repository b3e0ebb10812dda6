import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Conversations } from "../../services/gateway/conversations/Conversations.ts"
import { Requests } from "../../services/gateway/requests/Requests.ts"
import { Statistics } from "../../services/gateway/statistics/Statistics.ts"
import { GatewayApi } from "./Api.ts"

/** An admin reaches the whole tenant, or one user of it when `userId` is given (the services' `InTenant` methods). */
export const AdminActivityHttpLive = HttpApiBuilder.group(
  GatewayApi,
  "adminActivity",
  (handlers) =>
    Effect.gen(function*() {
      const conversations = yield* Conversations
      const requests = yield* Requests
      const statistics = yield* Statistics
      return handlers
        .handle("userStatistics", ({ urlParams }) => statistics.users(urlParams.page, urlParams.size))
        .handle("userDetails", ({ urlParams }) => statistics.activity(urlParams.userId, urlParams))
        .handle("conversations", ({ urlParams }) => conversations.listInTenant(urlParams))
        .handle("conversation", ({ path }) => conversations.getInTenant(path.conversation_id))
        .handle("removeConversation", ({ path }) => conversations.removeInTenant(path.conversation_id))
        .handle("requests", ({ urlParams }) => requests.listInTenant(urlParams))
        .handle("request", ({ path }) => requests.getInTenant(path.request_id))
        .handle("removeRequest", ({ path }) => requests.removeInTenant(path.request_id))
        .handle("global", ({ urlParams }) => statistics.global(urlParams))
        .handle("timeseries", ({ urlParams }) => statistics.timeseries(urlParams.interval, urlParams))
        .handle("llmDistribution", ({ urlParams }) => statistics.llmDistribution(urlParams))
        .handle("featureAdoption", ({ urlParams }) => statistics.featureAdoption(urlParams))
        .handle("topPromptsTimeSaved", ({ urlParams }) => statistics.topPromptsTimeSaved(urlParams.limit))
    })
)
