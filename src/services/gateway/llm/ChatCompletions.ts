/**
 * A `LanguageModel` that speaks OpenAI's Chat Completions API (`POST {baseUrl}/chat/completions`),
 * the dialect of Ollama, vLLM, LM Studio, Mistral, Azure OpenAI and Gemini's OpenAI-compatible
 * endpoint. `@effect/ai-openai` 0.41 only speaks the Responses API, hence this provider.
 *
 * Errors are `AiError`s as `@effect/ai` defines them:
 * - a non-2xx answer is an `HttpResponseError` with `reason: "StatusCode"`, `response.status`,
 *   `response.headers` (credentials redacted; `retry-after` kept), `body` (the raw body text) and
 *   `description` (the server's own message: `error.message` of an OpenAI-style body, else the
 *   body text, else `HTTP <status>`);
 * - a connection failure is an `HttpRequestError` (`reason: "Transport"`);
 * - a body that breaks off is an `HttpResponseError` with `reason: "Decode"`;
 * - a body that is not a Chat Completions answer is a `MalformedOutput`;
 * - an `{"error": ...}` event inside a stream is an `UnknownError` whose `description` is its message;
 * - a prompt part this dialect cannot carry (a non-image file) is a `MalformedInput`.
 *
 * Tools: `ProviderOptions.tools` go as `tools` (functions with their JSON Schema) with
 * `tool_choice`; the answer's `tool_calls` (whole, or gathered from a stream's deltas by index)
 * become `tool-call` parts, and a prompt's tool calls and results go back as the assistant's
 * `tool_calls` and `tool` messages. Not supported: structured output (`responseFormat` "json" is
 * not turned into `response_format`).
 */
import * as AiError from "@effect/ai/AiError"
import * as IdGenerator from "@effect/ai/IdGenerator"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Tool from "@effect/ai/Tool"
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Chunk, Effect, Either, Encoding, Layer, Option, Schema, Stream } from "effect"
import { createParser } from "eventsource-parser"

