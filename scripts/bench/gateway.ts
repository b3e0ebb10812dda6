/**
 * Section "gateway" of `npm run bench`: the latency the AI gateway adds over calling the LLM
 * provider directly. The provider is the fake of the tests (test/support/fake-llm.ts, Chat
 * Completions) in a process of its own (gateway/fake-llm-server.ts); the gateway is the
 * real one (`node scripts/start.mjs gateway`, fresh DATA_DIR under bench/tmp/) with one
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
 *     queueing: 50 × the time per request);
 *  4. side by side with a dedicated gateway: Portkey's (`@portkey-ai/gateway`, gateway/portkey.ts,
 *     a process of its own started once for the section) in front of the same fake, whole answers
 *     at 50 clients next to run 1, and at SIDE_BY_SIDE_CLIENTS (20) clients directly, through
 *     Portkey and through ours one after another; its added latency is measured as ours is, and
 *     the targets are ours ≤ 1.0× Portkey's added p50 and p99. Portkey records nothing and knows
 *     no tenant: what it adds is a proxy's bare cost, ours includes tenancy and persistence.
 * Every answer is checked (status, the whole text, `done`), so an error is never a fast sample.
 * Also the gateway's CPU time per request and its peak RSS.
 *
 * The fake's process is driven from gateway/fake-llm.ts, the requests are in gateway/requests.ts,
 * the results and their report in gateway/report.ts; settings, smoke runs and where the report
 * goes: bench/README.md.
 */
import { execFileSync } from "node:child_process"
import { loadavg } from "node:os"
import { join } from "node:path"
import type { FakeScript } from "../../test/support/fake-llm.ts"
import { startFake } from "./gateway/fake-llm.ts"
import { closedLoop, type Latencies, type Send } from "./gateway/load.ts"
import { startPortkey } from "./gateway/portkey.ts"
import {
  type BackendResult,
  type Comparison,
  type GatewayBenchResults,
  renderGatewayMarkdown,
  type Run,
  type SideBySide
} from "./gateway/report.ts"
import { fail, PRINCIPAL, requests, TEXT, TURNS } from "./gateway/requests.ts"
import { processCpuMs, processMemory } from "./lib/proc.ts"
import type { QuietWait } from "./lib/quiet.ts"
import { writeSectionReport } from "./lib/report.ts"
import type { SectionOptions } from "./lib/section.ts"
import { startGateway } from "./lib/service.ts"
import { fmtRatio, mib, ratio, round } from "./lib/stats.ts"

export interface GatewayBenchOptions extends SectionOptions {
  /** Seconds of each measured run (20), and of the warm-up of each target and mode (a quarter of it). */
  readonly seconds: number
  readonly concurrency: number
  /** PostgreSQL to run the second half on (a fresh schema in it); empty to skip that half. */
  readonly databaseUrl: string
  /** Directory for `--cpu-prof` profiles of the gateway process, when profiling. */
  readonly profileDir: string | undefined
}

const USAGE = { promptTokens: 11, completionTokens: 12 }
/** A model's pace: whole answers and first tokens after 250–750 ms, then a chunk every 10 ms. */
const MODEL_PACE: Partial<FakeScript> = {
  text: TEXT,
  chunks: 5,
  delayMs: 10,
  usage: USAGE,
  wholeDelayMs: 250,
  firstChunkDelayMs: 250,
  delaySpreadMs: 500
}
/** The fake answering at once, for capacity. */
const AT_ONCE: Partial<FakeScript> = { text: TEXT, chunks: 5, delayMs: 0, usage: USAGE }
/** The clients start spread over the mean wait of the model, as independent users arrive. */
const RAMP_MS = 500
/** Clients of the side-by-side run with Portkey besides BENCH_GATEWAY_CONCURRENCY: the load issue 20 measured it at. */
const SIDE_BY_SIDE_CLIENTS = 20
/** Ours may add at most this many times Portkey's added p50 and p99. */
const PORTKEY_RATIO_TARGET = 1.0

/** How many times the target a figure is: whole numbers from 10× on. */
const times = (figure: number, target: number) => {
  const value = ratio(figure, target)
  return value >= 10 ? `${Math.round(value)}×` : fmtRatio(value)
}

const minus = (a: Latencies, b: Latencies): Comparison => ({
  p50: a.p50 - b.p50,
  p90: a.p90 - b.p90,
  p99: a.p99 - b.p99,
  max: a.max - b.max
})

/** What Portkey and ours each added over the direct calls of the same load. */
const sideBySideOf = (clients: number, direct: Run, portkey: Run, ours: Run): SideBySide => ({
  clients,
  portkey: minus(portkey.between!.whole, direct.between!.whole),
  ours: minus(ours.between!.whole, direct.between!.whole)
})

