/**
 * The viewer section's results: their shape (also the JSON written next to the report), the
 * Markdown report and the summary printed at the end of the section.
 */
import type { Latencies, LoadResult } from "../gateway/load.ts"
import type { QuietWait } from "../lib/quiet.ts"
import { table, type Target, targetsTable } from "../lib/report.ts"
import type { MachineFacts } from "../lib/section.ts"
import { round } from "../lib/stats.ts"
import type { Kind } from "./requests.ts"

export interface Round {
  readonly kind: Kind
  readonly via: "broker" | "viewer"
  readonly round: number
  readonly load: LoadResult
  /** CPU time per completed request of the broker's and the viewer's server processes. */
  readonly cpuPerRequestMs: { readonly broker: number; readonly viewer: number }
  readonly loadAverage1m: number
}

export interface Spread {
  readonly choice: "round-robin" | "weighted"
  readonly documents: number
  readonly targets: ReadonlyArray<{ readonly url: string; readonly documents: number; readonly weather: number }>
}

export interface Added {
  readonly viewer: Latencies
  readonly broker: Latencies
  /** Viewer minus broker. */
  readonly p50: number
  readonly p99: number
}

export interface ViewerBenchResults {
  readonly machine: MachineFacts & { readonly loadAverageAtEnd: ReadonlyArray<number> }
  readonly settings: {
    readonly seconds: number
    readonly concurrency: number
    readonly rounds: number
    readonly width: number
    readonly pages: number
    readonly spreadDocuments: number
  }
  readonly durationSeconds: number
  readonly added: { readonly image: Added; readonly text: Added }
  readonly runs: ReadonlyArray<Round>
  readonly spreads: ReadonlyArray<Spread>
  readonly quietWaits: ReadonlyArray<QuietWait>
  readonly profiled: boolean
}

const NAMES = { image: "warm page image", text: "pageContent" } as const
const msOf = (value: number) => `${round(value, 2)} ms`
const signed = (value: number) => `${value >= 0 ? "+" : "−"}${round(Math.abs(value), 2)} ms`

export const viewerTargets = (r: ViewerBenchResults): ReadonlyArray<Target> =>
  (["image", "text"] as const).map((kind) => ({
    name: `added p50 ≤ 1 ms: ${NAMES[kind]} (${r.settings.concurrency} clients)`,
    figure: `${signed(r.added[kind].p50)} (p99 ${signed(r.added[kind].p99)})`,
    met: r.added[kind].p50 <= 1
  }))

const share = (s: Spread) =>
  s.targets.map((t) => `${t.documents} (${Math.round((100 * t.documents) / s.documents)} %)`).join(" / ")

export const renderViewerMarkdown = (r: ViewerBenchResults, jsonName: string) => {
  const cpu = (kind: Kind, via: "broker" | "viewer", of: "broker" | "viewer") => {
    const rounds = r.runs.filter((run) => run.kind === kind && run.via === via)
    return msOf(rounds.reduce((sum, run) => sum + run.cpuPerRequestMs[of], 0) / Math.max(1, rounds.length))
  }
  const m = r.machine
  return `# Viewer benchmark (${m.date.slice(0, 10)})

What the viewer adds to a page request over calling the broker directly, and how it spreads
documents over two brokers; method in \`scripts/bench/viewer.ts\`, every figure in
[${jsonName}](${jsonName}).

Machine: ${m.nproc} cores (${m.cpuModel}), ${m.totalMemoryMiB} MiB, Node ${m.node}; code at ${
    m.measuredRef ?? `${m.gitHead} plus the working tree (${m.srcChanges.length} files changed under src/)`
  }. Load average ${m.loadAverageAtStart.join(" ")} at the start, ${m.loadAverageAtEnd.join(" ")} at the end.${
    r.profiled ? " **The viewer ran with --cpu-prof: its figures are slower than without.**" : ""
  }

## Targets

${targetsTable(viewerTargets(r))}

## Added latency (${r.settings.concurrency} clients, ${r.settings.rounds} × ${r.settings.seconds} s per target, pooled)

${
    table(
      [
        "Request",
        "Broker p50",
        "Viewer p50",
        "Added p50",
        "Broker p99",
        "Viewer p99",
        "Added p99",
        "Requests (broker / viewer)"
      ],
      (["image", "text"] as const).map((kind) => {
        const a = r.added[kind]
        return [
          `${NAMES[kind]} (${kind === "image" ? `${r.settings.width} px, ` : ""}${r.settings.pages} pages)`,
          msOf(a.broker.p50),
          msOf(a.viewer.p50),
          signed(a.p50),
          msOf(a.broker.p99),
          msOf(a.viewer.p99),
          signed(a.p99),
          `${a.broker.n} / ${a.viewer.n}`
        ]
      })
    )
  }

CPU time per request (mean of the rounds):

${
    table(
      ["Request", "Broker, direct", "Broker, via the viewer", "Viewer"],
      (["image", "text"] as const).map((kind) => [
        NAMES[kind],
        cpu(kind, "broker", "broker"),
        cpu(kind, "viewer", "broker"),
        cpu(kind, "viewer", "viewer")
      ])
    )
  }

Each run:

${
    table(
      ["Request", "Via", "Round", "Requests/s", "p50", "p90", "p99", "Load average (1 min)"],
      r.runs.map((run) => [
        NAMES[run.kind],
        run.via,
        String(run.round),
        String(Math.round(run.load.perSecond)),
        msOf(run.load.total.p50),
        msOf(run.load.total.p90),
        msOf(run.load.total.p99),
        String(run.loadAverage1m)
      ])
    )
  }

## Spread over two targets (${
    r.spreads[0]?.documents ?? 0
  } documents opened by ${r.settings.concurrency} clients at once)

Two brokers on one PostgreSQL schema and one blob directory; share of documents per target (from
the viewer's table viewer_documents), and each broker's /weather score when they were opened.

${
    table(
      ["VIEWER_TARGET_CHOICE", "Documents per target (A / B)", "Weather A / B"],
      r.spreads.map((s) => [s.choice, share(s), s.targets.map((t) => String(round(t.weather, 2))).join(" / ")])
    )
  }

## Quiet waits

${
    table(
      ["Before", "Waited", "Other processes at the end"],
      r.quietWaits.map((q) => [q.before, `${round(q.waitedMs / 1000)} s`, `${q.otherCores.toFixed(2)} cores`])
    )
  }
`
}

export const renderViewerSummary = (r: ViewerBenchResults) =>
  [
    "Viewer section",
    ...viewerTargets(r).map((t) => `  ${t.met ? "met   " : "MISSED"} ${t.name}: ${t.figure}`),
    ...(["image", "text"] as const).map((kind) =>
      `  ${NAMES[kind]}: broker p50 ${msOf(r.added[kind].broker.p50)} p99 ${msOf(r.added[kind].broker.p99)}; ` +
      `viewer p50 ${msOf(r.added[kind].viewer.p50)} p99 ${msOf(r.added[kind].viewer.p99)}`
    ),
    ...r.spreads.map((s) => `  spread, ${s.choice}: ${share(s)} of ${s.documents} documents`)
  ].join("\n")
