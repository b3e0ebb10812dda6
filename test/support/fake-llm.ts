/**
 * A fake LLM server on loopback speaking the providers' real wire protocols, so the gateway's LLM
 * clients are tested through real HTTP. Routes are keyed by the end of the request path
 * (`/chat/completions` matches `/v1/chat/completions` and Azure's
 * `/openai/deployments/x/chat/completions`): Chat Completions, OpenAI's Responses API
 * (`/responses`) and Anthropic's Messages API (`/v1/messages`), each with its own streamed events,
 * usage and error bodies. Every route reads the same script, so a test sets the answer once
 * whatever the protocol. Chat Completions also answers with tool calls (`toolCalls`), whole or
 * streamed in pieces as providers send them; `respond` chooses a script from each request's body
 * (a model that calls a tool, reads its result, then answers).
 */
import { Context, Effect, Layer } from "effect"
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

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
   * Chat Completions only: the answer calls these tools (finish reason `tool_calls`) instead of
   * writing `text`; streamed, each call's arguments arrive in two pieces.
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

export interface FakeLlm {
  /** `http://127.0.0.1:<port>`; an OpenAI-compatible base URL is `${url}/v1`. */
  readonly url: string
  /** Every request received, in order (stays empty when started with `record: false`). */
  readonly requests: ReadonlyArray<RecordedRequest>
  script(script: Partial<FakeScript>): void
  /**
   * Answers a request whose body contains `marker` with `script` instead (missing fields take the
   * defaults), until replaced: one fake serving several questions, each its own answer and pace.
   */
  scriptWhen(marker: string, script: Partial<FakeScript>): void
  /**
   * Chooses the script of each request from its parsed body (before markers and the script);
   * `undefined` leaves the choice to them. `respond(undefined)` removes it.
   */
  respond(choose: ((body: any) => Partial<FakeScript> | undefined) | undefined): void
  close(): Promise<void>
}

/** What a route is given: the request, its recording, and the script as it stood when it arrived. */
export interface RouteContext {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly record: RecordedRequest
  readonly script: FakeScript
}
export type Route = (ctx: RouteContext) => Promise<void>

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Splits `text` into `n` pieces of nearly equal length (fewer when the text is shorter). */
export const splitText = (text: string, n: number): Array<string> => {
  const count = Math.max(1, Math.min(n, text.length))
  const size = Math.ceil(text.length / count)
  const pieces: Array<string> = []
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size))
  return pieces.length > 0 ? pieces : [""]
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

type Failure = NonNullable<FakeScript["fail"]>

/** OpenAI's error body (Chat Completions and Responses). */
const openAiError = (fail: Failure) => ({
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

const startEventStream = (res: ServerResponse) =>
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })

/** Writes the script's text in its chunks with its pauses; answers whether every chunk was written. */
const streamPieces = async (ctx: RouteContext, write: (piece: string, index: number) => boolean) => {
  const pieces = splitText(ctx.script.text, ctx.script.chunks)
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0 && ctx.script.delayMs > 0) await sleep(ctx.script.delayMs)
    if (!write(pieces[i]!, i)) return false
    ctx.record.firstTextAt ??= performance.now()
    ctx.record.chunksSent++
  }
  return true
}

