/**
 * A fake LLM server on loopback speaking the providers' real wire protocols, so the gateway's LLM
 * clients are tested through real HTTP. Routes are keyed by the end of the request path
 * (`/chat/completions` matches `/v1/chat/completions` and Azure's
 * `/openai/deployments/x/chat/completions`); add a protocol by adding an entry to `routes`
 * (e.g. `/responses` for OpenAI's Responses API, `/v1/messages` for Anthropic). Every route reads
 * the same script, so a test sets the answer once whatever the protocol.
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
  /** The next `times` requests fail with `status` (400 carries an OpenAI-style error body). */
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
  /** The parsed JSON body (the raw text when it is not JSON). */
  readonly body: any
  readonly status: number
  /** Chunks of a streamed answer written so far. */
  chunksSent: number
  /** The whole answer was written. */
  completed: boolean
  /** The client went away before the answer was complete. */
  disconnected: boolean
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>`; an OpenAI-compatible base URL is `${url}/v1`. */
  readonly url: string
  readonly requests: ReadonlyArray<RecordedRequest>
  script(script: Partial<FakeScript>): void
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

/** The OpenAI-style error body every route answers with while a failure is scripted. */
export const errorBody = (fail: NonNullable<FakeScript["fail"]>) => ({
  error: {
    message: fail.message ?? `Scripted failure with status ${fail.status}`,
    type: fail.type ?? (fail.status === 400 ? "invalid_request_error" : fail.status === 429 ? "rate_limit_exceeded" : "server_error"),
    code: fail.code ?? null
  }
})

/** Writes one SSE event unless the client is gone; answers whether it was written. */
export const sse = (ctx: RouteContext, data: string) => {
  if (ctx.record.disconnected || ctx.res.destroyed) return false
  ctx.res.write(`data: ${data}\n\n`)
  return true
}

// =============================================================================
// Chat Completions (OpenAI, Ollama, vLLM, LM Studio, Mistral, Azure, Gemini compat)
// =============================================================================

const chatCompletions: Route = async (ctx) => {
  const { res, record, script } = ctx
  const id = `chatcmpl-fake-${Math.random().toString(36).slice(2, 10)}`
  const created = Math.floor(Date.now() / 1000)
  const model = typeof record.body?.model === "string" ? record.body.model : "fake-model"
  const usage = {
    prompt_tokens: script.usage.promptTokens,
    completion_tokens: script.usage.completionTokens,
    total_tokens: script.usage.promptTokens + script.usage.completionTokens
  }
  if (record.body?.stream !== true) {
    json(res, 200, {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message: { role: "assistant", content: script.text }, finish_reason: script.finishReason }],
      usage
    })
    record.completed = true
    return
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
    JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })
  const pieces = splitText(script.text, script.chunks)
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0 && script.delayMs > 0) await sleep(script.delayMs)
    if (!sse(ctx, chunk(i === 0 ? { role: "assistant", content: pieces[i] } : { content: pieces[i] }, null))) return
    record.chunksSent++
  }
  if (!sse(ctx, chunk({}, script.finishReason))) return
  if (record.body?.stream_options?.include_usage === true) {
    if (!sse(ctx, JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage }))) return
  }
  if (!sse(ctx, "[DONE]")) return
  res.end()
  record.completed = true
}

/** Keyed by the end of the path. */
export const routes: Record<string, Route> = {
  "/chat/completions": chatCompletions
}

// =============================================================================
// The server
// =============================================================================

export const startFakeLlm = async (): Promise<FakeLlm> => {
  const requests: Array<RecordedRequest> = []
  let current: FakeScript = defaultScript
  let failuresLeft = 0

  const server = createServer(async (req, res) => {
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
    const route = Object.entries(routes).find(([suffix]) => url.pathname.endsWith(suffix))?.[1]
    const fail = current.fail !== undefined && failuresLeft > 0 ? current.fail : undefined
    if (fail) failuresLeft--
    const status = route === undefined ? 404 : fail?.status ?? 200
    const record: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      status,
      chunksSent: 0,
      completed: false,
      disconnected: false
    }
    requests.push(record)
    res.on("close", () => {
      if (!res.writableFinished) record.disconnected = true
    })
    if (route === undefined) {
      json(res, 404, { error: { message: `No route for ${url.pathname}`, type: "not_found", code: null } })
      return
    }
    if (fail) {
      json(res, fail.status, errorBody(fail))
      record.completed = true
      return
    }
    try {
      await route({ req, res, record, script: current })
    } catch (error) {
      if (!res.headersSent) json(res, 500, { error: { message: String(error), type: "server_error", code: null } })
      else res.destroy()
    }
  })

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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** The fake as a scoped service: started when the layer is built, closed when its scope ends. */
export class FakeLlmServer extends Context.Tag("test/FakeLlmServer")<FakeLlmServer, FakeLlm>() {
  static readonly scoped = Effect.acquireRelease(Effect.promise(startFakeLlm), (fake) => Effect.promise(() => fake.close()))
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
