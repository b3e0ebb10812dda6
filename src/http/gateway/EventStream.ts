/**
 * Server-sent events as a response: each event named, its data as JSON, framed by
 * @effect/experimental's SSE encoder; a comment line every 15 s, so that proxies keep an idle
 * connection open; proxies (nginx) must pass each event on at once, and nobody may cache them. The
 * response's end (the client went away) interrupts the events' stream.
 */
import * as Sse from "@effect/experimental/Sse"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Chunk, Duration, Effect, Stream } from "effect"

/** Time between two heartbeats. */
const HEARTBEAT = Duration.seconds(15)

const utf8 = new TextEncoder()
const heartbeat = utf8.encode(": heartbeat\n\n")

/** The events that arrived together, as one write. */
const encode = (events: Chunk.Chunk<{ readonly event: string; readonly data: unknown }>) => {
  let text = ""
  for (const { data, event } of events) {
    text += Sse.encoder.write({ _tag: "Event", event, id: undefined, data: JSON.stringify(data) })
  }
  return utf8.encode(text)
}

/**
 * The response for a stream of events. One fiber writes the encoded events into the response and
 * another the heartbeats (Stream.merge cost several times the CPU per event).
 */
export const eventStream = <E extends { readonly event: string; readonly data: unknown }>(events: Stream.Stream<E>) =>
  HttpServerResponse.stream(
    Stream.asyncPush<Uint8Array>((emit) =>
      Effect.all([
        events.pipe(
          Stream.runForEachChunk((chunk) => Effect.sync(() => emit.single(encode(chunk)))),
          Effect.matchCause({ onSuccess: () => emit.end(), onFailure: (cause) => emit.halt(cause) }),
          Effect.forkScoped
        ),
        Effect.sync(() => emit.single(heartbeat)).pipe(Effect.delay(HEARTBEAT), Effect.forever, Effect.forkScoped)
      ])
    ),
    {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "keep-alive" }
    }
  )