export interface Options {
  /** Up to, not including, `/chat/completions`, e.g. `http://localhost:11434/v1`. */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer`; for Azure key auth pass `headers: { "api-key": ... }` instead. */
  readonly apiKey?: string
  readonly model: string
  readonly headers?: Record<string, string>
  /** Query parameters on every request, e.g. Azure's `{ "api-version": "2024-10-21" }`. */
  readonly query?: Record<string, string>
  readonly temperature?: number
  readonly topP?: number
  readonly maxTokens?: number
}

const MODULE = "ChatCompletions"

// =============================================================================
// Wire shapes (lenient: servers differ in which fields they send and which they null)
// =============================================================================

const Usage = Schema.Struct({
  prompt_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
  completion_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
  total_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
  prompt_tokens_details: Schema.optional(
    Schema.NullOr(Schema.Struct({ cached_tokens: Schema.optional(Schema.NullOr(Schema.Number)) }))
  ),
  completion_tokens_details: Schema.optional(
    Schema.NullOr(Schema.Struct({ reasoning_tokens: Schema.optional(Schema.NullOr(Schema.Number)) }))
  )
})
type Usage = typeof Usage.Type

const Common = {
  id: Schema.optional(Schema.NullOr(Schema.String)),
  model: Schema.optional(Schema.NullOr(Schema.String)),
  created: Schema.optional(Schema.NullOr(Schema.Number)),
  usage: Schema.optional(Schema.NullOr(Usage))
}

/** Reasoning text as vLLM/DeepSeek (`reasoning_content`) and Ollama/OpenRouter (`reasoning`) send it. */
const Reasoning = {
  reasoning_content: Schema.optional(Schema.NullOr(Schema.String)),
  reasoning: Schema.optional(Schema.NullOr(Schema.String))
}

/** A function call of the answer; in a stream, pieces of one keyed by `index` (the arguments arrive in parts). */
const WireToolCall = Schema.Struct({
  index: Schema.optional(Schema.NullOr(Schema.Number)),
  id: Schema.optional(Schema.NullOr(Schema.String)),
  function: Schema.optional(Schema.NullOr(Schema.Struct({
    name: Schema.optional(Schema.NullOr(Schema.String)),
    arguments: Schema.optional(Schema.NullOr(Schema.String))
  })))
})
const ToolCalls = { tool_calls: Schema.optional(Schema.NullOr(Schema.Array(WireToolCall))) }

const ChatCompletion = Schema.Struct({
  ...Common,
  choices: Schema.Array(Schema.Struct({
    message: Schema.Struct({ content: Schema.optional(Schema.NullOr(Schema.String)), ...Reasoning, ...ToolCalls }),
    finish_reason: Schema.optional(Schema.NullOr(Schema.String))
  }))
})

const ChatCompletionChunk = Schema.Struct({
  ...Common,
  choices: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
    delta: Schema.optional(
      Schema.NullOr(
        Schema.Struct({ content: Schema.optional(Schema.NullOr(Schema.String)), ...Reasoning, ...ToolCalls })
      )
    ),
    finish_reason: Schema.optional(Schema.NullOr(Schema.String))
  })))),
  error: Schema.optional(Schema.Unknown)
})

const decodeChunk = Schema.decodeUnknownEither(ChatCompletionChunk)

const ErrorBody = Schema.Struct({
  error: Schema.Union(Schema.String, Schema.Struct({ message: Schema.String }))
})

interface WireCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

type Message =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "assistant"; readonly content: string | null; readonly tool_calls?: ReadonlyArray<WireCall> }
  | { readonly role: "user"; readonly content: string | ReadonlyArray<UserContent> }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }
type UserContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image_url"; readonly image_url: { readonly url: string } }

// =============================================================================
// Prompt → request
// =============================================================================

const imageUrl = (part: Prompt.FilePart): string => {
  const mediaType = part.mediaType === "image/*" ? "image/jpeg" : part.mediaType
  if (part.data instanceof URL) return part.data.toString()
  if (part.data instanceof Uint8Array) return `data:${mediaType};base64,${Encoding.encodeBase64(part.data)}`
  // A string is either already a URL (http(s) or data) or base64 content.
  return /^(https?:|data:)/i.test(part.data) ? part.data : `data:${mediaType};base64,${part.data}`
}

const prepareMessages = (prompt: Prompt.Prompt): Effect.Effect<Array<Message>, AiError.MalformedInput> =>
  Effect.gen(function*() {
    const messages: Array<Message> = []
    for (const message of prompt.content) {
      switch (message.role) {
        case "system":
          messages.push({ role: "system", content: message.content })
          break
        case "user": {
          const content: Array<UserContent> = []
          for (const part of message.content) {
            if (part.type === "text") {
              content.push({ type: "text", text: part.text })
            } else if (part.mediaType.startsWith("image/")) {
              content.push({ type: "image_url", image_url: { url: imageUrl(part) } })
            } else {
              return yield* new AiError.MalformedInput({
                module: MODULE,
                method: "prepareMessages",
                description: `Chat Completions carries only text and images, not '${part.mediaType}'`
              })
            }
          }
          // A single text part goes as a plain string, which every compatible server accepts.
          const only = content.length === 1 ? content[0] : undefined
          messages.push({ role: "user", content: only?.type === "text" ? only.text : content })
          break
        }
        case "assistant": {
          // Text and tool calls; reasoning is not sent back.
          const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
          const calls = message.content.flatMap((part): Array<WireCall> =>
            part.type === "tool-call" && !part.providerExecuted
              ? [{
                id: part.id,
                type: "function",
                function: { name: part.name, arguments: JSON.stringify(part.params) }
              }]
              : []
          )
          if (calls.length > 0) {
            messages.push({ role: "assistant", content: text.length > 0 ? text : null, tool_calls: calls })
          } else if (text.length > 0) messages.push({ role: "assistant", content: text })
          break
        }
        case "tool":
          for (const part of message.content) {
            messages.push({
              role: "tool",
              tool_call_id: part.id,
              content: typeof part.result === "string" ? part.result : JSON.stringify(part.result)
            })
          }
          break
      }
    }
    return messages
  })

// =============================================================================
// Response → parts
// =============================================================================

const finishReason = (reason: string | null | undefined): Response.FinishReason => {
  switch (reason) {
    case "stop":
    case "eos":
      return "stop"
    case "length":
      return "length"
    case "content_filter":
      return "content-filter"
    case "tool_calls":
    case "function_call":
      return "tool-calls"
    case null:
    case undefined:
      return "unknown"
    default:
      return "other"
  }
}

/** A call's arguments as the model wrote them: JSON, or `{}` when it wrote none. */
const argumentsOf = (text: string | null | undefined, method: string) =>
  Effect.try({
    try: () => (text && text.trim().length > 0 ? JSON.parse(text) as unknown : {}),
    catch: malformed(method, `A tool call's arguments are not JSON: ${String(text).slice(0, 200)}`)
  })

