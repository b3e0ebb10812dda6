/**
 * An email (.eml, RFC 822) or Outlook message (.msg) as the parts of a composite document: read in
 * the engine's worker threads (MessageReader.ts, MessagePage.ts, MessageWorker.ts), then stored.
 *
 * Part 0 is the message itself as one complete, safe UTF-8 HTML page (MessagePage.ts says what
 * "safe" means). Attachments follow from 1 in message order, each stored as it came, titled by its
 * file name, typed as declared. Choice: an attachment the HTML body shows inline (referenced by
 * `cid:`) is part of part 0 and NOT listed again; one with a Content-ID the body does not reference
 * is listed. An attached email (message/rfc822 in an .eml, an embedded message in a .msg) is listed
 * as `message/rfc822`, stored as a plain UTF-8 text rendering of it (headers, blank line, body, the
 * names of its own attachments), so that it opens as a text page.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Effect, Schema } from "effect"
import type { BlobStore } from "../../common/BlobStore.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import { ReadMessage } from "./MessageRequests.ts"
import { makePartStore, type PartEntry } from "./Parts.ts"

/** The message cannot be read; `message` says why. */
export class EmailRejected extends Schema.TaggedError<EmailRejected>()(
  "EmailRejected",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {}

/**
 * Stores the body page and every attachment of the message at `path` and returns the parts:
 * index 0 the body (text/html), attachments from 1. A message that cannot be read is rejected, and
 * leaves no blob behind that it created.
 */
export const expandEmail = Effect.fn("Email.expandEmail")(function*(path: string, format: "eml" | "msg") {
  const engine = yield* PdfEngine
  const read = yield* engine.run(new ReadMessage({ path, format })).pipe(
    Effect.mapError((error) =>
      new EmailRejected({
        message: `The ${format === "eml" ? "email" : "Outlook message"} cannot be read: ${error.message}`
      })
    )
  )
  const store = yield* makePartStore
  return yield* Effect.forEach(read, (part, index) =>
    store.putBytes(part.content).pipe(
      Effect.map((stored): PartEntry => ({
        kind: "file",
        index,
        name: part.name,
        mimeType: part.mimeType,
        hash: stored.hash,
        size: stored.size
      }))
    )).pipe(Effect.onError(() => store.rollback))
}) satisfies (
  path: string,
  format: "eml" | "msg"
) => Effect.Effect<ReadonlyArray<PartEntry>, EmailRejected, BlobStore | PdfEngine>
