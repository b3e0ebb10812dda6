/**
 * A stream of messages sent over a WebSocket: the request is upgraded, each message goes as one
 * JSON text frame, and the socket stays open until the client closes it (what it sends is ignored)
 * or the stream ends (then it is closed with 1013, "try again later": the client reconnects).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Socket from "@effect/platform/Socket"
import { Effect, Stream } from "effect"
import { BadRequest } from "../../schemas/gateway/GatewayErrors.ts"

export const webSocketMessages = <A>(messages: Stream.Stream<A>) =>
  Effect.gen(function*() {
    const socket = yield* HttpServerRequest.upgrade.pipe(
      Effect.mapError(() => new BadRequest({ message: "This endpoint is a WebSocket: send Upgrade: websocket" }))
    )
    const write = yield* socket.writer
    const sent = messages.pipe(
      Stream.runForEach((message) => write(JSON.stringify(message))),
      Effect.zipRight(write(new Socket.CloseEvent(1013, "The channel fell behind; reconnect"))),
      Effect.ignore
    )
    // Either end closes the socket: the client's close ends `runRaw`, the stream's end its close frame.
    yield* Effect.raceFirst(socket.runRaw(() => undefined).pipe(Effect.ignore), Effect.zipRight(sent, Effect.never))
    return HttpServerResponse.empty()
  }).pipe(Effect.scoped)
