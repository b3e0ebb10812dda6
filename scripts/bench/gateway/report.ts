/**
 * The gateway section's results: their shape (also the JSON written next to the report), the
 * Markdown report and the summary printed at the end of the section.
 */
import type { FakeScript } from "../../../test/support/fake-llm.ts"
import type { PhaseCpu } from "../lib/proc.ts"
import type { QuietWait } from "../lib/quiet.ts"
import { cores, table, type Target, targetsTable } from "../lib/report.ts"
import { fmtRatio, mib, ratio, round } from "../lib/stats.ts"
import type { Latencies, LoadResult } from "./load.ts"
import { TURNS } from "./requests.ts"

/** Published overheads of a peer, for context (not measured here). */
const PEERS = [
  { name: "LiteLLM, median added latency (its documentation)", p50: 3.25 },
  { name: "LiteLLM, p99 added latency at 100 req/s (TensorZero's benchmark)", p99: 5.87 }
] as const

export interface Run {
  readonly name: string
  /** Through ours, through Portkey, or straight to the fake. */
  readonly target: "direct" | "gateway" | "portkey"
  readonly clients: number
  readonly load: LoadResult
  /** Client time minus the fake's own time, per request (whole answers; first tokens of streams): null for the capacity runs. */
  readonly between: {
    readonly whole: Latencies
    readonly first: Latencies | null
    readonly matched: number
    readonly unmatched: number
  } | null
  /** CPU time per completed request: the gateway's server process (Portkey's for its runs), the fake, and this process (the load generator). */
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

/** What Portkey and ours each added over the direct calls of the same load, whole answers. */
export interface SideBySide {
  readonly clients: number
  readonly portkey: Comparison
  readonly ours: Comparison
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
  /** Whole answers, at SIDE_BY_SIDE_CLIENTS and at the section's concurrency. */
  readonly sideBySide: ReadonlyArray<SideBySide>
}

export interface GatewayBenchResults {
  readonly machine: Readonly<Record<string, unknown>>
  readonly settings: {
    readonly seconds: number
    readonly warmUpSeconds: number
    readonly concurrency: number
    readonly rampMs: number
    readonly sideBySideClients: number
    readonly modelPace: Partial<FakeScript>
    readonly turnsPerConversation: number
    readonly profiled: boolean
  }
  readonly durationSeconds: number
  readonly backends: ReadonlyArray<BackendResult>
  readonly quietWaits: ReadonlyArray<QuietWait>
  readonly targets: ReadonlyArray<Target>
}

const quad = (
  l: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number },
  sign = ""
) => {
  // A difference below zero carries its own sign ("-10.5", not "+-10.5").
  const signed = (value: number) => `${value < 0 ? "" : sign}${round(value, 2)}`
  return `${signed(l.p50)} / ${signed(l.p90)} / ${signed(l.p99)} / ${signed(l.max)} ms`
}

const runOf = (b: BackendResult, name: string, target: Run["target"], clients?: number) =>
  b.runs.find((r) => r.name.startsWith(name) && r.target === target && (clients === undefined || r.clients === clients))

