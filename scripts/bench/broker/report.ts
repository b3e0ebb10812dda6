/**
 * The broker section's results: their shape (also the JSON written next to the report), the
 * Markdown report and the summary printed at the end of the section.
 */
import type { MemorySample, PhaseCpu } from "../lib/proc.ts"
import type { QuietWait } from "../lib/quiet.ts"
import { cores, otherCoresOverall, phaseTable, spread, table, type Target, targetsTable } from "../lib/report.ts"
import type { MachineFacts } from "../lib/section.ts"
import { fmtRatio, median, mib, ms, ratio, type Summary } from "../lib/stats.ts"
import { type AfterQuietResults, renderAfterQuietMarkdown } from "./after-quiet.ts"
import { renderSoakMarkdown, type SoakResults } from "./soak.ts"

export interface FreshUpload {
  readonly label: string
  readonly documentId: string
  readonly uploadMs: number
  readonly layoutAfterUploadMs: number
  readonly firstImageAfterUploadMs: number
  readonly firstImageBytes: number
  readonly loadAverage1m: number
  readonly otherCores: number
}

export interface PageImageResult {
  readonly key: string
  readonly label: string
  /** First GET of IM_1240_0 after the upload (possibly answered by the upload's warm-up render). */
  readonly firstRequestMs: number
  /** The two throwaway renders that open the document in both workers. */
  readonly openRendersMs: ReadonlyArray<number>
  readonly cached: Summary
  readonly fresh: Summary
  readonly freshWithFilter: Summary
  readonly mutool: Summary
  readonly pdftoppm: Summary
  readonly mutoolPngWidth: number | null
  /** CPU time per run (user+system): the broker's server process for a fresh render, the whole tool process for the others. */
  readonly cpu: { readonly fresh: Summary; readonly mutool: Summary; readonly pdftoppm: Summary }
  readonly raw: Readonly<Record<string, ReadonlyArray<number>>>
}

export interface TextPositionResult {
  readonly label: string
  /** Text runs in the broker's answer. */
  readonly runs: number
  readonly coldMs: number
  readonly repeatMs: number
  readonly pdftotext: Summary
}

export interface BrokerMemory {
  readonly label: string
  readonly startupMs: number
  readonly rssAtReadyKiB: number
  readonly serverHwmKiB: number
  readonly peakServerRssKiB: number
  readonly peakTreeRssKiB: number
  readonly maxThreads: number
  readonly peakByPhase: Readonly<Record<string, { readonly serverRssKiB: number; readonly treeRssKiB: number }>>
  readonly cpuByPhase: Readonly<Record<string, PhaseCpu>>
  /** Processes of the broker's tree with their RSS at the tree's peak, and at the end of the run. */
  readonly peakTree: ReadonlyArray<{ readonly command: string; readonly rssKiB: number }>
  readonly startupPeakTree: ReadonlyArray<{ readonly command: string; readonly rssKiB: number }>
  readonly lastTree: ReadonlyArray<{ readonly command: string; readonly rssKiB: number }>
}

export interface BrokerBenchResults {
  readonly machine: MachineFacts & { readonly loadAverageAtEnd: ReadonlyArray<number> }
  readonly settings: {
    readonly runs: number
    readonly concurrency: number
    readonly freshRepeats: number
    readonly width: number
    readonly gnuTime: boolean
    readonly quietBudgetSeconds: number
    readonly quietCores: number
  }
  readonly durationSeconds: number
  readonly freshUploads: ReadonlyArray<FreshUpload>
  readonly dedupUpload: {
    readonly uploadMs: number
    readonly layoutAfterUploadMs: number
    readonly firstImageAfterUploadMs: number
  }
  readonly pageImages: ReadonlyArray<PageImageResult>
  readonly textPositions: ReadonlyArray<TextPositionResult>
  readonly throughput: {
    readonly pages: number
    readonly concurrency: number
    readonly brokerWallMs: number
    readonly brokerPagesPerSecond: number
    readonly brokerCpuMs: number
    /** CPU of the server's main thread alone (HTTP, database, caches); the rest is worker and helper threads. */
    readonly brokerMainThreadCpuMs: number
    readonly brokerLatency: Summary
    readonly mutoolWallMs: number
    readonly mutoolPagesPerSecond: number
    /** Mean over the two mutool pairs (before and after the broker). */
    readonly mutoolCpuMs: number | null
    /** Wall time of the pair run before and of the pair run after the broker; mutoolWallMs is their mean. */
    readonly mutoolRunsMs: ReadonlyArray<number>
    readonly mutoolProcessMs: ReadonlyArray<number>
    /** Cores kept busy by other processes on the machine while the broker, then each mutool pair, ran. */
    readonly otherCoresDuringBroker: number
    readonly otherCoresDuringMutool: ReadonlyArray<number>
  }
  readonly brokers: ReadonlyArray<BrokerMemory>
  readonly targets: ReadonlyArray<Target>
  /** Waits for the machine's other work to calm down before each measured phase. */
  readonly quietWaits: ReadonlyArray<QuietWait>
  readonly memoryTimeline: ReadonlyArray<MemorySample>
  /** The memory soak (broker/soak.ts); null when BENCH_SOAK=0. */
  readonly soak: SoakResults | null
  /** The first requests after a quiet spell (broker/after-quiet.ts). */
  readonly afterQuiet: AfterQuietResults
}