const psql = (url: string, statement: string) =>
  execFileSync("psql", [url, "-v", "ON_ERROR_STOP=1", "-qAtc", statement], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  })

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
  const portkey = await startPortkey(join(options.tmp, "portkey.log")).catch(async (error: unknown) => {
    await fake.stop()
    throw error
  })
  log(`Portkey on ${portkey.baseUrl} (pid ${portkey.pid}), ready in ${Math.round(portkey.startupMs)} ms`)

  const measureBackend = async (
    backend: BackendResult["backend"],
    label: string,
    env: Record<string, string>
  ): Promise<BackendResult> => {
    const gateway = await startGateway({
      cwd: options.codeRoot,
      dataDir: join(options.tmp, `data-${backend}`),
      logFile: join(options.tmp, `gateway-${backend}.log`),
      env,
      ...(options.profileDir === undefined
        ? {}
        : { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${join(options.profileDir, backend)}`] })
    })
    const load = requests(fake.url, gateway.baseUrl, portkey.baseUrl, concurrency)
    const loop = (send: Send, runSeconds: number, clients = concurrency) =>
      closedLoop(clients, runSeconds, send, RAMP_MS)
    let stopped = false
    try {
      gateway.sampler.countAsBench(fake.pid)
      gateway.sampler.countAsBench(portkey.pid)
      const serverPid = gateway.serverPid() ?? -1
      const ready = processMemory(serverPid)
      log(`${label}: gateway ready in ${Math.round(gateway.startupMs)} ms; RSS ${mib(ready?.rssKiB ?? Number.NaN)}`)
      const configured = await fetch(`${gateway.baseUrl}/api/v1/admin/llm/provider-conf`, {
        method: "POST",
        headers: { ...PRINCIPAL, "content-type": "application/json" },
        body: JSON.stringify({
          id: "fake",
          type: "openai-compatible",
          model: "m",
          baseUrl: `${fake.url}/v1`,
          isDefault: true
        })
      })
      if (configured.status !== 201) {
        fail("POST /api/v1/admin/llm/provider-conf", configured.status, await configured.text())
      }

      gateway.sampler.setPhase("warm-up")
      log(`${label}: warm-up (${warmUpSeconds} s per target and mode)`)
      const warmUpErrors: Array<string> = []
      await fake.script(AT_ONCE)
      const warmUps = {
        "direct non-streamed": load.direct.whole,
        "gateway non-streamed": load.gateway.whole,
        "direct streamed": load.direct.stream,
        "gateway streamed": load.gateway.stream,
        "gateway conversations": load.gateway.conversation,
        // Last: between two of the gateway's, it could leave its sockets idle for about the server's 5 s keep-alive, and a reused one be reset.
        "Portkey non-streamed": load.portkey.whole
      }
      for (const [name, send] of Object.entries(warmUps)) {
        const warm = await loop(send, warmUpSeconds)
        // Reported, not fatal unless many: a keep-alive socket closed by the fake just as it is reused fails a request.
        if (warm.errors > 0) {
          warmUpErrors.push(
            `${name}: ${warm.errors} of ${warm.errors + warm.completed} failed (${
              warm.errorSamples[0]?.replace(/\s+/g, " ").slice(0, 300)
            })`
          )
          log(`${label}: warm-up ${warmUpErrors.at(-1)}`)
        }
        if (warm.errors > (warm.errors + warm.completed) / 10) {
          throw new Error(`Warm-up failed: ${warm.errorSamples.join(" | ")}`)
        }
      }
      load.forget()
      await fake.timings()

      const runs: Array<Run> = []
      const measure = async (
        name: string,
        target: Run["target"],
        send: Send,
        timed: boolean,
        clients = concurrency
      ) => {
        const phase = `${name} (${target})`
        // The CPU of the gateway the requests go through: Portkey's for its runs.
        const proxyPid = target === "portkey" ? portkey.pid : serverPid
        gateway.sampler.setPhase(phase)
        const before = { gateway: processCpuMs(proxyPid), fake: processCpuMs(fake.pid), self: process.cpuUsage() }
        const result = await loop(send, seconds, clients)
        const self = process.cpuUsage(before.self)
        gateway.sampler.setPhase("idle")
        const between = timed ? await load.between(fake) : (load.forget(), await fake.timings(), null)
        const per = (ms: number) => ms / Math.max(1, result.completed)
        const run: Run = {
          name,
          target,
          clients,
          load: result,
          between,
          cpuPerRequestMs: {
            gateway: per(processCpuMs(proxyPid) - before.gateway),
            fake: per(processCpuMs(fake.pid) - before.fake),
            loadGenerator: per((self.user + self.system) / 1000)
          },
          cpu: gateway.sampler.cpuByPhase.get(phase) ?? null,
          loadAverage1m: round(loadavg()[0]!, 2)
        }
        runs.push(run)
        const overhead = between === null ?
          "" :
          `; between client and fake p50 ${round(between.whole.p50, 2)} ms, p99 ${round(between.whole.p99, 2)} ms` +
          (between.first === null
            ? ""
            : `, first token p50 ${round(between.first.p50, 2)} ms, p99 ${round(between.first.p99, 2)} ms`)
        log(
          `${label}, ${phase}: ${result.completed} requests, ${Math.round(result.perSecond)}/s, p50 ${
            round(result.total.p50)
          } ms${overhead}` +
            `${result.errors > 0 ? `, ${result.errors} errors (${result.errorSamples[0]})` : ""}`
        )
        if (result.errors > result.completed / 100) {
          throw new Error(
            `${phase}: ${result.errors} of ${result.errors + result.completed} requests failed: ${
              result.errorSamples.join(" | ")
            }`
          )
        }
        return run
      }
      const quiet = async (before: string) => {
        quietWaits.push(await options.waitForQuiet(`${before} (${label})`, gateway.rootPid))
      }

      await fake.script(MODEL_PACE)
      await quiet("whole answers at a model's pace")
      const directWhole = await measure("whole answers", "direct", load.direct.whole, true)
      const gatewayWhole = await measure("whole answers", "gateway", load.gateway.whole, true)
      const portkeyWhole = await measure("whole answers", "portkey", load.portkey.whole, true)
      const sideBySide: Array<SideBySide> = [sideBySideOf(concurrency, directWhole, portkeyWhole, gatewayWhole)]
      if (SIDE_BY_SIDE_CLIENTS !== concurrency) {
        const name = `side by side, ${SIDE_BY_SIDE_CLIENTS} clients`
        await quiet(`whole answers at ${SIDE_BY_SIDE_CLIENTS} clients`)
        const direct = await measure(name, "direct", load.direct.whole, true, SIDE_BY_SIDE_CLIENTS)
        const throughPortkey = await measure(name, "portkey", load.portkey.whole, true, SIDE_BY_SIDE_CLIENTS)
        const ours = await measure(name, "gateway", load.gateway.whole, true, SIDE_BY_SIDE_CLIENTS)
        sideBySide.unshift(sideBySideOf(SIDE_BY_SIDE_CLIENTS, direct, throughPortkey, ours))
      }
      await quiet("streamed answers at a model's pace")
      const directStream = await measure("streamed answers", "direct", load.direct.stream, true)
      const gatewayStream = await measure("streamed answers", "gateway", load.gateway.stream, true)
      await quiet("follow-up turns")
      const followUps = await measure(
        `follow-up turns (conversations of ${TURNS})`,
        "gateway",
        load.gateway.conversation,
        true
      )
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
        },
        sideBySide
      }
    } finally {
      load.destroy()
      if (!stopped) await gateway.stop()
    }
  }

  const skipped = (backend: BackendResult["backend"], label: string, reason: string): BackendResult => {
    log(`${label}: skipped (${reason})`)
    return {
      backend,
      label,
      skipped: reason,
      startupMs: Number.NaN,
      rssAtReadyKiB: Number.NaN,
      serverHwmKiB: Number.NaN,
      peakServerRssKiB: Number.NaN,
      peakTreeRssKiB: Number.NaN,
      warmUpErrors: [],
      runs: [],
      added: null,
      sideBySide: []
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
        backends.push(
          skipped(
            "postgres",
            "PostgreSQL",
            `cannot create a schema in ${options.databaseUrl}: ${
              error instanceof Error ? error.message.split("\n")[0] : String(error)
            }`
          )
        )
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
    await portkey.stop()
    await fake.stop()
  }

  const targets = backends.flatMap((b) => {
    if (b.added === null) return []
    const { whole, firstToken } = b.added
    const againstPortkey = b.sideBySide.flatMap((side) =>
      (["p50", "p99"] as const).map((p) => {
        const value = ratio(side.ours[p], side.portkey[p])
        return {
          name: `${b.label}: added ${p} ≤ ${
            PORTKEY_RATIO_TARGET.toFixed(1)
          }× Portkey's (whole answers, ${side.clients} clients)`,
          figure: `${fmtRatio(value)}: ours +${round(side.ours[p], 2)} ms, Portkey +${round(side.portkey[p], 2)} ms`,
          met: value <= PORTKEY_RATIO_TARGET
        }
      })
    )
    return [
      ...againstPortkey,
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
        figure: `+${round(firstToken.p50, 2)} ms (${times(firstToken.p50, 5)} the target; p99 +${
          round(firstToken.p99, 2)
        } ms)`,
        met: firstToken.p50 <= 5
      }
    ]
  })

  const results: GatewayBenchResults = {
    machine: { ...options.machine, loadAverageAtEnd: loadavg().map((l) => round(l, 2)) },
    settings: {
      seconds,
      warmUpSeconds,
      concurrency,
      rampMs: RAMP_MS,
      sideBySideClients: SIDE_BY_SIDE_CLIENTS,
      modelPace: MODEL_PACE,
      turnsPerConversation: TURNS,
      profiled: options.profileDir !== undefined
    },
    durationSeconds: Math.round((performance.now() - started) / 1000),
    backends,
    quietWaits,
    targets
  }
  const { jsonPath, mdPath } = writeSectionReport(options.outDir, "gateway", results, renderGatewayMarkdown)
  log(`wrote ${mdPath} and ${jsonPath}`)
  return results
}