/** Portkey next to ours, at each load: time between client and fake, what each added, and ours over Portkey's. */
const sideBySideTable = (b: BackendResult) =>
  table(
    [
      `${b.label}, whole answers: p50 / p90 / p99 / max`,
      "Direct to the fake",
      "Through Portkey",
      "Through ours",
      "Added by Portkey",
      "Added by ours",
      "Ours / Portkey, p50; p99"
    ],
    b.sideBySide.map((side) => {
      const name = b.runs.find((r) => r.clients === side.clients && r.target === "portkey")?.name ?? ""
      const between = (target: Run["target"]) => {
        const run = runOf(b, name, target, side.clients)
        return run?.between ? quad(run.between.whole) : "n/a"
      }
      return [
        `${side.clients} clients`,
        between("direct"),
        between("portkey"),
        between("gateway"),
        quad(side.portkey, "+"),
        quad(side.ours, "+"),
        `${fmtRatio(ratio(side.ours.p50, side.portkey.p50))}; ${fmtRatio(ratio(side.ours.p99, side.portkey.p99))}`
      ]
    })
  )

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
  return table([
    `${b.label}, ${concurrency} clients: p50 / p90 / p99 / max`,
    "Direct to the fake",
    "Through the gateway",
    "Added by the gateway"
  ], [
    [
      `Whole answers: time between client and fake`,
      quad(direct.between!.whole),
      quad(whole.between!.whole),
      quad(b.added.whole, "+")
    ],
    [
      `Streamed answers: time between client and fake to the first token`,
      quad(directStream.between!.first!),
      quad(stream.between!.first!),
      quad(b.added.firstToken, "+")
    ],
    [
      `Follow-up turns (1–${TURNS - 1} turns of history): time between client and fake; direct: whole answers above`,
      quad(direct.between!.whole),
      quad(followUps.between!.whole),
      quad(b.added.followUp, "+")
    ],
    [
      `Whole answers as the client saw them (the fake's 250–750 ms included)`,
      quad(direct.load.total),
      quad(whole.load.total),
      ""
    ],
    [
      `Whole answers: requests/s; gateway CPU per request`,
      `${direct.load.perSecond.toFixed(0)}/s`,
      `${whole.load.perSecond.toFixed(0)}/s; ${round(whole.cpuPerRequestMs.gateway, 2)} ms`,
      ""
    ],
    [
      `Streamed answers: requests/s; gateway CPU per request`,
      `${directStream.load.perSecond.toFixed(0)}/s`,
      `${stream.load.perSecond.toFixed(0)}/s; ${round(stream.cpuPerRequestMs.gateway, 2)} ms`,
      ""
    ],
    [
      `Capacity (the fake answering at once): requests/s; gateway CPU per request; p50 / p99`,
      `${directCapacity.load.perSecond.toFixed(0)}/s; ${round(directCapacity.load.total.p50, 2)} / ${
        round(directCapacity.load.total.p99, 2)
      } ms`,
      `${capacity.load.perSecond.toFixed(0)}/s; ${round(capacity.cpuPerRequestMs.gateway, 2)} ms; ${
        round(capacity.load.total.p50, 2)
      } / ${round(capacity.load.total.p99, 2)} ms`,
      fmtRatio(ratio(capacity.load.perSecond, directCapacity.load.perSecond))
    ]
  ])
}

export const renderGatewaySummary = (r: GatewayBenchResults) =>
  [
    `Gateway overhead benchmark (${r.settings.concurrency} clients, ${r.settings.seconds} s per run)`,
    ...r.backends.flatMap((b) =>
      b.added === null
        ? ["", gatewaySummaryTable(b, r.settings.concurrency)]
        : ["", gatewaySummaryTable(b, r.settings.concurrency), "", sideBySideTable(b)]
    ),
    "",
    targetsTable(r.targets)
  ].join("\n")