/** The figures table: the same in the report and on the console. */
const summaryTable = (r: BrokerBenchResults) => {
  const rows: Array<Array<string>> = []
  for (const p of r.pageImages) {
    rows.push([
      `${p.label}, 1240 px, fresh render`,
      ms(p.fresh.median),
      ms(p.mutool.median),
      ms(p.pdftoppm.median),
      fmtRatio(ratio(p.fresh.median, p.mutool.median)),
      fmtRatio(ratio(p.fresh.median, p.pdftoppm.median))
    ])
    rows.push([
      `${p.label}, 1240 px, CPU time of a fresh render`,
      ms(p.cpu.fresh.median),
      ms(p.cpu.mutool.median),
      ms(p.cpu.pdftoppm.median),
      fmtRatio(ratio(p.cpu.fresh.median, p.cpu.mutool.median)),
      fmtRatio(ratio(p.cpu.fresh.median, p.cpu.pdftoppm.median))
    ])
    rows.push([
      `${p.label}, 1240 px, from cache`,
      ms(p.cached.median),
      ms(p.mutool.median),
      ms(p.pdftoppm.median),
      fmtRatio(ratio(p.cached.median, p.mutool.median)),
      fmtRatio(ratio(p.cached.median, p.pdftoppm.median))
    ])
  }
  const cold = r.textPositions.map((t) => t.coldMs)
  const pdftotext = r.textPositions.map((t) => t.pdftotext.median)
  rows.push([
    `Text positions, cold, median of ${r.textPositions.length} pages (vs pdftotext -bbox)`,
    ms(median(cold)),
    "",
    ms(median(pdftotext)),
    "",
    fmtRatio(ratio(median(cold), median(pdftotext)))
  ])
  const fu = r.freshUploads
  rows.push([
    `400p upload request (median of ${fu.length} fresh)`,
    ms(median(fu.map((f) => f.uploadMs))),
    "",
    "",
    "",
    ""
  ])
  rows.push([
    `400p layout after upload response (median of ${fu.length})`,
    ms(median(fu.map((f) => f.layoutAfterUploadMs))),
    "",
    "",
    "",
    ""
  ])
  rows.push([
    `400p first page image after upload response (median of ${fu.length})`,
    ms(median(fu.map((f) => f.firstImageAfterUploadMs))),
    "",
    "",
    "",
    ""
  ])
  const t = r.throughput
  rows.push([
    `400p all pages at 1240 px: pages/s (broker concurrency ${t.concurrency}; mutool 2 processes)`,
    t.brokerPagesPerSecond.toFixed(2),
    t.mutoolPagesPerSecond.toFixed(2),
    "",
    fmtRatio(ratio(t.brokerPagesPerSecond, t.mutoolPagesPerSecond)),
    ""
  ])
  if (t.mutoolCpuMs !== null) {
    rows.push([
      "400p CPU time per page (user+system; independent of other load)",
      ms(t.brokerCpuMs / t.pages),
      ms(t.mutoolCpuMs / t.pages),
      "",
      fmtRatio(ratio(t.brokerCpuMs, t.mutoolCpuMs)),
      ""
    ])
  }
  const main = r.brokers[0]
  if (main) {
    rows.push([
      "Peak RSS, broker server process (VmHWM)",
      mib(Math.max(main.serverHwmKiB, main.peakServerRssKiB)),
      "",
      "",
      "",
      ""
    ])
  }
  return table(["Measure", "Broker", "mutool", "pdftoppm / pdftotext", "broker/mutool", "broker/poppler"], rows)
}

