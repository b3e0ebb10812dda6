/**
 * The fake LLM provider's script and the pieces every protocol's route shares: what a request is
 * answered with (FakeScript), what the fake records of it, and how a route writes JSON, server-sent
 * events and the script's text in its chunks. The routes (chat-completions.ts, responses.ts,
 * messages.ts) each speak one provider's wire protocol; the server is ../fake-llm.ts.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"

/** What the server answers; `script()` replaces it whole (missing fields take the defaults). */
export interface FakeScript {
  /** The answer's text. */
  readonly text: string
  /** Streaming: how many chunks the text is split into, and the pause before each chunk after the first. */
  readonly chunks: number
  readonly delayMs: number
  readonly usage: { readonly promptTokens: number; readonly completionTokens: number }
  readonly finishReason: string
  /** A whole (not streamed) answer waits this long before it is sent: a slow model. */
  readonly wholeDelayMs?: number
  /** A streamed answer waits this long before its first chunk: the model's time to first token. */
  readonly firstChunkDelayMs?: number
  /** Up to this much more, drawn evenly at random per request, on either wait: models do not answer in lockstep. */
  readonly delaySpreadMs?: number
  /**
   * The answer calls these tools instead of writing `text`, as each protocol says it (Chat
   * Completions' `tool_calls`, the Responses API's `function_call` items, Anthropic's `tool_use`
   * blocks); streamed, each call's arguments arrive in two pieces.
   */
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly arguments: unknown }>
  /** The next `times` requests fail with `status`, with the error body of the route's protocol. */
  readonly fail?: {
    readonly status: number
    readonly times?: number
    readonly message?: string
    readonly type?: string
    readonly code?: string
  }
}

export const defaultScript: FakeScript = {
  text: "Hello from the fake LLM.",
  chunks: 3,
  delayMs: 0,
  usage: { promptTokens: 11, completionTokens: 7 },
  finishReason: "stop"
}

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingHttpHeaders
  /** The client's end of the connection (`port`): the same for requests that reused a connection. */
  readonly connection: number | undefined
  /** The parsed JSON body (the raw text when it is not JSON). */
  readonly body: any
  readonly status: number
  /** Chunks of a streamed answer written so far. */
  chunksSent: number
  /** The whole answer was written. */
  completed: boolean
  /** The client went away before the answer was complete. */
  disconnected: boolean
  /** When the fake started on the request, wrote the first piece of the answer's text, and wrote its last byte (performance.now()). */
  readonly receivedAt: number
  firstTextAt: number | undefined
  finishedAt: number | undefined
}

/** What a route is given: the request, its recording, and the script as it stood when it arrived. */
export interface RouteContext {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly record: RecordedRequest
  readonly script: FakeScript
}
export type Route = (ctx: RouteContext) => Promise<void>

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Splits `text` into `n` pieces of nearly equal length (fewer when the text is shorter). */
export const splitText = (text: string, n: number): Array<string> => {
  const count = Math.max(1, Math.min(n, text.length))
  const size = Math.ceil(text.length / count)
  const pieces: Array<string> = []
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size))
  return pieces.length > 0 ? pieces : [""]
}

export const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

export type Failure = NonNullable<FakeScript["fail"]>

/** OpenAI's error body (Chat Completions and Responses). */
export const openAiError = (fail: Failure) => ({
  error: {
    message: fail.message ?? `Scripted failure with status ${fail.status}`,
    type: fail.type ??
      (fail.status === 400 ? "invalid_request_error" : fail.status === 429 ? "rate_limit_exceeded" : "server_error"),
    code: fail.code ?? null
  }
})

/** Writes one SSE event (named when `event` is given) unless the client is gone; answers whether it was written. */
export const sse = (ctx: RouteContext, data: string, event?: string) => {
  if (ctx.record.disconnected || ctx.res.destroyed) return false
  ctx.res.write(`${event === undefined ? "" : `event: ${event}\n`}data: ${data}\n\n`)
  return true
}

export const startEventStream = (res: ServerResponse) =>
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })

/** Writes the script's text in its chunks with its pauses; answers whether every chunk was written. */
export const streamPieces = async (ctx: RouteContext, write: (piece: string, index: number) => boolean) => {
  const pieces = splitText(ctx.script.text, ctx.script.chunks)
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0 && ctx.script.delayMs > 0) await sleep(ctx.script.delayMs)
    if (!write(pieces[i]!, i)) return false
    ctx.record.firstTextAt ??= performance.now()
    ctx.record.chunksSent++
  }
  return true
}

export const modelOf = (
  record: RecordedRequest
) => (typeof record.body?.model === "string" ? record.body.model : "fake-model")
export const randomId = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 12)}`

/** The script's tool calls, each with the ID a provider would give it and its arguments as JSON text. */
export const toolCallsOf = (script: FakeScript, prefix: string) =>
  script.toolCalls?.map((call) => ({
    id: randomId(prefix),
    name: call.name,
    arguments: JSON.stringify(call.arguments)
  }))

/** A call's arguments in the two pieces providers stream them in. */
export const halves = (
  text: string
) => [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))]