export const renderGatewayMarkdown = (r: GatewayBenchResults, jsonName: string) => {
  const m = r.machine
  const c = r.settings.concurrency
  const lines: Array<string> = []
  const srcChanges = Array.isArray(m.srcChanges) ? (m.srcChanges as Array<string>) : []
  lines.push(`# Gateway overhead benchmark, ${String(m.date ?? new Date().toISOString()).slice(0, 10)}`, "")
  lines.push(
    `Generated by \`npm run bench -- gateway\` (scripts/bench/gateway.ts); raw figures in [${jsonName}](${jsonName}). Section run: ${r.durationSeconds} s.`,
    ""
  )
  lines.push(
    table(["Fact", "Value"], [
      ["Cores (nproc)", String(m.nproc)],
      ["CPU", String(m.cpuModel)],
      ["Memory", `${String(m.totalMemoryMiB)} MiB`],
      ["Node", String(m.node)],
      ["Code measured", String(m.measuredRef ?? `working tree at ${String(m.gitHead)}`)],
      [
        "Uncommitted changes under src/ at the start",
        srcChanges.length === 0 ? "none" : `${srcChanges.length}: ${srcChanges.map((l) => l.trim()).join(", ")}`
      ],
      ["Load average (1, 5, 15 min), start → end", `${String(m.loadAverageAtStart)} → ${String(m.loadAverageAtEnd)}`],
      [
        "Quiet waits",
        r.quietWaits.map((w) =>
          `${w.before}: ${Math.round(w.waitedMs / 1000)} s, other processes ${w.otherCores.toFixed(2)} cores`
        ).join("; ")
      ],
      ["Profiled (--cpu-prof, slower)", r.settings.profiled ? "yes" : "no"]
    ]),
    ""
  )
  lines.push("## Method", "")
  lines.push(
    `Four processes on the same ${
      String(m.nproc)
    } cores: the load generator (the benchmark itself: node:http keep-alive agents of ${c} sockets), ` +
      `the fake LLM provider of the tests (test/support/fake-llm.ts, OpenAI Chat Completions, in its own process), the real gateway ` +
      `(\`node scripts/start.mjs gateway\`, fresh DATA_DIR, its request log on) with one \`openai-compatible\` configuration pointing at the fake, ` +
      `and Portkey's gateway for the side-by-side runs (idle otherwise). ` +
      `Each run lasts ${r.settings.seconds} s after a warm-up of ${r.settings.warmUpSeconds} s per target and mode; the direct run and the gateway run of a comparison follow each other. ` +
      `"Direct" is \`POST /v1/chat/completions\` on the fake with the body the gateway sends it; "through the gateway" is \`POST /api/v1/requests\` ` +
      `(or \`/requests/stream\`) with \`{"inputs":[{"role":"user","content":[{"type":"text","value":"Hi q#…"}]}]}\` and no conversationId, so each request ` +
      `also opens a conversation and records the request and its answer, which it returns (what a client of the API gets). Every answer is checked: the whole text, ` +
      `201 and COMPLETED, or the SSE \`done\` event.`,
    ""
  )
  lines.push(
    `- ${c} clients, each sending its next request when its last is answered, starting spread over the first ${r.settings.rampMs} ms. The fake answers as a model does: ` +
      `a whole answer after ${r.settings.modelPace.wholeDelayMs}–${
        (r.settings.modelPace.wholeDelayMs ?? 0) + (r.settings.modelPace.delaySpreadMs ?? 0)
      } ms drawn per request, ` +
      `a stream's first token after the same wait and then ${r.settings.modelPace.chunks} chunks ${r.settings.modelPace.delayMs} ms apart; ${c} clients then send about 100 requests a second, ` +
      `the rate of TensorZero's published LiteLLM comparison.`,
    `- Per request: what the client saw (to the last byte; to the first token of a stream) minus the fake's own time on that request (from when it started on it to ` +
      `its last byte; to its first text), matched by a tag in the question. Directly, that leaves the loopback and the two processes' HTTP handling; through the gateway, ` +
      `the gateway too. "Added" is the gateway's figure minus the direct one, percentile by percentile. (Subtracting the end-to-end percentiles instead would ` +
      `bury a millisecond under the fake's random 500 ms spread.)`,
    `- Follow-up turns: each client asks ${r.settings.turnsPerConversation} questions per conversation; the ${
      r.settings.turnsPerConversation - 1
    } follow-ups carry \`?conversationId=\` ` +
      `and are sent upstream with the history (the openings are left out of the figures).`,
    `- Side by side: Portkey's open-source gateway (\`@portkey-ai/gateway\`, \`node build/start-server.js --headless\`, one process for the section) in front of the same fake, ` +
      `\`POST /v1/chat/completions\` with the direct body and \`x-portkey-provider: openai\`, \`x-portkey-custom-host: <fake>/v1\`; its answer checked as the fake's. ` +
      `Whole answers at ${c} clients (after the two runs above) and at ${r.settings.sideBySideClients} clients (direct, Portkey, ours, one after another), its added ` +
      `latency taken as ours is. Portkey records nothing and knows no tenant; ours opens a conversation and records the request and its answer. Streams are left out: ` +
      `Portkey 1.15.2 on @hono/node-server 1.19 answers every stream 500 (it appends a header to the upstream response's immutable headers), and it waits 25 ms before a stream's first chunk by design.`,
    `- Capacity: the fake answering at once, ${c} clients as fast as they are answered. At saturation the latency is queueing: about ${c} × the gateway's time per request.`,
    `- CPU per request: user+system time of the process over the run (10 ms ticks) divided by the requests completed. Cores "other" are every process outside the ` +
      `gateway's tree and the benchmark (load generator and fake): on PostgreSQL they include the database server's work for the gateway.`,
    ""
  )
  lines.push("## Targets", "")
  lines.push(targetsTable(r.targets), "")
  lines.push(
    `Published peers, for context (not measured here): ${
      PEERS.map((p) => `${p.name}: ${"p50" in p ? p.p50 : p.p99} ms`).join("; ")
    }.`,
    ""
  )
  for (const b of r.backends) {
    lines.push(`## ${b.label}`, "")
    if (b.added === null) {
      lines.push(`Not measured: ${b.skipped ?? "?"}.`, "")
      continue
    }
    lines.push(gatewaySummaryTable(b, c), "")
    lines.push(sideBySideTable(b), "")
    lines.push(
      table(
        [
          "Run",
          "Target",
          "Requests",
          "Per second",
          "Errors",
          "p50",
          "p99",
          "Between client and fake p50 / p99",
          "First token: between, p50 / p99",
          "CPU/request: gateway (Portkey's for its runs), fake, load generator",
          "Cores: gateway, benchmark, other",
          "Load 1 min"
        ],
        b.runs.map((run) => [
          run.name,
          run.target,
          String(run.load.completed),
          run.load.perSecond.toFixed(0),
          String(run.load.errors),
          `${round(run.load.total.p50, 2)} ms`,
          `${round(run.load.total.p99, 2)} ms`,
          run.between === null
            ? ""
            : `${round(run.between.whole.p50, 2)} / ${
              round(run.between.whole.p99, 2)
            } ms (${run.between.matched} matched${run.between.unmatched > 0 ? `, ${run.between.unmatched} not` : ""})`,
          run.between?.first == null
            ? ""
            : `${round(run.between.first.p50, 2)} / ${round(run.between.first.p99, 2)} ms`,
          `${round(run.cpuPerRequestMs.gateway, 2)}, ${round(run.cpuPerRequestMs.fake, 2)}, ${
            round(run.cpuPerRequestMs.loadGenerator, 2)
          } ms`,
          run.cpu === null
            ? ""
            : `${cores(run.cpu.brokerCores)}, ${cores(run.cpu.benchCores)}, ${cores(run.cpu.otherCores)}`,
          String(run.loadAverage1m)
        ])
      ),
      ""
    )
    lines.push(
      `Gateway start-up ${Math.round(b.startupMs)} ms; RSS of the server process at ready ${
        mib(b.rssAtReadyKiB)
      }, peak ${mib(Math.max(b.serverHwmKiB, b.peakServerRssKiB))} (VmHWM), ` +
        `whole process tree (npx, tsx, server) peak ${mib(b.peakTreeRssKiB)}.` +
        (b.warmUpErrors.length === 0
          ? " No request failed in the warm-up."
          : ` Failed in the warm-up: ${b.warmUpErrors.join("; ")}.`),
      ""
    )
  }
  return lines.join("\n") + "\n"
}