const noiseNote = (r: BrokerBenchResults) => {
  const other = otherCoresOverall(r)
  const waited = r.quietWaits.reduce((sum, w) => sum + w.waitedMs, 0)
  const loud = r.quietWaits.filter((w) => w.otherCores >= r.settings.quietCores)
  return `Other processes on the machine kept ${
    cores(other)
  } busy on average during the run (of ${r.machine.nproc}); see the per-phase figures. ` +
    `Before each measured section the run waited for them to drop below ${r.settings.quietCores} cores (${
      Math.round(waited / 1000)
    } s waited in all` +
    (loud.length
      ? `; budget spent, so these started with the machine busy: ${
        loud.map((w) => `${w.before} (${w.otherCores.toFixed(2)} cores)`).join(", ")
      })`
      : "; every section started on a quiet machine)") +
    "."
}

export const renderBrokerSummary = (r: BrokerBenchResults) =>
  [
    `Broker benchmark ${r.machine.date} (${r.machine.nproc} cores, node ${r.machine.node}; code: ${
      r.machine.measuredRef ??
        `working tree at ${r.machine.gitHead}${
          r.machine.srcChanges.length ? ` + ${r.machine.srcChanges.length} uncommitted src/ change(s)` : ""
        }`
    })`,
    "",
    summaryTable(r),
    "",
    targetsTable(r.targets),
    "",
    noiseNote(r)
  ].join("\n")

