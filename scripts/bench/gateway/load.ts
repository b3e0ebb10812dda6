/**
 * A small HTTP load generator for the gateway benchmark: POSTs over keep-alive connections
 * (node:http, one agent per target) read to the last byte, the chunks handed to the caller as
 * they arrive (to find a streamed answer's first token); run as N clients each sending its next
 * request as soon as the last is answered (closed loop).
 */
import { Agent, request } from "node:http"
import { percentile } from "../lib/stats.ts"

export interface Answer {
  readonly status: number
  readonly body: string
  /** Milliseconds from the request's start to the last byte. */
  readonly ms: number
}

export const keepAliveAgent = (maxSockets: number) =>
  new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets })

/**
 * POST `body` (JSON) to `url`, handing each chunk of the answer to `onChunk` as it arrives.
 * `startedAt` (performance.now()) is when the request counts as started (an open-loop request's
 * due time).
 */
export const post = (
  agent: Agent,
  url: URL,
  body: string,
  headers: Readonly<Record<string, string>>,
  startedAt: number,
  onChunk?: (chunk: string) => void
) =>
  new Promise<Answer>((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      agent,
      headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
    }, (res) => {
      let received = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        received += chunk
        onChunk?.(chunk)
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: received, ms: performance.now() - startedAt }))
      res.on("error", reject)
    })
    req.setTimeout(60_000, () => req.destroy(new Error(`POST ${url.pathname} timed out after 60 s`)))
    req.on("error", reject)
    req.end(body)
  })

export interface Latencies {
  readonly n: number
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
  readonly mean: number
}

export const latencies = (values: ReadonlyArray<number>): Latencies => ({
  n: values.length,
  p50: percentile(values, 50),
  p90: percentile(values, 90),
  p99: percentile(values, 99),
  // Not Math.max(...values): a run holds too many values for the arguments of one call.
  max: values.length > 0 ? values.reduce((a, b) => Math.max(a, b), -Infinity) : Number.NaN,
  mean: values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN
})

export interface LoadResult {
  readonly seconds: number
  readonly completed: number
  readonly perSecond: number
  /** Whole answers (to the last byte). */
  readonly total: Latencies
  /** First token, where the requests define one. */
  readonly first: Latencies | null
  readonly errors: number
  /** The first few errors, for the report. */
  readonly errorSamples: ReadonlyArray<string>
}

/** What a request of a run took: to the last byte, and to the first token where it has one. */
export interface Timing {
  readonly ms: number
  readonly firstMs?: number | undefined
}

/** One request of a run: resolves with its timing when the answer was right, rejects (with why) when not. */
export type Send = (client: number, startedAt: number) => Promise<Timing>

const collect = () => {
  const total: Array<number> = []
  const first: Array<number> = []
  const errorSamples: Array<string> = []
  let errors = 0
  return {
    ok: (timing: Timing) => {
      total.push(timing.ms)
      if (timing.firstMs !== undefined) first.push(timing.firstMs)
    },
    failed: (error: unknown) => {
      errors++
      if (errorSamples.length < 5) errorSamples.push(error instanceof Error ? error.message : String(error))
    },
    result: (seconds: number): LoadResult => ({
      seconds,
      completed: total.length,
      perSecond: total.length / seconds,
      total: latencies(total),
      first: first.length > 0 ? latencies(first) : null,
      errors,
      errorSamples
    })
  }
}

/**
 * `clients` clients, each sending its next request as soon as its last is answered, for
 * `seconds`; requests still running at the end are awaited and counted. With `rampMs` the clients
 * start evenly spread over that time, as independent users arrive, not all at one instant.
 */
export const closedLoop = async (clients: number, seconds: number, send: Send, rampMs = 0): Promise<LoadResult> => {
  const results = collect()
  const started = performance.now()
  const deadline = started + seconds * 1000
  await Promise.all(Array.from({ length: clients }, async (_, client) => {
    const startAt = started + (client * rampMs) / clients
    if (startAt > performance.now()) await new Promise((resolve) => setTimeout(resolve, startAt - performance.now()))
    while (performance.now() < deadline) {
      await send(client, performance.now()).then(results.ok, results.failed)
    }
  }))
  return results.result((performance.now() - started) / 1000)
}
