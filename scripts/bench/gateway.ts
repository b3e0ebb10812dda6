/**
 * Section "gateway" of `npm run bench`: the latency the AI gateway adds over calling the LLM
 * provider directly. The provider is the fake of the tests (test/support/fake-llm.ts, Chat
 * Completions) in a process of its own (scripts/bench/fake-llm-server.ts); the gateway is the
 * real one (`npx tsx src/main.ts gateway`, fresh DATA_DIR under bench/tmp/) with one
 * `openai-compatible` configuration pointing at the fake; the load generator is this process
 * (node:http, keep-alive agents of BENCH_GATEWAY_CONCURRENCY sockets). Once on embedded PGlite (what
 * a user gets by default) and once on PostgreSQL (a fresh schema, dropped afterwards), each after
 * a warm-up and a wait for a quiet machine:
 *
 *  1. non-streamed: 50 clients, each sending its next request when the last is answered, for
 *     BENCH_GATEWAY_SECONDS (20) straight to the fake (POST /v1/chat/completions), then as long
 *     through the gateway (POST /api/v1/requests without conversationId: a new conversation per
 *     request); p50/p90/p99/max to the last byte and the difference;
 *  2. streamed: the same with `stream: true` against POST /api/v1/requests/stream; time to first
 *     token (the fake's first content chunk against the gateway's first `delta` event; the fake
 *     sends 5 chunks 10 ms apart, so the first token is well before the end);
 *  3. conversations: through the gateway only, each client asks 10 questions per conversation (the
 *     first without conversationId, 9 follow-ups with `?conversationId=`, sent with the history);
 *     the follow-ups are compared with the direct run of (1), which sends no history;
 *  4. at a steady rate: requests due at a fixed rate whatever the answers (a quarter of the
 *     gateway's throughput in (1), at most 100/s, TensorZero's benchmark rate), timed from when each
 *     was due, direct then through the gateway: the overhead of a request below saturation.
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
import { startGateway } from "./broker.ts"
import type { QuietWait } from "./conversions.ts"
import { closedLoop, keepAliveAgent, type Latencies, latencies, type LoadResult, openLoop, post, type Send } from "./load.ts"
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

/** The fake's answer: 5 chunks 10 ms apart when streamed, at once otherwise. */
const TEXT = "Hello from the fake LLM: a short answer sent in five chunks."
const SCRIPT = { text: TEXT, chunks: 5, delayMs: 10, usage: { promptTokens: 11, completionTokens: 12 } }
const PRINCIPAL = { "x-tenant-id": "bench", "x-user-id": "u1" }
const QUESTION = JSON.stringify({ inputs: [{ role: "user", content: [{ type: "text", value: "Hi" }] }] })
/** What the gateway sends the provider for that question (and a client calling it directly sends). */
const directBody = (stream: boolean) =>
  JSON.stringify({ model: "m", messages: [{ role: "user", content: "Hi" }], ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) })
/** Requests per conversation in the conversation run (the first opens it). */
const TURNS = 10
/** The steady rate is a quarter of the gateway's closed-loop throughput (little queueing), at most this. */
const MAX_RATE = 100

/** Published overheads of a peer, for context (not measured here). */
export const PEERS = [
  { name: "LiteLLM, median added latency (its documentation)", p50: 3.25 },
  { name: "LiteLLM, p99 added latency at 100 req/s (TensorZero's benchmark)", p99: 5.87 }
] as const

