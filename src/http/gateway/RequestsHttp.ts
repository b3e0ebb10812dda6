import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Stream } from "effect"
import { CurrentPrincipal } from "../../schemas/gateway/Tenancy.ts"
import { Requests } from "../../services/gateway/requests/Requests.ts"
import { GatewayApi } from "./Api.ts"

/** Server-sent events as a response: proxies (nginx) must pass each event on at once, and nobody may cache them. */
const eventStream = (events: Stream.Stream<Uint8Array>) =>
  HttpServerResponse.stream(events, {
    contentType: "text/event-stream",
    headers: { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "keep-alive" }
  })

export const RequestsHttpLive = HttpApiBuilder.group(GatewayApi, "requests", (handlers) =>
  Effect.gen(function*() {
    const requests = yield* Requests
    return handlers
      .handle("ask", ({ payload, urlParams }) => CurrentPrincipal.pipe(Effect.flatMap((principal) => requests.ask(principal, payload, urlParams))))
      .handle("askStreaming", ({ payload, urlParams }) =>
        CurrentPrincipal.pipe(Effect.flatMap((principal) => requests.askStreaming(principal, payload, urlParams)), Effect.map(eventStream)))
      .handle("retry", ({ payload, urlParams }) => CurrentPrincipal.pipe(Effect.flatMap((principal) => requests.retry(principal, payload.conversation, urlParams))))
      .handle("retryStreaming", ({ payload, urlParams }) =>
        CurrentPrincipal.pipe(Effect.flatMap((principal) => requests.retryStreaming(principal, payload.conversation, urlParams)), Effect.map(eventStream)))
      .handle("list", ({ urlParams }) => CurrentPrincipal.pipe(Effect.flatMap((principal) => requests.list(principal, urlParams.conversation, urlParams.page, urlParams.size))))
      .handle("get", ({ path }) => CurrentPrincipal.pipe(Effect.flatMap((principal) => requests.get(principal, path.request_id))))
      .handle("remove", ({ path }) => CurrentPrincipal.pipe(Effect.flatMap((principal) => requests.remove(principal, path.request_id))))
      .handle("feedback", ({ path }) => CurrentPrincipal.pipe(Effect.flatMap((principal) => requests.feedback(principal, path.request_id, path.feedback))))
  }))
