/**
 * Section "gateway" of `npm run bench`: the latency the AI gateway adds over calling the LLM
 * provider directly. The provider is the fake of the tests (test/support/fake-llm.ts, Chat
 * Completions) in a process of its own (scripts/bench/fake-llm-server.ts); the gateway is the
 * real one (`npx tsx src/main.ts gateway`, fresh DATA_DIR under bench/tmp/) with one
 * `openai-compatible` configuration pointing at the fake; the load generator is this process
 * (node:http, keep-alive agents of BENCH_GATEWAY_CONCURRENCY sockets). Once on embedded PGlite (what
 * a user gets by default) and once on PostgreSQL (a fresh schema, dropped afterwards), each after a
 * warm-up and a wait for a quiet machine:
 *
 *  1. added latency: 50 clients, each sending its next request when the last is answered, for
 *     BENCH_GATEWAY_SECONDS (20), straight to the fake and then through the gateway, non-streamed
 *     and streamed. The fake answers like a model, after 250–750 ms (drawn per request, so the
 *     clients do not move in lockstep; 50 clients then make about 100 requests a second, the rate
 *     of TensorZero's LiteLLM comparison), and streams its first token after the same wait. Each
 *     question carries a tag, and the fake reports its own time on each tagged request: what the
 *     client saw minus what the fake spent is the time between them, request by request (the
 *     loopback and the client for the direct calls; the gateway too for the others). "Added" is the
 *     gateway's figure minus the direct one, percentile by percentile: p50 and p99 of whole
 *     answers, and of the time to the first token;
 *  2. follow-up turns: the same through the gateway, each client asking 10 questions per
 *     conversation (the 9 follow-ups carry `?conversationId=` and are sent with the history);
 *  3. capacity: the fake answering at once, 50 clients as fast as they are answered: requests a
 *     second and CPU per request, directly and through the gateway (at saturation the latency is
 *     queueing: 50 × the time per request).
 * Every answer is checked (status, the whole text, `done`), so an error is never a fast sample.
 * Also the gateway's CPU time per request and its peak RSS.
 *
 * Writes bench/results/gateway-<date>.md and .json (a smoke run, BENCH_RUNS below 3, runs 3 s per
 * measurement and writes to bench/tmp/smoke-results/) and returns the results.
 */
import { execFileSync, fork } from "node:child_process"
import { closeSync, openSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createParser, type EventSourceMessage } from "eventsource-parser"
import type { FakeScript } from "../../test/support/fake-llm.ts"
import { startGateway } from "./broker.ts"
import type { QuietWait } from "./conversions.ts"
import type { FakeTiming, FromParent, ToParent } from "./fake-llm-server.ts"
import { closedLoop, keepAliveAgent, type Latencies, latencies, type LoadResult, post, type Send } from "./load.ts"
import { type PhaseCpu, processCpuMs, processMemory } from "./proc.ts"
import { cores, type SectionOptions, table, writeSectionReport } from "./report.ts"
import { fmtRatio, mib, ratio, round } from "./stats.ts"

export interface GatewayBenchOptions extends SectionOptions {
  /** bench.ts's wait for a quiet machine (its budget is shared by the whole run); the gateway tree rooted at the pid is not counted. */
  readonly waitForQuiet: (before: string, root: number | undefined) => Promise<QuietWait>
  /** Seconds of each measured run (20), and of the warm-up of each target and mode (a quarter of it). */
  readonly seconds: number
  readonly concurrency: number
  /** PostgreSQL to run the second half on (a fresh schema in it); empty to skip that half. */
  readonly databaseUrl: string
  /** Directory for `--cpu-prof` profiles of the gateway process, when profiling. */
  readonly profileDir: string | undefined
}

const TEXT = "Hello from the fake LLM: a short answer sent in five chunks."
const USAGE = { promptTokens: 11, completionTokens: 12 }
/** A model's pace: whole answers and first tokens after 250–750 ms, then a chunk every 10 ms. */
const MODEL_PACE: Partial<FakeScript> = { text: TEXT, chunks: 5, delayMs: 10, usage: USAGE, wholeDelayMs: 250, firstChunkDelayMs: 250, delaySpreadMs: 500 }
/** The fake answering at once, for capacity. */
const AT_ONCE: Partial<FakeScript> = { text: TEXT, chunks: 5, delayMs: 0, usage: USAGE }
/** The clients start spread over the mean wait of the model, as independent users arrive. */
const RAMP_MS = 500
const PRINCIPAL = { "x-tenant-id": "bench", "x-user-id": "u1" }
/** Requests per conversation in the follow-up run (the first opens it). */
const TURNS = 10