const toolCallPart = (id: string, name: string, params: unknown): Response.ToolCallPartEncoded => ({
  type: "tool-call",
  id,
  name,
  params,
  providerExecuted: false
})

/** The `tools` and `tool_choice` of a request that offers tools. */
const toolFields = (options: LanguageModel.ProviderOptions) => {
  if (options.tools.length === 0) return {}
  const choice = options.toolChoice
  const tools = options.tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: Tool.getJsonSchemaFromSchemaAst(tool.parametersSchema.ast)
    }
  }))
  const tool_choice = typeof choice === "string"
    ? choice
    : "tool" in choice
    ? { type: "function", function: { name: choice.tool } }
    : choice.mode ?? "auto"
  return { tools, tool_choice }
}

const usageOf = (usage: Usage | null | undefined): typeof Response.Usage.Encoded => {
  const inputTokens = usage?.prompt_tokens ?? undefined
  const outputTokens = usage?.completion_tokens ?? undefined
  const reasoningTokens = usage?.completion_tokens_details?.reasoning_tokens ?? undefined
  const cachedInputTokens = usage?.prompt_tokens_details?.cached_tokens ?? undefined
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage?.total_tokens ??
      (inputTokens === undefined && outputTokens === undefined ? undefined : (inputTokens ?? 0) + (outputTokens ?? 0)),
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens })
  }
}

const metadataPart = (
  answer: {
    readonly id?: string | null | undefined
    readonly model?: string | null | undefined
    readonly created?: number | null | undefined
  }
): Response.ResponseMetadataPartEncoded => ({
  type: "response-metadata",
  ...(answer.id ? { id: answer.id } : {}),
  ...(answer.model ? { modelId: answer.model } : {}),
  ...(typeof answer.created === "number" ? { timestamp: new Date(answer.created * 1000).toISOString() } : {})
})

// =============================================================================
// Errors
// =============================================================================

const SENSITIVE = ["authorization", "api-key", "x-api-key", "cookie", "set-cookie", "proxy-authorization"]

const plainHeaders = (headers: Headers.Headers): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(Headers.redact(headers, SENSITIVE))) out[name] = String(value)
  return out
}

const requestDetails = (request: HttpClientRequest.HttpClientRequest) => ({
  method: request.method,
  url: request.url,
  urlParams: request.urlParams,
  hash: request.hash,
  headers: plainHeaders(request.headers)
})

/** The server's own words from an error body: OpenAI's `{error: {message}}`, `{error: "..."}`, or the text. */
const serverMessage = (body: string): string | undefined => {
  const decoded = Schema.decodeUnknownOption(Schema.parseJson(ErrorBody))(body)
  if (Option.isSome(decoded)) {
    return typeof decoded.value.error === "string"
      ? decoded.value.error
      : decoded.value.error.message
  }
  const trimmed = body.trim()
  return trimmed.length > 0 ? trimmed.slice(0, 2000) : undefined
}

const responseError = (
  response: HttpClientResponse.HttpClientResponse,
  method: string,
  reason: "StatusCode" | "Decode" | "EmptyBody",
  description: string,
  body?: string
) =>
  new AiError.HttpResponseError({
    module: MODULE,
    method,
    reason,
    request: requestDetails(response.request),
    response: { status: response.status, headers: plainHeaders(response.headers) },
    description,
    ...(body === undefined ? {} : { body })
  }, { disableValidation: true })

