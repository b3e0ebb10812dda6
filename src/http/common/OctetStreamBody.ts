/**
 * The body of a request the contract says is sent as `application/octet-stream` (an upload, an
 * annotation file), read as a stream so that its service can bound it before it is in memory.
 */
import type { HttpServerRequest } from "@effect/platform"
import { Effect, Stream } from "effect"
import { InvalidRequest } from "../../schemas/broker/Document.ts"

/** The body as a stream; another Content-Type is 400. `what` names the body in a read error. */
export const octetStreamBody = (
  request: HttpServerRequest.HttpServerRequest,
  what: string
): Effect.Effect<Stream.Stream<Uint8Array, InvalidRequest>, InvalidRequest> => {
  const contentType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
  return contentType === "application/octet-stream"
    ? Effect.succeed(
      request.stream.pipe(
        Stream.mapError((e) => new InvalidRequest({ message: `The ${what} could not be read: ${e.message}` }))
      )
    )
    : Effect.fail(
      new InvalidRequest({ message: `Content-Type must be application/octet-stream, got '${contentType || "none"}'` })
    )
}