/** Published overheads of a peer, for context (not measured here). */
export const PEERS = [
  { name: "LiteLLM, median added latency (its documentation)", p50: 3.25 },
  { name: "LiteLLM, p99 added latency at 100 req/s (TensorZero's benchmark)", p99: 5.87 }
] as const

const scriptsDir = fileURLToPath(new URL(".", import.meta.url))
const checkoutRoot = join(scriptsDir, "..", "..")
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The fake in its own process, driven over IPC (a script to answer with, its timings). */
const startFake = async (logFile: string) => {
  const log = openSync(logFile, "a")
  const child = fork(join(scriptsDir, "fake-llm-server.ts"), [], { cwd: checkoutRoot, execArgv: ["--import", "tsx"], stdio: ["ignore", log, log, "ipc"] })
  closeSync(log)
  const next = (what: string) =>
    new Promise<ToParent>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`The fake LLM did not answer (${what}) within 30 s; see ${logFile}`)), 30_000)
      child.once("message", (message) => {
        clearTimeout(timer)
        resolve(message as ToParent)
      })
      child.once("exit", (code, signal) => {
        clearTimeout(timer)
        reject(new Error(`The fake LLM exited (${code ?? signal}); see ${logFile}`))
      })
    })
  const ask = (message: FromParent) => {
    const answer = next(Object.keys(message)[0]!)
    child.send(message)
    return answer
  }
  const { url } = (await next("start")) as { url: string }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    if ((await Promise.race([exited, sleep(5_000).then(() => "timeout")])) === "timeout") child.kill("SIGKILL")
  }
  return {
    url,
    pid: child.pid!,
    stop,
    script: async (script: Partial<FakeScript>) => void (await ask({ script })),
    timings: async () => ((await ask({ timings: true })) as { timings: Record<string, FakeTiming> }).timings
  }
}
type Fake = Awaited<ReturnType<typeof startFake>>

/** Reads a server-sent event stream as it arrives: the tokens (and when the first came) and whether it finished. */
const eventReader = (token: (event: EventSourceMessage) => string | undefined, finished: (event: EventSourceMessage) => boolean) => {
  const state = { text: "", firstAt: undefined as number | undefined, done: false }
  const parser = createParser({
    onEvent: (event) => {
      const piece = token(event)
      if (piece) {
        state.firstAt ??= performance.now()
        state.text += piece
      }
      if (finished(event)) state.done = true
    }
  })
  return { state, feed: (chunk: string) => parser.feed(chunk) }
}

const fail = (what: string, status: number, body: string): never => {
  throw new Error(`${what} answered ${status}: ${body.slice(0, 200)}`)
}

/** What a client saw of one tagged request: to the last byte, and to the first token of a stream. */
interface Seen {
  readonly ms: number
  readonly firstMs: number | undefined
}

