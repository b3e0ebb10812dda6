/**
 * A fake LLM server on loopback speaking the providers' real wire protocols, so the gateway's LLM
 * clients are tested through real HTTP. Routes are keyed by the end of the request path
 * (`/chat/completions` matches `/v1/chat/completions` and Azure's
 * `/openai/deployments/x/chat/completions`): Chat Completions, OpenAI's Responses API
 * (`/responses`) and Anthropic's Messages API (`/v1/messages`), each with its own streamed events,
 * usage, tool calls and error bodies (fake-llm/*.ts). Every route reads the same script, so a test
 * sets the answer once whatever the protocol; `respond` chooses a script from each request's body
 * (a model that calls a tool, reads its result, then answers).
 */
import { Context, Effect, Layer } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { chatCompletions } from "./fake-llm/chat-completions.ts"
import { anthropicError, messages } from "./fake-llm/messages.ts"
import { responses } from "./fake-llm/responses.ts"
import {
  defaultScript,
  type Failure,
  type FakeScript,
  json,
  openAiError,
  type RecordedRequest,
  type Route,
  sleep
} from "./fake-llm/script.ts"

export { splitText } from "./fake-llm/script.ts"
export type { FakeScript, RecordedRequest } from "./fake-llm/script.ts"

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

interface Protocol {
  readonly answer: Route
  readonly error: (fail: Failure) => unknown
}

/** Keyed by the end of the path. */
const routes: Record<string, Protocol> = {
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
