/**
 * Inside a PDF engine worker thread: a message read into its parts (MessageRequests.ts). Part 0 is
 * the message's page; attachments follow in message order, stored as they came, except those the
 * page shows inline (referenced by `cid:`); an attached email is listed as `message/rfc822`, as text.
 */
import type { WorkerRunner } from "@effect/platform"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { PdfOperationFailed } from "../engine/PdfRequest.ts"
import { messagePage, messageText } from "./MessagePage.ts"
import { NO_SUBJECT, readMessage } from "./MessageReader.ts"
import type { MessagePart, ReadMessage } from "./MessageRequests.ts"

const partsOf = async (path: string, format: "eml" | "msg"): Promise<Array<typeof MessagePart.Type>> => {
  const message = await readMessage(await readFile(path), format)
  const page = messagePage(message)
  const parts: Array<typeof MessagePart.Type> = [{
    name: message.subject ?? NO_SUBJECT,
    mimeType: "text/html",
    content: new TextEncoder().encode(page.html)
  }]
  for (const attachment of message.attachments) {
    if (attachment.contentId !== undefined && page.embedded.has(attachment.contentId) && !attachment.message) continue
    parts.push({
      name: attachment.name ??
        (attachment.message ? attachment.message.subject ?? NO_SUBJECT : `attachment-${parts.length}`),
      mimeType: attachment.message ? "message/rfc822" : attachment.mimeType,
      content: attachment.message ? new TextEncoder().encode(messageText(attachment.message)) : attachment.content
    })
  }
  return parts
}

export const messageHandlers: WorkerRunner.SerializedRunner.Handlers<ReadMessage> = {
  ReadMessage: (req) =>
    Effect.tryPromise({
      try: () => partsOf(req.path, req.format),
      catch: (error) => new PdfOperationFailed({ message: error instanceof Error ? error.message : String(error) })
    })
}