const scriptsDir = fileURLToPath(new URL(".", import.meta.url))
const checkoutRoot = join(scriptsDir, "..", "..")
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The fake in its own process; resolves once it listens. */
const startFake = async (logFile: string) => {
  const log = openSync(logFile, "a")
  const child = fork(join(scriptsDir, "fake-llm-server.ts"), [JSON.stringify(SCRIPT)], { cwd: checkoutRoot, execArgv: ["--import", "tsx"], stdio: ["ignore", log, log, "ipc"] })
  closeSync(log)
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The fake LLM did not start within 30 s; see ${logFile}`)), 30_000)
    child.once("message", (message) => {
      clearTimeout(timer)
      resolve((message as { url: string }).url)
    })
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`The fake LLM exited (${code ?? signal}); see ${logFile}`))
    })
  })
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    if ((await Promise.race([exited, sleep(5_000).then(() => "timeout")])) === "timeout") child.kill("SIGKILL")
  }
  return { url, pid: child.pid!, stop }
}

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

/** The requests of each target and mode, each checked. */
const requests = (fakeUrl: string, gatewayUrl: string, concurrency: number) => {
  const direct = keepAliveAgent(concurrency)
  const gateway = keepAliveAgent(concurrency)
  const completions = new URL(`${fakeUrl}/v1/chat/completions`)
  const ask = new URL(`${gatewayUrl}/api/v1/requests`)
  const askStream = new URL(`${gatewayUrl}/api/v1/requests/stream`)
  const [nonStreamed, streamed] = [directBody(false), directBody(true)]

  const directWhole: Send = async (_, startedAt) => {
    const answer = await post(direct, completions, nonStreamed, {}, startedAt)
    if (answer.status !== 200 || (JSON.parse(answer.body) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content !== TEXT) {
      fail("The fake", answer.status, answer.body)
    }
    return { ms: answer.ms }
  }

  /** Through the gateway, in the given conversation or a new one; answers with the conversation too. */
  const gatewayWhole = async (startedAt: number, conversationId?: string) => {
    const url = conversationId === undefined ? ask : new URL(`${ask.href}?conversationId=${encodeURIComponent(conversationId)}`)
    const answer = await post(gateway, url, QUESTION, PRINCIPAL, startedAt)
    const record = answer.status === 201 ? (JSON.parse(answer.body) as { status: string; response: string; conversationId: string }) : undefined
    if (record?.status !== "COMPLETED" || record.response !== TEXT) fail("POST /api/v1/requests", answer.status, answer.body)
    return { ms: answer.ms, conversationId: record!.conversationId }
  }

  const streamedRequest = async (agent: typeof direct, url: URL, body: string, headers: Record<string, string>, startedAt: number, reader: ReturnType<typeof eventReader>) => {
    const answer = await post(agent, url, body, headers, startedAt, reader.feed)
    if (answer.status !== 200 || !reader.state.done || reader.state.text !== TEXT || reader.state.firstAt === undefined) {
      fail(`The stream of ${url.pathname} (${reader.state.done ? "finished" : "unfinished"}, text ${JSON.stringify(reader.state.text.slice(0, 40))})`, answer.status, answer.body.slice(-200))
    }
    return { ms: answer.ms, firstMs: reader.state.firstAt! - startedAt }
  }

  const directStream: Send = (_, startedAt) =>
    streamedRequest(direct, completions, streamed, {}, startedAt, eventReader(
      (event) => (event.data === "[DONE]" ? undefined : (JSON.parse(event.data) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content),
      (event) => event.data === "[DONE]"
    ))

  const gatewayStream: Send = (_, startedAt) =>
    streamedRequest(gateway, askStream, QUESTION, PRINCIPAL, startedAt, eventReader(
      (event) => (event.event === "delta" ? (JSON.parse(event.data) as { text: string }).text : undefined),
      (event) => event.event === "done" && (JSON.parse(event.data) as { status: string }).status === "COMPLETED"
    ))

  /** Each client's conversation and how many requests it holds; only the follow-ups are timed. */
  const conversations = new Map<number, { id: string; turns: number }>()
  const openings: Array<number> = []
  const gatewayConversation: Send = async (client, startedAt) => {
    let current = conversations.get(client)
    if (current === undefined || current.turns >= TURNS) {
      const opened = await gatewayWhole(startedAt)
      openings.push(opened.ms)
      current = { id: opened.conversationId, turns: 1 }
      conversations.set(client, current)
      startedAt = performance.now()
    }
    const followUp = await gatewayWhole(startedAt, current.id)
    current.turns++
    return { ms: followUp.ms }
  }

  return {
    direct: { whole: directWhole, stream: directStream },
    gateway: { whole: ((_, startedAt) => gatewayWhole(startedAt)) as Send, stream: gatewayStream, conversation: gatewayConversation },
    openings,
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
  readonly steadyRate: number
  /** Requests that failed during the warm-up (not counted anywhere else). */
  readonly warmUpErrors: ReadonlyArray<string>
  readonly runs: ReadonlyArray<Run>
  /** Gateway minus direct, percentile by percentile: non-streamed, first token of streamed, follow-up turns, and at the steady rate. */
  readonly added: {
    readonly nonStreamed: Comparison
    readonly firstToken: Comparison
    readonly streamedTotal: Comparison
    readonly conversationFollowUp: Comparison
    readonly steadyRate: Comparison
  } | null
  /** Requests that opened a conversation in the conversation run (not in its figures). */
  readonly conversationOpenings: Latencies | null
}

export interface GatewayBenchResults {
  readonly machine: Readonly<Record<string, unknown>>
  readonly settings: {
    readonly seconds: number
    readonly warmUpSeconds: number
    readonly concurrency: number
    readonly fakeScript: typeof SCRIPT
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
      const warmUps = { "direct non-streamed": load.direct.whole, "gateway non-streamed": load.gateway.whole, "direct streamed": load.direct.stream, "gateway streamed": load.gateway.stream, "gateway conversations": load.gateway.conversation }
      for (const [name, send] of Object.entries(warmUps)) {
        const warm = await closedLoop(concurrency, warmUpSeconds, send)
        // Reported, not fatal unless many: a keep-alive socket closed by the fake just as it is reused fails a request.
        if (warm.errors > 0) {
          warmUpErrors.push(`${name}: ${warm.errors} of ${warm.errors + warm.completed} failed (${warm.errorSamples[0]?.replace(/\s+/g, " ").slice(0, 300)})`)
          log(`${label}: warm-up ${warmUpErrors.at(-1)}`)
        }
        if (warm.errors > (warm.errors + warm.completed) / 10) throw new Error(`Warm-up failed: ${warm.errorSamples.join(" | ")}`)
      }
      load.openings.length = 0

      const runs: Array<Run> = []
      const measure = async (name: string, target: Run["target"], drive: () => Promise<LoadResult>) => {
        const phase = `${name} (${target})`
        gateway.sampler.setPhase(phase)
        const before = { gateway: processCpuMs(serverPid), fake: processCpuMs(fake.pid), self: process.cpuUsage() }
        const result = await drive()
        const self = process.cpuUsage(before.self)
        gateway.sampler.setPhase("idle")
        const per = (ms: number) => ms / Math.max(1, result.completed)
        const run: Run = {
          name,
          target,
          load: result,
          cpuPerRequestMs: { gateway: per(processCpuMs(serverPid) - before.gateway), fake: per(processCpuMs(fake.pid) - before.fake), loadGenerator: per((self.user + self.system) / 1000) },
          cpu: gateway.sampler.cpuByPhase.get(phase) ?? null,
          loadAverage1m: round(loadavg()[0]!, 2)
        }
        runs.push(run)
        const first = result.first === null ? "" : `, first token p50 ${round(result.first.p50)} ms p99 ${round(result.first.p99)} ms`
        log(`${label}, ${phase}: ${result.completed} requests, ${Math.round(result.perSecond)}/s, p50 ${round(result.total.p50)} ms, p99 ${round(result.total.p99)} ms${first}` +
          `${result.errors > 0 ? `, ${result.errors} errors (${result.errorSamples[0]})` : ""}`)
        if (result.errors > result.completed / 100) throw new Error(`${phase}: ${result.errors} of ${result.errors + result.completed} requests failed: ${result.errorSamples.join(" | ")}`)
        return result
      }
      const quiet = async (before: string) => {
        quietWaits.push(await options.waitForQuiet(`${before} (${label})`, gateway.rootPid))
      }

      await quiet("non-streamed")
      const directWhole = await measure("non-streamed", "direct", () => closedLoop(concurrency, seconds, load.direct.whole))
      const gatewayWhole = await measure("non-streamed", "gateway", () => closedLoop(concurrency, seconds, load.gateway.whole))
      await quiet("streamed")
      const directStream = await measure("streamed", "direct", () => closedLoop(concurrency, seconds, load.direct.stream))
      const gatewayStream = await measure("streamed", "gateway", () => closedLoop(concurrency, seconds, load.gateway.stream))
      await quiet("conversations")
      const conversation = await measure(`conversations of ${TURNS} turns, follow-ups`, "gateway", () => closedLoop(concurrency, seconds, load.gateway.conversation))
      const steadyRate = Math.max(1, Math.min(MAX_RATE, Math.floor(gatewayWhole.perSecond / 4)))
      await quiet("the steady rate")
      const directSteady = await measure(`non-streamed at ${steadyRate}/s`, "direct", () => openLoop(steadyRate, seconds, load.direct.whole))
      const gatewaySteady = await measure(`non-streamed at ${steadyRate}/s`, "gateway", () => openLoop(steadyRate, seconds, load.gateway.whole))

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
        steadyRate,
        warmUpErrors,
        runs,
        added: {
          nonStreamed: minus(gatewayWhole.total, directWhole.total),
          firstToken: minus(gatewayStream.first!, directStream.first!),
          streamedTotal: minus(gatewayStream.total, directStream.total),
          conversationFollowUp: minus(conversation.total, directWhole.total),
          steadyRate: minus(gatewaySteady.total, directSteady.total)
        },
        conversationOpenings: load.openings.length > 0 ? latencies(load.openings) : null
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
      steadyRate: Number.NaN, warmUpErrors: [], runs: [], added: null, conversationOpenings: null
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
    const whole = b.runs.find((r) => r.name === "non-streamed" && r.target === "gateway")!.load.total
    const direct = b.runs.find((r) => r.name === "non-streamed" && r.target === "direct")!.load.total
    const stream = b.runs.find((r) => r.name === "streamed" && r.target === "gateway")!.load.first!
    const directStream = b.runs.find((r) => r.name === "streamed" && r.target === "direct")!.load.first!
    const added = b.added
    return [
      {
        name: `${b.label}: added p50 ≤ 1 ms (non-streamed, ${concurrency} clients)`,
        figure: `${round(whole.p50)} − ${round(direct.p50)} ms = +${round(added.nonStreamed.p50)} ms (${times(added.nonStreamed.p50, 1)} the target; LiteLLM's published median 3.25 ms)`,
        met: added.nonStreamed.p50 <= 1
      },
      {
        name: `${b.label}: added p99 ≤ 5 ms (non-streamed, ${concurrency} clients)`,
        figure: `${round(whole.p99)} − ${round(direct.p99)} ms = +${round(added.nonStreamed.p99)} ms (${times(added.nonStreamed.p99, 5)} the target; LiteLLM 5.87 ms at 100 req/s)`,
        met: added.nonStreamed.p99 <= 5
      },
      {
        name: `${b.label}: time-to-first-token overhead ≤ 5 ms (streamed, ${concurrency} clients, p50)`,
        figure: `${round(stream.p50)} − ${round(directStream.p50)} ms = +${round(added.firstToken.p50)} ms (${times(added.firstToken.p50, 5)} the target; p99 +${round(added.firstToken.p99)} ms)`,
        met: added.firstToken.p50 <= 5
      }
    ]
  })

  const results: GatewayBenchResults = {
    machine: { ...options.machine, loadAverageAtEnd: loadavg().map((l) => round(l, 2)) },
    settings: { seconds, warmUpSeconds, concurrency, fakeScript: SCRIPT, turnsPerConversation: TURNS, profiled: options.profileDir !== undefined },
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
  `${sign}${round(l.p50)} / ${sign}${round(l.p90)} / ${sign}${round(l.p99)} / ${sign}${round(l.max)} ms`

const runOf = (b: BackendResult, name: string, target: Run["target"]) => b.runs.find((r) => r.name.startsWith(name) && r.target === target)

/** The figures of one backend: the same in the report and on the console. */
export const gatewaySummaryTable = (b: BackendResult, concurrency: number) => {
  if (b.added === null) return `${b.label}: not measured (${b.skipped ?? "?"})`
  const direct = runOf(b, "non-streamed", "direct")!
  const whole = runOf(b, "non-streamed", "gateway")!
  const directStream = runOf(b, "streamed", "direct")!
  const stream = runOf(b, "streamed", "gateway")!
  const conversation = runOf(b, "conversations", "gateway")!
  const directSteady = runOf(b, `non-streamed at`, "direct")!
  const steady = runOf(b, `non-streamed at`, "gateway")!
  return table([`${b.label}: p50 / p90 / p99 / max`, "Direct to the fake", "Through the gateway", "Added by the gateway"], [
    [`Non-streamed, ${concurrency} clients`, quad(direct.load.total), quad(whole.load.total), quad(b.added.nonStreamed, "+")],
    [`Non-streamed, ${concurrency} clients: requests/s`, direct.load.perSecond.toFixed(0), whole.load.perSecond.toFixed(0), fmtRatio(ratio(whole.load.perSecond, direct.load.perSecond))],
    [`Streamed, ${concurrency} clients: first token`, quad(directStream.load.first!), quad(stream.load.first!), quad(b.added.firstToken, "+")],
    [`Streamed, ${concurrency} clients: whole answer`, quad(directStream.load.total), quad(stream.load.total), quad(b.added.streamedTotal, "+")],
    [`Follow-up turn of a conversation (1–${TURNS - 1} turns of history), ${concurrency} clients; direct: non-streamed above`, quad(direct.load.total), quad(conversation.load.total), quad(b.added.conversationFollowUp, "+")],
    [`Non-streamed at a steady ${b.steadyRate} requests/s`, quad(directSteady.load.total), quad(steady.load.total), quad(b.added.steadyRate, "+")],
    [
      `CPU time per request, non-streamed / streamed (the fake's process; the gateway's)`,
      `${round(direct.cpuPerRequestMs.fake, 2)} / ${round(directStream.cpuPerRequestMs.fake, 2)} ms`,
      `${round(whole.cpuPerRequestMs.gateway, 2)} / ${round(stream.cpuPerRequestMs.gateway, 2)} ms`,
      ""
    ]
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
      `the fake LLM provider of the tests (test/support/fake-llm.ts, OpenAI Chat Completions, in its own process, recording nothing) and the real gateway ` +
      `(\`npx tsx src/main.ts gateway\`, fresh DATA_DIR, its request log on) with one \`openai-compatible\` configuration pointing at the fake. ` +
      `Each run lasts ${r.settings.seconds} s after a warm-up of ${r.settings.warmUpSeconds} s per target and mode; the direct run and the gateway run of a comparison follow each other. ` +
      `"Direct" is \`POST /v1/chat/completions\` on the fake with the body the gateway sends it; "through the gateway" is \`POST /api/v1/requests\` ` +
      `(or \`/requests/stream\`) with \`{"inputs":[{"role":"user","content":[{"type":"text","value":"Hi"}]}]}\` and no conversationId, so each request ` +
      `also opens a conversation and records the request and its answer, which it returns (what a client of the API gets). Every answer is checked: the whole text, ` +
      `201 and COMPLETED, or the SSE \`done\` event.`,
    ""
  )
  lines.push(
    `- Closed loop: ${c} clients, each sending its next request when its last is answered. At saturation the latency is mostly queueing, so the added ` +
      `latency there is about ${c} × (the gateway's time per request on the cores it gets): it measures capacity as much as overhead.`,
    `- The fake keeps idle connections open (scripts/bench/fake-llm-server.ts): with Node's 5 s keep-alive timeout, the gateway reusing a socket the fake ` +
      `closes at that instant fails a streamed request (streams are not retried), whenever it has idled about 5 s.`,
    `- Streamed: the fake sends ${r.settings.fakeScript.chunks} chunks ${r.settings.fakeScript.delayMs} ms apart; the first token is the fake's first content chunk ` +
      `against the gateway's first \`delta\` event.`,
    `- Conversations: each client asks ${r.settings.turnsPerConversation} questions per conversation (the first opens it and is not counted; ` +
      `the ${r.settings.turnsPerConversation - 1} follow-ups carry \`?conversationId=\` and are sent upstream with the history), against the direct non-streamed run (no history).`,
    `- Steady rate: requests due evenly at a quarter of the gateway's closed-loop throughput (at most ${MAX_RATE}/s, TensorZero's benchmark rate), ` +
      `each timed from when it was due: the overhead of one request below saturation (with a little queueing left).`,
    `- "Added" is gateway minus direct, percentile by percentile. CPU per request: user+system time of the process over the run (10 ms ticks) divided by the requests completed. ` +
      `Cores "other" are every process outside the gateway's tree and the benchmark (load generator and fake): on PostgreSQL they include the database server's work for the gateway.`,
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
    lines.push(table(["Run", "Target", "Requests", "Per second", "Errors", "p50", "p90", "p99", "Max", "First token p50 / p99", "CPU/request: gateway, fake, load generator", "Cores: gateway, benchmark, other", "Load 1 min"],
      b.runs.map((run) => [
        run.name,
        run.target,
        String(run.load.completed),
        run.load.perSecond.toFixed(0),
        String(run.load.errors),
        `${round(run.load.total.p50)} ms`,
        `${round(run.load.total.p90)} ms`,
        `${round(run.load.total.p99)} ms`,
        `${round(run.load.total.max)} ms`,
        run.load.first === null ? "" : `${round(run.load.first.p50)} / ${round(run.load.first.p99)} ms`,
        `${round(run.cpuPerRequestMs.gateway, 2)}, ${round(run.cpuPerRequestMs.fake, 2)}, ${round(run.cpuPerRequestMs.loadGenerator, 2)} ms`,
        run.cpu === null ? "" : `${cores(run.cpu.brokerCores)}, ${cores(run.cpu.benchCores)}, ${cores(run.cpu.otherCores)}`,
        String(run.loadAverage1m)
      ])), "")
    const openings = b.conversationOpenings
    lines.push(
      `Gateway start-up ${Math.round(b.startupMs)} ms; RSS of the server process at ready ${mib(b.rssAtReadyKiB)}, peak ${mib(Math.max(b.serverHwmKiB, b.peakServerRssKiB))} (VmHWM), ` +
        `whole process tree (npx, tsx, server) peak ${mib(b.peakTreeRssKiB)}.` +
        (openings === null ? "" : ` Requests that opened a conversation in the conversation run: p50 ${round(openings.p50)} ms, p99 ${round(openings.p99)} ms (${openings.n}).`) +
        (b.warmUpErrors.length === 0 ? " No request failed in the warm-up." : ` Failed in the warm-up: ${b.warmUpErrors.join("; ")}.`),
      ""
    )
  }
  return lines.join("\n") + "\n"
}
