/** Request bodies read up to a limit: uploads, annotation files. */
import { Config, Effect, Stream } from "effect"

/** How much of a too-large body is still read (and dropped) so that its client can read the refusal. */
export const uploadDrainBytes = Config.integer("UPLOAD_DRAIN_BYTES").pipe(Config.withDefault(64 * 1024 * 1024))

/**
 * Passes the body through up to `limit` bytes. Past it, reads on without keeping anything for up to
 * `drain` more bytes, so that the client has sent its request and can read the refusal (a server
 * that stops reading resets the connection and the client sees no answer at all); then fails with
 * `tooLarge()`.
 */
export const capBody = <E, E2>(
  body: Stream.Stream<Uint8Array, E>,
  limit: number,
  drain: number,
  tooLarge: () => E2
) => {
  let total = 0
  return body.pipe(
    Stream.filterEffect((chunk) => {
      total += chunk.byteLength
      return total > limit + drain ? Effect.fail(tooLarge()) : Effect.succeed(total <= limit)
    }),
    Stream.concat(Stream.suspend(() => (total > limit ? Stream.fail(tooLarge()) : Stream.empty)))
  )
}