export const renderBrokerMarkdown = (r: BrokerBenchResults, jsonName: string) => {
  const m = r.machine
  const t = r.throughput
  const lines: Array<string> = []
  lines.push(`# Broker benchmark, ${m.date.slice(0, 10)}`)
  lines.push("")
  lines.push(
    `Generated by \`npm run bench -- broker\` (scripts/bench/broker.ts) at ${m.date}; raw figures in [${jsonName}](${jsonName}). Whole run: ${r.durationSeconds} s.`
  )
  lines.push("")
  lines.push("## Machine")
  lines.push("")
  lines.push(table(["Fact", "Value"], [
    ["Cores (nproc)", String(m.nproc)],
    ["CPU", m.cpuModel],
    ["Memory", `${m.totalMemoryMiB} MiB`],
    ["Node", m.node],
    ["mutool", m.mutool],
    ["pdftoppm", m.pdftoppm],
    ["pdftotext", m.pdftotext],
    m.measuredRef
      ? [
        "Code measured",
        `commit ${m.measuredRef} (checkout at ${m.gitHead}${
          m.srcChanges.length ? `, whose ${m.srcChanges.length} uncommitted change(s) under src/ were not measured` : ""
        })`
      ]
      : [
        "Code measured",
        `working tree at ${m.gitHead}${
          m.srcChanges.length
            ? ` + ${m.srcChanges.length} uncommitted change(s) under src/: ${m.srcChanges.join("; ")}`
            : " (clean)"
        }`
      ],
    ["Load average (1/5/15 min) at start / end", `${m.loadAverageAtStart.join(" ")} / ${m.loadAverageAtEnd.join(" ")}`],
    [
      "Settings",
      `${r.settings.runs} runs per median, client concurrency ${r.settings.concurrency}, ${r.settings.freshRepeats} fresh broker(s) for the upload figures`
    ]
  ]))
  lines.push("")
  lines.push(noiseNote(r))
  lines.push("")
  if (otherCoresOverall(r) > 0.25) {
    lines.push(
      `> The machine was not idle: other processes shared the ${m.nproc} cores during the run, so absolute times carry that noise. Reference tools and broker requests were interleaved run by run (page images, text), and the mutool pair ran before and after the broker (throughput), to share it fairly.`
    )
    lines.push("")
  }
  lines.push("## Figures")
  lines.push("")
  lines.push(
    "Medians; times are wall clock as the client sees them (request start to last byte) or whole processes from spawn to exit."
  )
  lines.push("")
  lines.push(summaryTable(r))
  lines.push("")
  lines.push("## Targets")
  lines.push("")
  lines.push(targetsTable(r.targets))
  lines.push("")

  lines.push("## 1. Fresh upload of the 400-page file")
  lines.push("")
  lines.push(
    "Each row is a broker started on an empty DATA_DIR, so nothing is deduplicated or cached. Right after the upload answers, the client asks for the layout and for page 0 (IM_1240_0) at the same time, as a viewer does; both are timed from the moment the upload response was complete."
  )
  lines.push("")
  lines.push(table(
    [
      "Broker",
      "Upload request",
      "Layout after upload",
      "First page image after upload",
      "Other processes' CPU meanwhile"
    ],
    r.freshUploads.map((
      f
    ) => [f.label, ms(f.uploadMs), ms(f.layoutAfterUploadMs), ms(f.firstImageAfterUploadMs), cores(f.otherCores)])
  ))
  lines.push("")
  lines.push(
    `Same bytes uploaded again under a new ID (the broker dedupes by content hash, page 0 already cached): upload ${
      ms(r.dedupUpload.uploadMs)
    }, layout +${ms(r.dedupUpload.layoutAfterUploadMs)}, first image +${ms(r.dedupUpload.firstImageAfterUploadMs)}.`
  )
  lines.push("")

  lines.push("## 2. Page 0 at 1240 px")
  lines.push("")
  lines.push(
    `Median (min–max) of ${r.settings.runs} runs, interleaved: one fresh broker render, one cached broker request, one \`mutool draw -o out.png -w 1240 file.pdf 1\`, one \`pdftoppm -png -f 1 -l 1 -scale-to-x 1240 -scale-to-y -1\` per round.`
  )
  lines.push("")
  lines.push(
    `- **Fresh render**: \`IM_1241_0\` … \`IM_${
      1240 + r.settings.runs
    }_0\`, a width never requested before, so neither the in-memory nor the on-disk image cache can answer; the image is at most ${
      ((r.settings.runs / 1240) * 100).toFixed(1)
    }% wider (≤${
      ((((1240 + r.settings.runs) / 1240) ** 2 - 1) * 100).toFixed(1)
    }% more pixels) than 1240 px. Widths were chosen over filters because a filter adds a sharp stage; the filter variant (\`IM_1240_0_FILTERS~C~i\`) is shown for comparison. Before the timed runs the document was opened in both workers (two throwaway renders at 1260/1261 px, the "Opening renders" column; requests alternate between workers), so parsing is not counted; each worker also keeps the page it drew last loaded (engine/PdfiumPages.ts), as on a zoom or a tile, so the page's content is not parsed again either. mutool draw parses file and page in every run.`
  )
  lines.push("- **From cache**: `IM_1240_0` again (the in-memory LRU).")
  lines.push(
    "- **CPU**: user+system time per run, read from /proc in clock ticks (10 ms): the broker's server process around each fresh render (its health checks add a little), each tool's whole process. Unlike wall time it hardly changes when other work shares the cores."
  )
  lines.push("")
  lines.push(table(
    [
      "Page",
      "Broker fresh",
      "Broker from cache",
      "Broker fresh with filter",
      "mutool draw",
      "pdftoppm",
      "fresh/mutool",
      "fresh/pdftoppm",
      "CPU: broker fresh / mutool / pdftoppm",
      "First request after upload",
      "Opening renders"
    ],
    r.pageImages.map((p) => [
      p.label,
      spread(p.fresh),
      spread(p.cached),
      spread(p.freshWithFilter),
      spread(p.mutool),
      spread(p.pdftoppm),
      fmtRatio(ratio(p.fresh.median, p.mutool.median)),
      fmtRatio(ratio(p.fresh.median, p.pdftoppm.median)),
      `${ms(p.cpu.fresh.median)} / ${ms(p.cpu.mutool.median)} / ${ms(p.cpu.pdftoppm.median)}`,
      ms(p.firstRequestMs),
      p.openRendersMs.map((v) => ms(v)).join(", ")
    ])
  ))
  lines.push("")

  lines.push("## 3. Text positions, cold")
  lines.push("")
  lines.push(
    `GET /documents/{id}/pages/{n}/text/position, first request for that page (the document was uploaded and drawn before; PDFium reads the text, on a worker that may or may not hold the document open already: if not, the request counts PDFium's opening of the file, as pdftotext's does), then the same request again (served from the derived cache); against \`pdftotext -bbox -f n -l n\` as a whole process (median of ${r.settings.runs}), which parses the file each time.`
  )
  lines.push("")
  lines.push(table(
    ["Page", "Text runs", "Broker cold", "Broker repeat", "pdftotext -bbox", "cold/pdftotext"],
    r.textPositions.map((
      x
    ) => [
      x.label,
      String(x.runs),
      ms(x.coldMs),
      ms(x.repeatMs),
      spread(x.pdftotext),
      fmtRatio(ratio(x.coldMs, x.pdftotext.median))
    ])
  ))
  lines.push("")

  lines.push("## 4. Pages per second over the 400 pages")
  lines.push("")
  lines.push(
    `The client asks for all ${t.pages} pages as IM_1240_0 with ${t.concurrency} requests in flight (page 0 was already cached by the upload, the other ${
      t.pages - 1
    } are fresh renders). Reference: two \`mutool draw -w 1240\` processes in parallel, pages 1–${
      Math.floor(t.pages / 2)
    } and ${
      Math.floor(t.pages / 2) + 1
    }–${t.pages}, writing PNG files; wall time until both exit. The pair runs once just before and once just after the broker; the reference is the mean of the two (${
      t.mutoolRunsMs.map((v) => ms(v)).join(" and ")
    }).`
  )
  lines.push("")
  lines.push(table(["", "Broker", "2× mutool draw"], [
    ["Wall time", ms(t.brokerWallMs), `${ms(t.mutoolWallMs)} (mean of ${t.mutoolRunsMs.map((v) => ms(v)).join(", ")})`],
    ["Pages per second", t.brokerPagesPerSecond.toFixed(2), t.mutoolPagesPerSecond.toFixed(2)],
    ["CPU time (user+system)", ms(t.brokerCpuMs), t.mutoolCpuMs === null ? "n/a" : `${ms(t.mutoolCpuMs)} (mean)`],
    ["CPU per page", ms(t.brokerCpuMs / t.pages), t.mutoolCpuMs === null ? "n/a" : ms(t.mutoolCpuMs / t.pages)],
    [
      "of which the server's main thread (HTTP, database, caches)",
      `${ms(t.brokerMainThreadCpuMs)} (${ms(t.brokerMainThreadCpuMs / t.pages)} per page)`,
      ""
    ],
    [
      "Other processes' CPU meanwhile (machine noise)",
      cores(t.otherCoresDuringBroker),
      t.otherCoresDuringMutool.map(cores).join(", ")
    ],
    [
      "Per-request latency median / p90 / max",
      `${ms(t.brokerLatency.median)} / ${ms(t.brokerLatency.p90)} / ${ms(t.brokerLatency.max)}`,
      `processes: ${t.mutoolProcessMs.map((v) => ms(v)).join(", ")}`
    ]
  ]))
  lines.push("")
  lines.push(`Ratio broker/mutool: ${fmtRatio(ratio(t.brokerPagesPerSecond, t.mutoolPagesPerSecond))}.`)
  lines.push("")

  lines.push("## 5. Memory")
  lines.push("")
  lines.push(
    "The server process is the node process running scripts/start.mjs (src/main.ts, built); the PDF worker threads live in it, so its RSS covers them. VmHWM is the kernel's own high-water mark for that process; the tree figure is the largest sum of VmRSS over npx, the tsx CLI and the server, sampled every 100 ms."
  )
  lines.push("")
  lines.push(table(
    ["Broker", "Startup to ready", "RSS at ready", "Peak RSS server (VmHWM)", "Peak RSS tree (sampled)", "Threads"],
    r.brokers.map((
      b
    ) => [
      b.label,
      ms(b.startupMs),
      mib(b.rssAtReadyKiB),
      mib(Math.max(b.serverHwmKiB, b.peakServerRssKiB)),
      mib(b.peakTreeRssKiB),
      String(b.maxThreads)
    ])
  ))
  lines.push("")
  const main = r.brokers[0]
  if (main) {
    lines.push(
      "Main broker by phase: peak sampled RSS, and average cores kept busy by the broker, by the benchmark with its reference tools, and by other processes on the machine (noise):"
    )
    lines.push("")
    // Phases that only close the one before them ("after …", a few milliseconds) carry no figures of their own.
    lines.push(phaseTable(main, (phase) => phase.startsWith("after ")))
    lines.push("")
  }
  if (main) {
    lines.push(
      "The main broker's process tree at the tree's peak during startup, at its peak over the whole run, and at the end of the run (after the throughput phase):"
    )
    lines.push("")
    const commands = [...new Set([...main.startupPeakTree, ...main.peakTree, ...main.lastTree].map((p) => p.command))]
    const rssOf = (list: ReadonlyArray<{ readonly command: string; readonly rssKiB: number }>, command: string) =>
      list.filter((p) => p.command === command).reduce((sum, p) => sum + p.rssKiB, 0)
    lines.push(table(
      ["Process", "At startup peak", "At overall peak", "At end"],
      commands.map((
        c
      ) => [
        `\`${c.replace(/\|/g, "\\|")}\``,
        mib(rssOf(main.startupPeakTree, c)),
        mib(rssOf(main.peakTree, c)),
        mib(rssOf(main.lastTree, c))
      ])
    ))
    lines.push("")
  }
  lines.push(`The JSON holds a memory timeline (every 5th sample) of the main broker.`)
  lines.push("")
  if (r.soak) lines.push(renderSoakMarkdown(r.soak))
  lines.push(renderAfterQuietMarkdown(r.afterQuiet))
  return lines.join("\n") + "\n"
}