const failOnStatus = (method: string) => (response: HttpClientResponse.HttpClientResponse) =>
  response.status >= 200 && response.status < 300
    ? Effect.succeed(response)
    : response.text.pipe(
      Effect.orElseSucceed(() => ""),
      Effect.flatMap((body) =>
        Effect.fail(
          responseError(response, method, "StatusCode", serverMessage(body) ?? `HTTP ${response.status}`, body)
        )
      )
    )

const httpError = (method: string) => (error: HttpClientError.HttpClientError): AiError.AiError =>
  error._tag === "RequestError"
    ? AiError.HttpRequestError.fromRequestError({ module: MODULE, method, error })
    : responseError(error.response, method, error.reason, error.description ?? String(error.cause ?? error.reason))

const malformed = (method: string, description: string) => (error: unknown) =>
  new AiError.MalformedOutput({ module: MODULE, method, description, cause: error })

// =============================================================================
// The model
// =============================================================================

export const make = (options: Options): Effect.Effect<LanguageModel.Service, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`

    const request = (body: Record<string, unknown>) =>
      HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders(options.headers ?? {}),
        options.apiKey === undefined ? (r) => r : HttpClientRequest.bearerToken(options.apiKey),
        HttpClientRequest.setUrlParams(options.query ?? {}),
        HttpClientRequest.acceptJson,
        HttpClientRequest.bodyUnsafeJson(body)
      )

    const requestBody = (providerOptions: LanguageModel.ProviderOptions, stream: boolean) =>
      Effect.map(prepareMessages(providerOptions.prompt), (messages) => ({
        model: options.model,
        messages,
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        ...(options.topP === undefined ? {} : { top_p: options.topP }),
        ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
        ...toolFields(providerOptions),
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {})
      }))

    // Untraced: on the path of every request, and @effect/ai's LanguageModel already opens a span for the call.
    const generateText = Effect.fnUntraced(
      function*(providerOptions: LanguageModel.ProviderOptions) {
        const idGenerator = yield* IdGenerator.IdGenerator
        const body = yield* requestBody(providerOptions, false)
        const response = yield* client.execute(request(body)).pipe(
          Effect.mapError(httpError("generateText")),
          Effect.flatMap(failOnStatus("generateText"))
        )
        const json = yield* response.json.pipe(Effect.mapError(httpError("generateText")))
        const answer = yield* Schema.decodeUnknown(ChatCompletion)(json).pipe(
          Effect.mapError(malformed("generateText", "Not a Chat Completions answer"))
        )
        const choice = answer.choices[0]
        const parts: Array<Response.PartEncoded> = [metadataPart(answer)]
        const reasoning = choice?.message.reasoning_content ?? choice?.message.reasoning
        if (reasoning) parts.push({ type: "reasoning", text: reasoning })
        const text = choice?.message.content
        if (text) parts.push({ type: "text", text })
        for (const call of choice?.message.tool_calls ?? []) {
          const params = yield* argumentsOf(call.function?.arguments, "generateText")
          parts.push(toolCallPart(call.id ?? (yield* idGenerator.generateId()), call.function?.name ?? "", params))
        }
        parts.push({ type: "finish", reason: finishReason(choice?.finish_reason), usage: usageOf(answer.usage) })
        return parts
      }
    )

    const streamText = (
      providerOptions: LanguageModel.ProviderOptions
    ): Stream.Stream<Response.StreamPartEncoded, AiError.AiError, IdGenerator.IdGenerator> =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const idGenerator = yield* IdGenerator.IdGenerator
        const body = yield* requestBody(providerOptions, true)
        // Ending the body's stream early (the consumer went away) closes the connection: see common/NodeHttpClient.
        const response = yield* client.execute(request(body)).pipe(
          Effect.mapError(httpError("streamText")),
          Effect.flatMap(failOnStatus("streamText"))
        )
        const textId = yield* idGenerator.generateId()
        const reasoningId = yield* idGenerator.generateId()
        let metadataSent = false
        let textOpen = false
        let reasoningOpen = false
        let reason: string | null | undefined
        let usage: Usage | null | undefined
        /** Tool calls as their pieces arrive, by index; sent whole when the stream ends. */
        const calls = new Map<number, { id: string | undefined; name: string; arguments: string }>()

        /** The parts of one event's data; one chunk of the body may carry several events, or part of one. */
        const toParts = (data: string, parts: Array<Response.StreamPartEncoded>): AiError.AiError | undefined => {
          let json: unknown
          try {
            json = JSON.parse(data)
          } catch (error) {
            return malformed("streamText", "An event is not JSON")(error)
          }
          const decoded = decodeChunk(json)
          if (Either.isLeft(decoded)) {
            return malformed("streamText", "An event is not a Chat Completions chunk")(decoded.left)
          }
          const chunk = decoded.right
          if (chunk.error !== undefined && chunk.error !== null) {
            const message = Schema.decodeUnknownOption(ErrorBody)(chunk).pipe(
              Option.map((body) => (typeof body.error === "string" ? body.error : body.error.message)),
              Option.getOrElse(() => JSON.stringify(chunk.error))
            )
            return new AiError.UnknownError({ module: MODULE, method: "streamText", description: message })
          }
          if (!metadataSent) {
            metadataSent = true
            parts.push(metadataPart(chunk))
          }
          if (chunk.usage) usage = chunk.usage
          const choice = chunk.choices?.[0]
          if (choice?.finish_reason) reason = choice.finish_reason
          const reasoningDelta = choice?.delta?.reasoning_content ?? choice?.delta?.reasoning
          if (reasoningDelta) {
            if (!reasoningOpen) parts.push({ type: "reasoning-start", id: reasoningId })
            reasoningOpen = true
            parts.push({ type: "reasoning-delta", id: reasoningId, delta: reasoningDelta })
          }
          for (const piece of choice?.delta?.tool_calls ?? []) {
            const index = piece.index ?? 0
            const call = calls.get(index) ?? { id: undefined, name: "", arguments: "" }
            call.id ??= piece.id ?? undefined
            call.name += piece.function?.name ?? ""
            call.arguments += piece.function?.arguments ?? ""
            calls.set(index, call)
          }
          const textDelta = choice?.delta?.content
          if (textDelta) {
            if (reasoningOpen) parts.push({ type: "reasoning-end", id: reasoningId })
            reasoningOpen = false
            if (!textOpen) parts.push({ type: "text-start", id: textId })
            textOpen = true
            parts.push({ type: "text-delta", id: textId, delta: textDelta })
          }
          return undefined
        }

        const closing = Stream.unwrap(Effect.gen(function*() {
          const parts: Array<Response.StreamPartEncoded> = []
          if (reasoningOpen) parts.push({ type: "reasoning-end", id: reasoningId })
          if (textOpen) parts.push({ type: "text-end", id: textId })
          for (const [, call] of [...calls].sort(([a], [b]) => a - b)) {
            const params = yield* argumentsOf(call.arguments, "streamText")
            parts.push(toolCallPart(call.id ?? (yield* idGenerator.generateId()), call.name, params))
          }
          parts.push({ type: "finish", reason: finishReason(reason), usage: usageOf(usage) })
          return Stream.fromIterable(parts)
        }))

        // The events of each chunk of the body as it arrives, in one step: bytes to text, text to
        // events (eventsource-parser), events to parts. Read to the end of the body, past [DONE]: a
        // response left unread is aborted when the scope closes, and its connection cannot be used again.
        const decoder = new TextDecoder()
        let events: Array<string> = []
        const parser = createParser({ onEvent: (event) => events.push(event.data) })
        let done = false
        return response.stream.pipe(
          Stream.mapError(httpError("streamText")),
          Stream.mapChunksEffect((bytes) =>
            Effect.suspend(() => {
              for (const piece of bytes) parser.feed(decoder.decode(piece, { stream: true }))
              const parts: Array<Response.StreamPartEncoded> = []
              for (const data of events) {
                done ||= data.trim() === "[DONE]"
                if (done) continue
                const failure = toParts(data, parts)
                if (failure !== undefined) return Effect.fail(failure)
              }
              events = []
              return Effect.succeed(Chunk.unsafeFromArray(parts))
            })
          ),
          Stream.concat(closing)
        )
      }))

    return yield* LanguageModel.make({ generateText, streamText })
  })

export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))