/** The requests of each target and mode, each checked and, when tagged, remembered for the overhead. */
const requests = (fakeUrl: string, gatewayUrl: string, concurrency: number) => {
  const direct = keepAliveAgent(concurrency)
  const gateway = keepAliveAgent(concurrency)
  const completions = new URL(`${fakeUrl}/v1/chat/completions`)
  const ask = new URL(`${gatewayUrl}/api/v1/requests`)
  const askStream = new URL(`${gatewayUrl}/api/v1/requests/stream`)
  let counter = 0
  const seen = new Map<string, Seen>()
  const question = () => {
    const tag = (counter++).toString(36)
    return { tag, text: `Hi q#${tag}` }
  }
  const directBody = (text: string, stream: boolean) =>
    JSON.stringify({ model: "m", messages: [{ role: "user", content: text }], ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) })
  const gatewayBody = (text: string) => JSON.stringify({ inputs: [{ role: "user", content: [{ type: "text", value: text }] }] })

  const directWhole: Send = async (_, startedAt) => {
    const { tag, text } = question()
    const answer = await post(direct, completions, directBody(text, false), {}, startedAt)
    if (answer.status !== 200 || (JSON.parse(answer.body) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content !== TEXT) {
      fail("The fake", answer.status, answer.body)
    }
    seen.set(tag, { ms: answer.ms, firstMs: undefined })
    return { ms: answer.ms }
  }

  /** Through the gateway, in the given conversation or a new one; answers with the conversation too. */
  const gatewayWhole = async (startedAt: number, conversationId?: string) => {
    const { tag, text } = question()
    const url = conversationId === undefined ? ask : new URL(`${ask.href}?conversationId=${encodeURIComponent(conversationId)}`)
    const answer = await post(gateway, url, gatewayBody(text), PRINCIPAL, startedAt)
    const record = answer.status === 201 ? (JSON.parse(answer.body) as { status: string; response: string; conversationId: string }) : undefined
    if (record?.status !== "COMPLETED" || record.response !== TEXT) fail("POST /api/v1/requests", answer.status, answer.body)
    seen.set(tag, { ms: answer.ms, firstMs: undefined })
    return { ms: answer.ms, conversationId: record!.conversationId, tag }
  }

  const streamedRequest = async (agent: typeof direct, url: URL, body: string, headers: Record<string, string>, startedAt: number, tag: string, reader: ReturnType<typeof eventReader>) => {
    const answer = await post(agent, url, body, headers, startedAt, reader.feed)
    if (answer.status !== 200 || !reader.state.done || reader.state.text !== TEXT || reader.state.firstAt === undefined) {
      fail(`The stream of ${url.pathname} (${reader.state.done ? "finished" : "unfinished"}, text ${JSON.stringify(reader.state.text.slice(0, 40))})`, answer.status, answer.body.slice(-200))
    }
    const firstMs = reader.state.firstAt! - startedAt
    seen.set(tag, { ms: answer.ms, firstMs })
    return { ms: answer.ms, firstMs }
  }

  const directStream: Send = (_, startedAt) => {
    const { tag, text } = question()
    return streamedRequest(direct, completions, directBody(text, true), {}, startedAt, tag, eventReader(
      (event) => (event.data === "[DONE]" ? undefined : (JSON.parse(event.data) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content),
      (event) => event.data === "[DONE]"
    ))
  }

  const gatewayStream: Send = (_, startedAt) => {
    const { tag, text } = question()
    return streamedRequest(gateway, askStream, gatewayBody(text), PRINCIPAL, startedAt, tag, eventReader(
      (event) => (event.event === "delta" ? (JSON.parse(event.data) as { text: string }).text : undefined),
      (event) => event.event === "done" && (JSON.parse(event.data) as { status: string }).status === "COMPLETED"
    ))
  }

  /** Each client's conversation and how many requests it holds; the follow-ups are the ones timed. */
  const conversations = new Map<number, { id: string; turns: number }>()
  const openings = new Set<string>()
  const gatewayConversation: Send = async (client, startedAt) => {
    let current = conversations.get(client)
    if (current === undefined || current.turns >= TURNS) {
      const opened = await gatewayWhole(startedAt)
      // Its own tag: other clients have asked meanwhile, so the counter has moved on.
      openings.add(opened.tag)
      current = { id: opened.conversationId, turns: 1 }
      conversations.set(client, current)
      startedAt = performance.now()
    }
    const followUp = await gatewayWhole(startedAt, current.id)
    current.turns++
    return { ms: followUp.ms }
  }

  /**
   * What lay between client and fake on each tagged request of the run just ended (the fake's
   * own time taken off), whole answers and first tokens; the openings of conversations left out.
   */
  const between = async (fake: Fake) => {
    const timings = await fake.timings()
    const whole: Array<number> = []
    const first: Array<number> = []
    for (const [tag, client] of seen) {
      const own = timings[tag]
      if (own === undefined || openings.has(tag)) continue
      whole.push(client.ms - own.totalMs)
      if (client.firstMs !== undefined) first.push(client.firstMs - own.firstTextMs)
    }
    const matched = whole.length
    const unmatched = seen.size - openings.size - matched
    seen.clear()
    openings.clear()
    return { whole: latencies(whole), first: first.length > 0 ? latencies(first) : null, matched, unmatched }
  }

  return {
    direct: { whole: directWhole, stream: directStream },
    gateway: { whole: ((_, startedAt) => gatewayWhole(startedAt)) as Send, stream: gatewayStream, conversation: gatewayConversation },
    between,
    forget: () => {
      seen.clear()
      openings.clear()
    },
    destroy: () => {
      direct.destroy()
      gateway.destroy()
    }
  }
}

export interface Run {
  readonly name: string
  readonly target: "direct" | "gateway"
  readonly load: LoadResult
  /** Client time minus the fake's own time, per request (whole answers; first tokens of streams): null for the capacity runs. */
  readonly between: { readonly whole: Latencies; readonly first: Latencies | null; readonly matched: number; readonly unmatched: number } | null
  /** CPU time per completed request: the gateway's server process, the fake, and this process (the load generator). */
  readonly cpuPerRequestMs: { readonly gateway: number; readonly fake: number; readonly loadGenerator: number }
  /** Cores busy on average during the run: the gateway's tree, the benchmark (load generator and fake), everything else. */
  readonly cpu: PhaseCpu | null
  readonly loadAverage1m: number
}

export interface Comparison {
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
}

export interface BackendResult {
  readonly backend: "pglite" | "postgres"
  readonly label: string
  /** Why this half did not run, when it did not. */
  readonly skipped: string | null
  readonly startupMs: number
  readonly rssAtReadyKiB: number
  readonly serverHwmKiB: number
  readonly peakServerRssKiB: number
  readonly peakTreeRssKiB: number
  /** Requests that failed during the warm-up (not counted anywhere else). */
  readonly warmUpErrors: ReadonlyArray<string>
  readonly runs: ReadonlyArray<Run>
  /** Gateway minus direct, percentile by percentile, of the time between client and fake: whole answers, first tokens, follow-up turns. */
  readonly added: {
    readonly whole: Comparison
    readonly firstToken: Comparison
    readonly followUp: Comparison
  } | null
}

export interface GatewayBenchResults {
  readonly machine: Readonly<Record<string, unknown>>
  readonly settings: {
    readonly seconds: number
    readonly warmUpSeconds: number
    readonly concurrency: number
    readonly rampMs: number
    readonly modelPace: Partial<FakeScript>
    readonly turnsPerConversation: number
    readonly profiled: boolean
  }
  readonly durationSeconds: number
  readonly backends: ReadonlyArray<BackendResult>
  readonly quietWaits: ReadonlyArray<QuietWait>
  readonly targets: ReadonlyArray<{ readonly name: string; readonly figure: string; readonly met: boolean }>
}

/** How many times the target a figure is: whole numbers from 10× on. */
const times = (figure: number, target: number) => {
  const value = ratio(figure, target)
  return value >= 10 ? `${Math.round(value)}×` : fmtRatio(value)
}

const minus = (a: Latencies, b: Latencies): Comparison => ({ p50: a.p50 - b.p50, p90: a.p90 - b.p90, p99: a.p99 - b.p99, max: a.max - b.max })

const psql = (url: string, statement: string) => execFileSync("psql", [url, "-v", "ON_ERROR_STOP=1", "-qAtc", statement], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

/** A fresh schema in the PostgreSQL at `base` and a URL whose sessions use it. */
const freshSchema = (base: string) => {
  const schema = `bench_gateway_${Date.now().toString(36)}`
  psql(base, `CREATE SCHEMA ${schema}`)
  const url = new URL(base)
  url.searchParams.set("options", `-c search_path=${schema}`)
  return { schema, url: url.href, drop: () => psql(base, `DROP SCHEMA IF EXISTS ${schema} CASCADE`) }
}

export const runGatewayBench = async (options: GatewayBenchOptions): Promise<GatewayBenchResults> => {
  const { log, seconds, concurrency } = options
  const started = performance.now()
  const warmUpSeconds = Math.max(1, Math.round(seconds / 4))
  const quietWaits: Array<QuietWait> = []
  const fake = await startFake(join(options.tmp, "fake-llm.log"))
  log(`fake LLM on ${fake.url} (pid ${fake.pid})`)

  const measureBackend = async (backend: BackendResult["backend"], label: string, env: Record<string, string>): Promise<BackendResult> => {
    const gateway = await startGateway({
      cwd: options.codeRoot,
      dataDir: join(options.tmp, `data-${backend}`),
      logFile: join(options.tmp, `gateway-${backend}.log`),
      env,
      ...(options.profileDir === undefined ? {} : { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${join(options.profileDir, backend)}`] })
    })
    const load = requests(fake.url, gateway.baseUrl, concurrency)
    const loop = (send: Send, runSeconds: number) => closedLoop(concurrency, runSeconds, send, RAMP_MS)
    let stopped = false
    try {
      gateway.sampler.countAsBench(fake.pid)
      const serverPid = gateway.serverPid() ?? -1
      const ready = processMemory(serverPid)
      log(`${label}: gateway ready in ${Math.round(gateway.startupMs)} ms; RSS ${mib(ready?.rssKiB ?? Number.NaN)}`)
      const configured = await fetch(`${gateway.baseUrl}/api/v1/admin/llm/provider-conf`, {
        method: "POST",
        headers: { ...PRINCIPAL, "content-type": "application/json" },
        body: JSON.stringify({ id: "fake", type: "openai-compatible", model: "m", baseUrl: `${fake.url}/v1`, isDefault: true })
      })
      if (configured.status !== 201) fail("POST /api/v1/admin/llm/provider-conf", configured.status, await configured.text())

      gateway.sampler.setPhase("warm-up")
      log(`${label}: warm-up (${warmUpSeconds} s per target and mode)`)
      const warmUpErrors: Array<string> = []
      await fake.script(AT_ONCE)
      const warmUps = { "direct non-streamed": load.direct.whole, "gateway non-streamed": load.gateway.whole, "direct streamed": load.direct.stream, "gateway streamed": load.gateway.stream, "gateway conversations": load.gateway.conversation }
      for (const [name, send] of Object.entries(warmUps)) {
        const warm = await loop(send, warmUpSeconds)
        // Reported, not fatal unless many: a keep-alive socket closed by the fake just as it is reused fails a request.
        if (warm.errors > 0) {
          warmUpErrors.push(`${name}: ${warm.errors} of ${warm.errors + warm.completed} failed (${warm.errorSamples[0]?.replace(/\s+/g, " ").slice(0, 300)})`)
          log(`${label}: warm-up ${warmUpErrors.at(-1)}`)
        }
        if (warm.errors > (warm.errors + warm.completed) / 10) throw new Error(`Warm-up failed: ${warm.errorSamples.join(" | ")}`)
      }
      load.forget()
      await fake.timings()

      const runs: Array<Run> = []
      const measure = async (name: string, target: Run["target"], send: Send, timed: boolean) => {
        const phase = `${name} (${target})`
        gateway.sampler.setPhase(phase)
        const before = { gateway: processCpuMs(serverPid), fake: processCpuMs(fake.pid), self: process.cpuUsage() }
        const result = await loop(send, seconds)
        const self = process.cpuUsage(before.self)
        gateway.sampler.setPhase("idle")
        const between = timed ? await load.between(fake) : (load.forget(), await fake.timings(), null)
        const per = (ms: number) => ms / Math.max(1, result.completed)
        const run: Run = {
          name,
          target,
          load: result,
          between,
          cpuPerRequestMs: { gateway: per(processCpuMs(serverPid) - before.gateway), fake: per(processCpuMs(fake.pid) - before.fake), loadGenerator: per((self.user + self.system) / 1000) },
          cpu: gateway.sampler.cpuByPhase.get(phase) ?? null,
          loadAverage1m: round(loadavg()[0]!, 2)
        }
        runs.push(run)
        const overhead = between === null ? "" : `; between client and fake p50 ${round(between.whole.p50, 2)} ms, p99 ${round(between.whole.p99, 2)} ms` +
          (between.first === null ? "" : `, first token p50 ${round(between.first.p50, 2)} ms, p99 ${round(between.first.p99, 2)} ms`)
        log(`${label}, ${phase}: ${result.completed} requests, ${Math.round(result.perSecond)}/s, p50 ${round(result.total.p50)} ms${overhead}` +
          `${result.errors > 0 ? `, ${result.errors} errors (${result.errorSamples[0]})` : ""}`)
        if (result.errors > result.completed / 100) throw new Error(`${phase}: ${result.errors} of ${result.errors + result.completed} requests failed: ${result.errorSamples.join(" | ")}`)
        return run
      }
      const quiet = async (before: string) => {
        quietWaits.push(await options.waitForQuiet(`${before} (${label})`, gateway.rootPid))
      }

      await fake.script(MODEL_PACE)
      await quiet("whole answers at a model's pace")
      const directWhole = await measure("whole answers", "direct", load.direct.whole, true)
      const gatewayWhole = await measure("whole answers", "gateway", load.gateway.whole, true)
      await quiet("streamed answers at a model's pace")
      const directStream = await measure("streamed answers", "direct", load.direct.stream, true)
      const gatewayStream = await measure("streamed answers", "gateway", load.gateway.stream, true)
      await quiet("follow-up turns")
      const followUps = await measure(`follow-up turns (conversations of ${TURNS})`, "gateway", load.gateway.conversation, true)
      await fake.script(AT_ONCE)
      await quiet("capacity")
      await measure("capacity (the fake answering at once)", "direct", load.direct.whole, false)
      await measure("capacity (the fake answering at once)", "gateway", load.gateway.whole, false)

      const sampler = gateway.sampler
      const { serverHwmKiB } = await gateway.stop()
      stopped = true
      return {
        backend,
        label,
        skipped: null,
        startupMs: gateway.startupMs,
        rssAtReadyKiB: ready?.rssKiB ?? Number.NaN,
        serverHwmKiB,
        peakServerRssKiB: sampler.peakServerRssKiB,
        peakTreeRssKiB: sampler.peakTreeRssKiB,
        warmUpErrors,
        runs,
        added: {
          whole: minus(gatewayWhole.between!.whole, directWhole.between!.whole),
          firstToken: minus(gatewayStream.between!.first!, directStream.between!.first!),
          followUp: minus(followUps.between!.whole, directWhole.between!.whole)
        }
      }
    } finally {
      load.destroy()
      if (!stopped) await gateway.stop()
    }
  }

  const skipped = (backend: BackendResult["backend"], label: string, reason: string): BackendResult => {
    log(`${label}: skipped (${reason})`)
    return {
      backend, label, skipped: reason, startupMs: Number.NaN, rssAtReadyKiB: Number.NaN, serverHwmKiB: Number.NaN, peakServerRssKiB: Number.NaN, peakTreeRssKiB: Number.NaN,
      warmUpErrors: [], runs: [], added: null
    }
  }

  const backends: Array<BackendResult> = []
  try {
    backends.push(await measureBackend("pglite", "embedded PGlite", {}))
    if (options.databaseUrl === "") {
      backends.push(skipped("postgres", "PostgreSQL", "no database URL (BENCH_DATABASE_URL is empty)"))
    } else {
      let schema: ReturnType<typeof freshSchema> | undefined
      try {
        schema = freshSchema(options.databaseUrl)
      } catch (error) {
        backends.push(skipped("postgres", "PostgreSQL", `cannot create a schema in ${options.databaseUrl}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`))
      }
      if (schema !== undefined) {
        try {
          const version = psql(options.databaseUrl, "SHOW server_version").trim().split(" ")[0]
          log(`PostgreSQL ${version}: schema ${schema.schema} in ${options.databaseUrl}`)
          backends.push(await measureBackend("postgres", `PostgreSQL ${version}`, { DATABASE_URL: schema.url }))
        } finally {
          schema.drop()
        }
      }
    }
  } finally {
    await fake.stop()
  }

  const targets = backends.flatMap((b) => {
    if (b.added === null) return []
    const { whole, firstToken } = b.added
    return [
      {
        name: `${b.label}: added p50 ≤ 1 ms (whole answers, ${concurrency} clients)`,
        figure: `+${round(whole.p50, 2)} ms (${times(whole.p50, 1)} the target; LiteLLM's published median 3.25 ms)`,
        met: whole.p50 <= 1
      },
      {
        name: `${b.label}: added p99 ≤ 5 ms (whole answers, ${concurrency} clients)`,
        figure: `+${round(whole.p99, 2)} ms (${times(whole.p99, 5)} the target; LiteLLM 5.87 ms at 100 req/s)`,
        met: whole.p99 <= 5
      },
      {
        name: `${b.label}: time-to-first-token overhead ≤ 5 ms (streamed, ${concurrency} clients, p50)`,
        figure: `+${round(firstToken.p50, 2)} ms (${times(firstToken.p50, 5)} the target; p99 +${round(firstToken.p99, 2)} ms)`,
        met: firstToken.p50 <= 5
      }
    ]
  })

  const results: GatewayBenchResults = {
    machine: { ...options.machine, loadAverageAtEnd: loadavg().map((l) => round(l, 2)) },
    settings: { seconds, warmUpSeconds, concurrency, rampMs: RAMP_MS, modelPace: MODEL_PACE, turnsPerConversation: TURNS, profiled: options.profileDir !== undefined },
    durationSeconds: Math.round((performance.now() - started) / 1000),
    backends,
    quietWaits,
    targets
  }
  const { jsonPath, mdPath } = writeSectionReport(options.outDir, "gateway", results, renderGatewayMarkdown)
  log(`wrote ${mdPath} and ${jsonPath}`)
  return results
}

const quad = (l: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }, sign = "") =>
  `${sign}${round(l.p50, 2)} / ${sign}${round(l.p90, 2)} / ${sign}${round(l.p99, 2)} / ${sign}${round(l.max, 2)} ms`

const runOf = (b: BackendResult, name: string, target: Run["target"]) => b.runs.find((r) => r.name.startsWith(name) && r.target === target)

/** The figures of one backend: the same in the report and on the console. */
export const gatewaySummaryTable = (b: BackendResult, concurrency: number) => {
  if (b.added === null) return `${b.label}: not measured (${b.skipped ?? "?"})`
  const direct = runOf(b, "whole answers", "direct")!
  const whole = runOf(b, "whole answers", "gateway")!
  const directStream = runOf(b, "streamed answers", "direct")!
  const stream = runOf(b, "streamed answers", "gateway")!
  const followUps = runOf(b, "follow-up turns", "gateway")!
  const directCapacity = runOf(b, "capacity", "direct")!
  const capacity = runOf(b, "capacity", "gateway")!
  return table([`${b.label}, ${concurrency} clients: p50 / p90 / p99 / max`, "Direct to the fake", "Through the gateway", "Added by the gateway"], [
    [`Whole answers: time between client and fake`, quad(direct.between!.whole), quad(whole.between!.whole), quad(b.added.whole, "+")],
    [`Streamed answers: time between client and fake to the first token`, quad(directStream.between!.first!), quad(stream.between!.first!), quad(b.added.firstToken, "+")],
    [`Follow-up turns (1–${TURNS - 1} turns of history): time between client and fake; direct: whole answers above`, quad(direct.between!.whole), quad(followUps.between!.whole), quad(b.added.followUp, "+")],
    [`Whole answers as the client saw them (the fake's 250–750 ms included)`, quad(direct.load.total), quad(whole.load.total), ""],
    [`Whole answers: requests/s; gateway CPU per request`, `${direct.load.perSecond.toFixed(0)}/s`, `${whole.load.perSecond.toFixed(0)}/s; ${round(whole.cpuPerRequestMs.gateway, 2)} ms`, ""],
    [`Streamed answers: requests/s; gateway CPU per request`, `${directStream.load.perSecond.toFixed(0)}/s`, `${stream.load.perSecond.toFixed(0)}/s; ${round(stream.cpuPerRequestMs.gateway, 2)} ms`, ""],
    [`Capacity (the fake answering at once): requests/s; gateway CPU per request; p50 / p99`, `${directCapacity.load.perSecond.toFixed(0)}/s; ${round(directCapacity.load.total.p50, 2)} / ${round(directCapacity.load.total.p99, 2)} ms`,
      `${capacity.load.perSecond.toFixed(0)}/s; ${round(capacity.cpuPerRequestMs.gateway, 2)} ms; ${round(capacity.load.total.p50, 2)} / ${round(capacity.load.total.p99, 2)} ms`, fmtRatio(ratio(capacity.load.perSecond, directCapacity.load.perSecond))]
  ])
}

const targetsTable = (r: GatewayBenchResults) => table(["Target", "Figure", "Status"], r.targets.map((t) => [t.name, t.figure, t.met ? "met" : "**MISSED**"]))

export const renderGatewaySummary = (r: GatewayBenchResults) =>
  [
    `Gateway overhead benchmark (${r.settings.concurrency} clients, ${r.settings.seconds} s per run)`,
    ...r.backends.flatMap((b) => ["", gatewaySummaryTable(b, r.settings.concurrency)]),
    "",
    targetsTable(r)
  ].join("\n")

export const renderGatewayMarkdown = (r: GatewayBenchResults, jsonName: string) => {
  const m = r.machine
  const c = r.settings.concurrency
  const lines: Array<string> = []
  const srcChanges = Array.isArray(m.srcChanges) ? (m.srcChanges as Array<string>) : []
  lines.push(`# Gateway overhead benchmark, ${String(m.date ?? new Date().toISOString()).slice(0, 10)}`, "")
  lines.push(`Generated by \`npm run bench -- gateway\` (scripts/bench/gateway.ts); raw figures in [${jsonName}](${jsonName}). Section run: ${r.durationSeconds} s.`, "")
  lines.push(table(["Fact", "Value"], [
    ["Cores (nproc)", String(m.nproc)],
    ["CPU", String(m.cpuModel)],
    ["Memory", `${String(m.totalMemoryMiB)} MiB`],
    ["Node", String(m.node)],
    ["Code measured", String(m.measuredRef ?? `working tree at ${String(m.gitHead)}`)],
    ["Uncommitted changes under src/ at the start", srcChanges.length === 0 ? "none" : `${srcChanges.length}: ${srcChanges.map((l) => l.trim()).join(", ")}`],
    ["Load average (1, 5, 15 min), start → end", `${String(m.loadAverageAtStart)} → ${String(m.loadAverageAtEnd)}`],
    ["Quiet waits", r.quietWaits.map((w) => `${w.before}: ${Math.round(w.waitedMs / 1000)} s, other processes ${w.otherCores.toFixed(2)} cores`).join("; ")],
    ["Profiled (--cpu-prof, slower)", r.settings.profiled ? "yes" : "no"]
  ]), "")
  lines.push("## Method", "")
  lines.push(
    `Three processes on the same ${String(m.nproc)} cores: the load generator (the benchmark itself: node:http keep-alive agents of ${c} sockets), ` +
      `the fake LLM provider of the tests (test/support/fake-llm.ts, OpenAI Chat Completions, in its own process) and the real gateway ` +
      `(\`npx tsx src/main.ts gateway\`, fresh DATA_DIR, its request log on) with one \`openai-compatible\` configuration pointing at the fake. ` +
      `Each run lasts ${r.settings.seconds} s after a warm-up of ${r.settings.warmUpSeconds} s per target and mode; the direct run and the gateway run of a comparison follow each other. ` +
      `"Direct" is \`POST /v1/chat/completions\` on the fake with the body the gateway sends it; "through the gateway" is \`POST /api/v1/requests\` ` +
      `(or \`/requests/stream\`) with \`{"inputs":[{"role":"user","content":[{"type":"text","value":"Hi q#…"}]}]}\` and no conversationId, so each request ` +
      `also opens a conversation and records the request and its answer, which it returns (what a client of the API gets). Every answer is checked: the whole text, ` +
      `201 and COMPLETED, or the SSE \`done\` event.`,
    ""
  )
  lines.push(
    `- ${c} clients, each sending its next request when its last is answered, starting spread over the first ${r.settings.rampMs} ms. The fake answers as a model does: ` +
      `a whole answer after ${r.settings.modelPace.wholeDelayMs}–${(r.settings.modelPace.wholeDelayMs ?? 0) + (r.settings.modelPace.delaySpreadMs ?? 0)} ms drawn per request, ` +
      `a stream's first token after the same wait and then ${r.settings.modelPace.chunks} chunks ${r.settings.modelPace.delayMs} ms apart; ${c} clients then send about 100 requests a second, ` +
      `the rate of TensorZero's published LiteLLM comparison.`,
    `- Per request: what the client saw (to the last byte; to the first token of a stream) minus the fake's own time on that request (from when it started on it to ` +
      `its last byte; to its first text), matched by a tag in the question. Directly, that leaves the loopback and the two processes' HTTP handling; through the gateway, ` +
      `the gateway too. "Added" is the gateway's figure minus the direct one, percentile by percentile. (Subtracting the end-to-end percentiles instead would ` +
      `bury a millisecond under the fake's random 500 ms spread.)`,
    `- Follow-up turns: each client asks ${r.settings.turnsPerConversation} questions per conversation; the ${r.settings.turnsPerConversation - 1} follow-ups carry \`?conversationId=\` ` +
      `and are sent upstream with the history (the openings are left out of the figures).`,
    `- Capacity: the fake answering at once, ${c} clients as fast as they are answered. At saturation the latency is queueing: about ${c} × the gateway's time per request.`,
    `- CPU per request: user+system time of the process over the run (10 ms ticks) divided by the requests completed. Cores "other" are every process outside the ` +
      `gateway's tree and the benchmark (load generator and fake): on PostgreSQL they include the database server's work for the gateway.`,
    ""
  )
  lines.push("## Targets", "")
  lines.push(targetsTable(r), "")
  lines.push(`Published peers, for context (not measured here): ${PEERS.map((p) => `${p.name}: ${"p50" in p ? p.p50 : p.p99} ms`).join("; ")}.`, "")
  for (const b of r.backends) {
    lines.push(`## ${b.label}`, "")
    if (b.added === null) {
      lines.push(`Not measured: ${b.skipped ?? "?"}.`, "")
      continue
    }
    lines.push(gatewaySummaryTable(b, c), "")
    lines.push(table(["Run", "Target", "Requests", "Per second", "Errors", "p50", "p99", "Between client and fake p50 / p99", "First token: between, p50 / p99", "CPU/request: gateway, fake, load generator", "Cores: gateway, benchmark, other", "Load 1 min"],
      b.runs.map((run) => [
        run.name,
        run.target,
        String(run.load.completed),
        run.load.perSecond.toFixed(0),
        String(run.load.errors),
        `${round(run.load.total.p50, 2)} ms`,
        `${round(run.load.total.p99, 2)} ms`,
        run.between === null ? "" : `${round(run.between.whole.p50, 2)} / ${round(run.between.whole.p99, 2)} ms (${run.between.matched} matched${run.between.unmatched > 0 ? `, ${run.between.unmatched} not` : ""})`,
        run.between?.first == null ? "" : `${round(run.between.first.p50, 2)} / ${round(run.between.first.p99, 2)} ms`,
        `${round(run.cpuPerRequestMs.gateway, 2)}, ${round(run.cpuPerRequestMs.fake, 2)}, ${round(run.cpuPerRequestMs.loadGenerator, 2)} ms`,
        run.cpu === null ? "" : `${cores(run.cpu.brokerCores)}, ${cores(run.cpu.benchCores)}, ${cores(run.cpu.otherCores)}`,
        String(run.loadAverage1m)
      ])), "")
    lines.push(
      `Gateway start-up ${Math.round(b.startupMs)} ms; RSS of the server process at ready ${mib(b.rssAtReadyKiB)}, peak ${mib(Math.max(b.serverHwmKiB, b.peakServerRssKiB))} (VmHWM), ` +
        `whole process tree (npx, tsx, server) peak ${mib(b.peakTreeRssKiB)}.` +
        (b.warmUpErrors.length === 0 ? " No request failed in the warm-up." : ` Failed in the warm-up: ${b.warmUpErrors.join("; ")}.`),
      ""
    )
  }
  return lines.join("\n") + "\n"
}