const modelOf = (record: RecordedRequest) => (typeof record.body?.model === "string" ? record.body.model : "fake-model")
const randomId = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 12)}`

// =============================================================================
// Chat Completions (OpenAI, Ollama, vLLM, LM Studio, Mistral, Azure, Gemini compat)
// =============================================================================

const chatCompletions: Route = async (ctx) => {
  const { res, record, script } = ctx
  const id = `chatcmpl-fake-${Math.random().toString(36).slice(2, 10)}`
  const created = Math.floor(Date.now() / 1000)
  const model = modelOf(record)
  const usage = {
    prompt_tokens: script.usage.promptTokens,
    completion_tokens: script.usage.completionTokens,
    total_tokens: script.usage.promptTokens + script.usage.completionTokens
  }
  const calls = script.toolCalls?.map((call, index) => ({
    index,
    id: `call_${Math.random().toString(36).slice(2, 10)}`,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.arguments) }
  }))
  if (record.body?.stream !== true) {
    record.firstTextAt = performance.now()
    const message = calls === undefined
      ? { role: "assistant", content: script.text }
      : { role: "assistant", content: null, tool_calls: calls.map(({ index: _, ...call }) => call) }
    json(res, 200, {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: calls === undefined ? script.finishReason : "tool_calls" }],
      usage
    })
    record.completed = true
    return
  }
  startEventStream(res)
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
    JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason }]
    })
  if (calls !== undefined) {
    // Each call's name and first half of its arguments, then the rest, as providers send them.
    for (const call of calls) {
      const half = Math.ceil(call.function.arguments.length / 2)
      const first = {
        ...call,
        function: { name: call.function.name, arguments: call.function.arguments.slice(0, half) }
      }
      const rest = { index: call.index, function: { arguments: call.function.arguments.slice(half) } }
      if (!sse(ctx, chunk({ role: "assistant", tool_calls: [first] }, null))) return
      if (!sse(ctx, chunk({ tool_calls: [rest] }, null))) return
    }
  } else if (
    !(await streamPieces(
      ctx,
      (piece, i) => sse(ctx, chunk(i === 0 ? { role: "assistant", content: piece } : { content: piece }, null))
    ))
  ) return
  if (!sse(ctx, chunk({}, calls === undefined ? script.finishReason : "tool_calls"))) return
  if (record.body?.stream_options?.include_usage === true) {
    if (!sse(ctx, JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage }))) return
  }
  if (!sse(ctx, "[DONE]")) return
  res.end()
  record.completed = true
}

// =============================================================================
// Responses API (OpenAI)
// =============================================================================

const responses: Route = async (ctx) => {
  const { res, record, script } = ctx
  const id = randomId("resp_")
  const itemId = randomId("msg_")
  const model = modelOf(record)
  const usage = {
    input_tokens: script.usage.promptTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: script.usage.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: script.usage.promptTokens + script.usage.completionTokens
  }
  // "length" is the one finish reason the Responses API reports, as an incomplete response.
  const incomplete = script.finishReason === "length"
  const response = (status: string, output: Array<unknown>, withUsage: boolean) => ({
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: incomplete && status !== "in_progress" ? { reason: "max_output_tokens" } : null,
    instructions: null,
    max_output_tokens: record.body?.max_output_tokens ?? null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: record.body?.store ?? true,
    temperature: record.body?.temperature ?? 1,
    text: { format: { type: "text" } },
    tool_choice: record.body?.tool_choice ?? "auto",
    tools: [],
    top_p: record.body?.top_p ?? 1,
    truncation: "disabled",
    usage: withUsage ? usage : null,
    user: null,
    metadata: {}
  })
  const message = (status: string, text: string) => ({
    type: "message",
    id: itemId,
    status,
    role: "assistant",
    content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [] }]
  })
  const finalStatus = incomplete ? "incomplete" : "completed"
  if (record.body?.stream !== true) {
    record.firstTextAt = performance.now()
    json(res, 200, response(finalStatus, [message("completed", script.text)], true))
    record.completed = true
    return
  }
  startEventStream(res)
  let sequence = 0
  const event = (type: string, fields: Record<string, unknown>) =>
    sse(ctx, JSON.stringify({ type, sequence_number: sequence++, ...fields }), type)
  const part = (text: string) => ({ type: "output_text", text, annotations: [] })
  if (!event("response.created", { response: response("in_progress", [], false) })) return
  if (!event("response.in_progress", { response: response("in_progress", [], false) })) return
  if (!event("response.output_item.added", { output_index: 0, item: message("in_progress", "") })) return
  if (!event("response.content_part.added", { item_id: itemId, output_index: 0, content_index: 0, part: part("") })) {
    return
  }
  const written = await streamPieces(
    ctx,
    (delta) =>
      event("response.output_text.delta", { item_id: itemId, output_index: 0, content_index: 0, delta, logprobs: [] })
  )
  if (!written) return
  if (
    !event("response.output_text.done", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      text: script.text,
      logprobs: []
    })
  ) return
  if (
    !event("response.content_part.done", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: part(script.text)
    })
  ) return
  if (!event("response.output_item.done", { output_index: 0, item: message("completed", script.text) })) return
  if (
    !event(`response.${finalStatus}`, { response: response(finalStatus, [message("completed", script.text)], true) })
  ) return
  res.end()
  record.completed = true
}

// =============================================================================
// Messages API (Anthropic)
// =============================================================================

const anthropicStopReason = (finishReason: string) => (finishReason === "length" ? "max_tokens" : "end_turn")

const messages: Route = async (ctx) => {
  const { res, record, script } = ctx
  const id = randomId("msg_")
  const model = modelOf(record)
  const stopReason = anthropicStopReason(script.finishReason)
  const usage = {
    input_tokens: script.usage.promptTokens,
    output_tokens: script.usage.completionTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0
  }
  const message = (content: Array<unknown>, stop: string | null, messageUsage: Record<string, number>) => ({
    id,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: messageUsage
  })
  if (record.body?.stream !== true) {
    record.firstTextAt = performance.now()
    json(res, 200, message([{ type: "text", text: script.text }], stopReason, usage))
    record.completed = true
    return
  }
  startEventStream(res)
  const event = (type: string, fields: Record<string, unknown>) => sse(ctx, JSON.stringify({ type, ...fields }), type)
  if (!event("message_start", { message: message([], null, { ...usage, output_tokens: 1 }) })) return
  if (!event("content_block_start", { index: 0, content_block: { type: "text", text: "" } })) return
  if (!event("ping", {})) return
  const written = await streamPieces(
    ctx,
    (text) => event("content_block_delta", { index: 0, delta: { type: "text_delta", text } })
  )
  if (!written) return
  if (!event("content_block_stop", { index: 0 })) return
  if (
    !event("message_delta", {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: script.usage.completionTokens }
    })
  ) return
  if (!event("message_stop", {})) return
  res.end()
  record.completed = true
}

/** Anthropic's error body. */
const anthropicError = (fail: Failure) => ({
  type: "error",
  error: {
    type: fail.type ??
      (fail.status === 400
        ? "invalid_request_error"
        : fail.status === 401
        ? "authentication_error"
        : fail.status === 429
        ? "rate_limit_error"
        : fail.status === 529
        ? "overloaded_error"
        : "api_error"),
    message: fail.message ?? `Scripted failure with status ${fail.status}`
  }
})

interface Protocol {
  readonly answer: Route
  readonly error: (fail: Failure) => unknown
}

/** Keyed by the end of the path. */
export const routes: Record<string, Protocol> = {
  "/chat/completions": { answer: chatCompletions, error: openAiError },
  "/responses": { answer: responses, error: openAiError },
  "/v1/messages": { answer: messages, error: anthropicError }
}

// =============================================================================
// The server
// =============================================================================

export interface FakeLlmOptions {
  /**
   * Keep every request in `requests` (the default). A load run turns it off: the list only grows,
   * and at thousands of requests a second it is a leak that would weigh on the figures.
   */
  readonly record?: boolean
  /**
   * How long an idle keep-alive connection stays open, in milliseconds (Node's default, 5 s, when
   * not given; 0 keeps it open). A client that reuses a connection just as it is closed fails.
   */
  readonly keepAliveTimeoutMs?: number
  /** Called with each request once its answer is written to the end (its timings set). */
  readonly onFinished?: (record: RecordedRequest) => void
}

export const startFakeLlm = async (options: FakeLlmOptions = {}): Promise<FakeLlm> => {
  const requests: Array<RecordedRequest> = []
  const recording = options.record !== false
  let current: FakeScript = defaultScript
  let failuresLeft = 0
  const byMarker = new Map<string, FakeScript>()
  let chooser: ((body: any) => Partial<FakeScript> | undefined) | undefined

  const server = createServer(async (req, res) => {
    const receivedAt = performance.now()
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString("utf8")
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      // keep the raw text
    }
    const url = new URL(req.url ?? "/", "http://fake")
    const protocol = Object.entries(routes).find(([suffix]) => url.pathname.endsWith(suffix))?.[1]
    const fail = current.fail !== undefined && failuresLeft > 0 ? current.fail : undefined
    if (fail) failuresLeft--
    const status = protocol === undefined ? 404 : fail?.status ?? 200
    const record: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      connection: req.socket.remotePort,
      body,
      status,
      chunksSent: 0,
      completed: false,
      disconnected: false,
      receivedAt,
      firstTextAt: undefined,
      finishedAt: undefined
    }
    if (recording) requests.push(record)
    res.on("close", () => {
      if (!res.writableFinished) record.disconnected = true
    })
    res.on("finish", () => {
      record.finishedAt = performance.now()
      options.onFinished?.(record)
    })
    if (protocol === undefined) {
      json(res, 404, { error: { message: `No route for ${url.pathname}`, type: "not_found", code: null } })
      return
    }
    if (fail) {
      json(res, fail.status, protocol.error(fail))
      record.completed = true
      return
    }
    try {
      const chosen = chooser?.(body)
      const script = chosen !== undefined
        ? { ...defaultScript, ...chosen }
        : [...byMarker].find(([marker]) => text.includes(marker))?.[1] ?? current
      const wait = (record.body?.stream === true ? script.firstChunkDelayMs : script.wholeDelayMs) ?? 0
      const spread = script.delaySpreadMs ? Math.random() * script.delaySpreadMs : 0
      if (wait + spread > 0) {
        await sleep(wait + spread)
        if (record.disconnected) return
      }
      await protocol.answer({ req, res, record, script })
    } catch (error) {
      if (!res.headersSent) json(res, 500, { error: { message: String(error), type: "server_error", code: null } })
      else res.destroy()
    }
  })

  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(script) {
      current = { ...defaultScript, ...script }
      failuresLeft = current.fail === undefined ? 0 : current.fail.times ?? 1
    },
    scriptWhen(marker, script) {
      byMarker.set(marker, { ...defaultScript, ...script })
    },
    respond(choose) {
      chooser = choose
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** The fake as a scoped service: started when the layer is built, closed when its scope ends. */
export class FakeLlmServer extends Context.Tag("test/FakeLlmServer")<FakeLlmServer, FakeLlm>() {
  static readonly scoped = Effect.acquireRelease(
    Effect.promise(() => startFakeLlm()),
    (fake) => Effect.promise(() => fake.close())
  )
  static readonly layer = Layer.scoped(FakeLlmServer, FakeLlmServer.scoped)
}

/** Polls until `predicate` holds (every 10 ms, up to `timeoutMs`), failing the test otherwise. */
export const eventually = (predicate: () => boolean, timeoutMs = 5_000, what = "condition") =>
  Effect.promise(async () => {
    const deadline = Date.now() + timeoutMs
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await sleep(10)
    }
  })
