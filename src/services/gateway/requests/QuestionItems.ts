/**
 * The items of a question (text, prompts, images): as sent to the model, as stored with the
 * request, and back from storage for the history and for a retry, which sends the question again.
 */
import type { Prompt } from "@effect/ai"
import { Effect } from "effect"
import { fileTypeFromBuffer } from "file-type"
import { BadRequest } from "../../../schemas/gateway/GatewayErrors.ts"
import type { PromptLlm } from "../../../schemas/gateway/Prompts.ts"
import type { ContentItem } from "../../../schemas/gateway/Requests.ts"
import type { Prompts } from "../prompts/Prompts.ts"

/** An item of a question as stored: prompts rendered (with where they came from), images as base64. */
export type StoredItem =
  | {
    readonly type: "text"
    readonly text: string
    readonly prompt?: {
      readonly id: string
      readonly version: number
      readonly payload: Readonly<Record<string, unknown>>
    }
  }
  | { readonly type: "image"; readonly mediaType: string; readonly data: string }

/** The items of a stored question (the jsonb column may come back as text, depending on the driver). */
export const storedItems = (inputs: unknown): ReadonlyArray<StoredItem> =>
  ((typeof inputs === "string" ? JSON.parse(inputs) : inputs) as ReadonlyArray<
    { readonly content: ReadonlyArray<StoredItem> }
  >).flatMap((input) => input.content)

/** A stored item as a content item that asks it again (a prompt's rendering is redone, with its payload). */
export const askedAgain = (item: StoredItem): ContentItem =>
  item.type === "image"
    ? { type: "image", value: item.data, mediaType: item.mediaType }
    : item.prompt
    ? { type: "prompt", value: item.prompt.id, version: item.prompt.version, payload: item.prompt.payload }
    : { type: "text", value: item.text }

/** The title of a conversation a request starts: the first words of its question. */
export const titleFrom = (text: string) => {
  const words = text.replace(/\s+/g, " ").trim()
  return words.length === 0
    ? "New conversation"
    : words.length <= 60
    ? words
    : `${words.slice(0, 57).replace(/\s\S*$/, "")}…`
}

/** The image types language models take. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"])

/** The bytes and type of an image item, recognised by content; BAD_REQUEST for anything else. */
const decodeImage = (value: string) =>
  Effect.gen(function*() {
    const base64 = value.replace(/^data:[^,]*,/, "").replace(/\s+/g, "")
    if (base64.length === 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) {
      return yield* new BadRequest({ message: "An image item's value must be base64 data or a data: URL" })
    }
    const bytes = Buffer.from(base64, "base64")
    const detected = yield* Effect.promise(() => fileTypeFromBuffer(bytes))
    if (detected === undefined || !IMAGE_TYPES.has(detected.mime)) {
      return yield* new BadRequest({
        message: `An image item must be a PNG, JPEG, GIF or WebP image${
          detected ? ` (this one is ${detected.mime})` : ""
        }`
      })
    }
    return { bytes, base64, mediaType: detected.mime }
  })

/**
 * A question's items read once: the parts of the user message sent to the model, the items stored,
 * the LLM settings of its first prompt (provider, model, parameters, system prompt: they apply to
 * the request) and the prompt versions used.
 */
export const readQuestion = (prompts: Prompts, items: ReadonlyArray<ContentItem>) =>
  Effect.gen(function*() {
    const parts: Array<Prompt.UserMessagePartEncoded> = []
    // What is stored of the question: as sent (prompts rendered, images as base64), so that a retry can send it again.
    const asked: Array<StoredItem> = []
    let promptLlm: PromptLlm | undefined
    const used: Array<{ readonly promptId: string; readonly version: number }> = []
    for (const item of items) {
      if (item.type === "image") {
        const image = yield* decodeImage(item.value)
        // Bytes, not base64 text: some clients (OpenAI's) read a string as a file ID.
        parts.push({ type: "file", mediaType: image.mediaType, data: image.bytes })
        asked.push({ type: "image", mediaType: image.mediaType, data: image.base64 })
        continue
      }
      if (item.type === "text") {
        parts.push({ type: "text", text: item.value })
        asked.push({ type: "text", text: item.value })
        continue
      }
      const rendered = yield* prompts.renderForRequest(item.value, item.version, item.payload ?? {})
      used.push({ promptId: item.value, version: rendered.version })
      promptLlm ??= rendered.llm
      parts.push({ type: "text", text: rendered.text })
      // The prompt it came from, so that a retry renders it again with its settings.
      asked.push({
        type: "text",
        text: rendered.text,
        prompt: { id: item.value, version: rendered.version, payload: item.payload ?? {} }
      })
    }
    return { parts, asked, promptLlm, used }
  })
