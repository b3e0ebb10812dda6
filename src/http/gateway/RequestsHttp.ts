import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Requests } from "../../services/gateway/requests/Requests.ts"
import { GatewayApi } from "./Api.ts"
import { eventStream } from "./EventStream.ts"

export const RequestsHttpLive = HttpApiBuilder.group(GatewayApi, "requests", (handlers) =>
  Effect.gen(function*() {
    const requests = yield* Requests
    return handlers
      .handle("ask", ({ payload, urlParams }) => requests.ask(payload, urlParams))
      .handle("askStreaming", ({ payload, urlParams }) =>
        requests.askStreaming(payload, urlParams).pipe(Effect.map(eventStream)))
      .handle("retry", ({ payload, urlParams }) =>
        requests.retry(payload.conversation, urlParams))
      .handle("retryStreaming", ({ payload, urlParams }) =>
        requests.retryStreaming(payload.conversation, urlParams).pipe(Effect.map(eventStream)))
      .handle("list", ({ urlParams }) =>
        requests.list(urlParams))
      .handle("get", ({ path }) =>
        requests.get(path.request_id))
      .handle("remove", ({ path }) => requests.remove(path.request_id))
      .handle("feedback", ({ path }) => requests.feedback(path.request_id, path.feedback))
  }))
