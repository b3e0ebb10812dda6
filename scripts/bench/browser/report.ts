/**
 * The browser section's results: their shape (also the JSON written next to the report), the
 * figures with their targets, the Markdown report and the summary printed at the end.
 */
import type { QuietWait } from "../lib/quiet.ts"
import { table } from "../lib/report.ts"
import type { MachineFacts } from "../lib/section.ts"
import { fmtRatio, median, ms, ratio, round } from "../lib/stats.ts"
import type { HeapRun, NavigationRun, ScrollRun } from "./measure.ts"

export const VIEWERS = ["ours", "pdfjs"] as const
export type ViewerName = typeof VIEWERS[number]
const VIEWER_NAMES: Readonly<Record<ViewerName, string>> = { ours: "ours", pdfjs: "pdf.js" }

export type PerViewer<A> = Readonly<Record<ViewerName, ReadonlyArray<A>>>

export interface Measurements {
  /** The 400-page corpus PDF: first page painted, then the jump to page 200. */
  readonly navigationLarge: PerViewer<NavigationRun>
  /** tracemonkey.pdf: first page painted. */
  readonly navigationSmall: PerViewer<NavigationRun>
  /** The generated document: first page painted, then the full scroll. */
  readonly scroll: PerViewer<ScrollRun>
  /** The 400-page corpus PDF: every page read, then the heap. */
  readonly heap: PerViewer<HeapRun>
}
export type MeasurementName = keyof Measurements

export interface BenchDocument {
  readonly file: string
  readonly pages: number
  readonly bytes: number
  /** The broker's (and the viewer's) ID. */
  readonly id: string
  /** POST /documents to the broker, answered once the broker has read the file. */
  readonly uploadMs: number
  /** documentLayout then flatDocumentLayout through the viewer, just after the upload. */
  readonly layoutMs: number
}

export interface Failure {
  readonly viewer: ViewerName
  readonly measurement: MeasurementName
  /** "warm-up" or "run N". */
  readonly phase: string
  readonly message: string
}

export interface BrowserBenchResults {
  readonly machine: MachineFacts & { readonly loadAverageAtEnd: ReadonlyArray<number> }
  readonly settings: {
    readonly runs: number
    readonly viewport: { readonly width: number; readonly height: number }
    readonly scrollMaxSteps: number
    readonly jumpTo: number
    readonly chromium: string
    readonly pdfjs: string
    readonly documents: {
      readonly large: BenchDocument
      readonly small: BenchDocument
      readonly generated: BenchDocument
    }
  }
  readonly durationSeconds: number
  /** The first navigation of each viewer to each document, not in the medians (the broker's caches were cold for ours). */
  readonly warmUp: Omit<Measurements, "heap">
  readonly runs: Measurements
  readonly failures: ReadonlyArray<Failure>
  readonly quietWaits: ReadonlyArray<QuietWait>
}

const MIB = 1024 * 1024
/** Lighthouse flags a page of more than 1,400 DOM elements (the report gives every node too, text and comments included). */
const MAX_ELEMENTS = 1400
/** The Long Tasks API reports tasks of 50 ms and more: a scroll within this has none. */
const LONG_TASK_MS = 50

export interface Figure {
  readonly name: string
  readonly unit: "ms" | "elements" | "MiB"
  readonly ours: number
  readonly pdfjs: number
  /** Each median as shown, or why there is none. */
  readonly shown: Readonly<Record<ViewerName, string>>
  readonly target: string
  readonly met: boolean
}

const medianOf = <A>(runs: ReadonlyArray<A>, of: (run: A) => number | null) =>
  median(runs.map(of).filter((v): v is number => v !== null && Number.isFinite(v)))

const heapBytes = (run: HeapRun) => run.pageHeapBytes + run.workerHeapBytes

export const browserFigures = (r: BrowserBenchResults): ReadonlyArray<Figure> => {
  const { large, small, generated } = r.settings.documents
  const figure = <A>(
    name: string,
    unit: Figure["unit"],
    runs: PerViewer<A>,
    of: (run: A) => number | null,
    target: { readonly text: string; readonly met: (ours: number, pdfjs: number) => boolean },
    /** What a run without a value means. */
    unreached = "none"
  ): Figure => {
    const ours = medianOf(runs.ours, of)
    const pdfjs = medianOf(runs.pdfjs, of)
    const show = (v: ViewerName, median: number) =>
      Number.isFinite(median) ? value(median, unit) : runs[v].length === 0 ? "failed" : unreached
    return {
      name,
      unit,
      ours,
      pdfjs,
      shown: { ours: show("ours", ours), pdfjs: show("pdfjs", pdfjs) },
      target: target.text,
      met: Number.isFinite(ours) && target.met(ours, pdfjs)
    }
  }
  const ahead = { text: "ahead of pdf.js", met: (ours: number, pdfjs: number) => ours < pdfjs }
  const runs = r.runs
  return [
    figure(`First page painted, ${large.pages}-page corpus PDF`, "ms", runs.navigationLarge, (x) => x.firstPaintMs, {
      text: "≤ 500 ms and ahead of pdf.js",
      met: (ours, pdfjs) => ours <= 500 && ours < pdfjs
    }),
    figure(`Jump to page ${r.settings.jumpTo} → painted`, "ms", runs.navigationLarge, (x) => x.jumpMs, ahead),
    figure(
      `First page painted, ${small.file} (${small.pages} pages)`,
      "ms",
      runs.navigationSmall,
      (x) => x.firstPaintMs,
      ahead
    ),
    figure(
      `First page painted, ${generated.pages.toLocaleString("en")} generated pages`,
      "ms",
      runs.scroll,
      (x) => x.firstPaintMs,
      ahead
    ),
    figure(
      `Full scroll of ${generated.pages.toLocaleString("en")} pages, to the last page painted`,
      "ms",
      runs.scroll,
      (x) => x.totalMs,
      ahead,
      "last page not painted"
    ),
    figure(`Longest task during that scroll`, "ms", runs.scroll, (x) => x.longestTaskMs, {
      text: `no long task (< ${LONG_TASK_MS} ms)`,
      met: (ours) => ours < LONG_TASK_MS
    }),
    figure(`Most DOM elements during that scroll`, "elements", runs.scroll, (x) => x.maxElements, {
      text: `≤ ${MAX_ELEMENTS.toLocaleString("en")} (Lighthouse's limit)`,
      met: (ours) => ours <= MAX_ELEMENTS
    }),
    figure(
      `JS heap after reading the ${large.pages} pages (page + workers)`,
      "MiB",
      runs.heap,
      (x) => heapBytes(x) / MIB,
      { text: "below pdf.js", met: (ours, pdfjs) => ours < pdfjs }
    )
  ]
}

const value = (v: number, unit: Figure["unit"]) => {
  if (unit === "ms") return ms(v)
  if (unit === "elements") return `${Math.round(v).toLocaleString("en")} elements`
  return `${round(v)} MiB`
}
/** Where each viewer stood when its last page was not painted, warm-up included. */
const notPaintedNotes = (r: BrowserBenchResults) => {
  const notes = VIEWERS.flatMap((v) => {
    const phases = [
      ...r.warmUp.scroll[v].map((x) => ["warm-up", x] as const),
      ...r.runs.scroll[v].map((x, i) => [`run ${i + 1}`, x] as const)
    ]
    return phases.flatMap(([phase, x]) =>
      x.notPainted === null ? [] : [`- ${VIEWER_NAMES[v]}, ${phase}: ${x.notPainted}`]
    )
  })
  return notes.length === 0 ? "" : `\nThe last page not painted:\n\n${notes.join("\n")}\n`
}

/** An error's first line: playwright adds the page's stack after it. */
const firstLine = (message: string) => message.split("\n", 1)[0]!

const ratioOf = (f: Figure) => fmtRatio(ratio(f.ours, f.pdfjs))
const each = <A>(runs: ReadonlyArray<A>, of: (run: A) => number | null) =>
  runs.length === 0 ? "–" : runs.map((run) => {
    const v = of(run)
    return v === null ? "–" : String(Math.round(v))
  }).join(", ")

export const renderBrowserMarkdown = (r: BrowserBenchResults, jsonName: string) => {
  const m = r.machine
  const s = r.settings
  const { large, small, generated } = s.documents
  const perRun = <A>(
    title: string,
    measurements: ReadonlyArray<readonly [string, PerViewer<A>]>,
    columns: ReadonlyArray<readonly [string, (run: A) => number | null]>
  ) =>
    `${title}\n\n${
      table(
        ["Document", "Viewer", ...columns.map(([name]) => name)],
        measurements.flatMap(([doc, runs]) =>
          VIEWERS.map((viewer) => [doc, VIEWER_NAMES[viewer], ...columns.map(([, of]) => each(runs[viewer], of))])
        )
      )
    }`
  const firstPaint = ["First page painted (ms)", (x: NavigationRun | ScrollRun) => x.firstPaintMs] as const
  const width = ["Page 1 width (px)", (x: NavigationRun | ScrollRun) => x.width] as const
  return `# Browser viewer benchmark (${m.date.slice(0, 10)})

Our viewer page (\`{viewer}/?uuid=<id>\`, the \`<docstack-viewer>\` element filling the window) against
pdf.js's own PDFViewer component (pdfjs-dist ${s.pdfjs}, \`web/pdf_viewer.mjs\` at page-width with
the options pdf.js's viewer gives by default, the same PDF served from loopback with range
requests), in headless Chromium ${s.chromium}, ${s.viewport.width}×${s.viewport.height}, a fresh
browser context for every navigation; method in \`scripts/bench/browser.ts\`, every figure in
[${jsonName}](${jsonName}). Each figure is the median of ${s.runs} run${s.runs === 1 ? "" : "s"};
times are from the navigation's start to the viewer's \`pagerendered\` for the page.

Machine: ${m.nproc} cores (${m.cpuModel}), ${m.totalMemoryMiB} MiB, Node ${m.node}; code at ${
    m.measuredRef ?? `${m.gitHead} plus the working tree (${m.srcChanges.length} files changed under src/)`
  }. Load average ${m.loadAverageAtStart.join(" ")} at the start, ${m.loadAverageAtEnd.join(" ")} at the end.

Documents, each uploaded to the broker and its layouts read through the viewer before any navigation
(${generated.file} is made of text pages by pdf-lib):

${
    table(
      ["Document", "Pages", "Size", "Upload", "Layout + flat layout"],
      [large, small, generated].map((d) => [
        d.file,
        d.pages.toLocaleString("en"),
        `${round(d.bytes / MIB)} MiB`,
        ms(d.uploadMs),
        ms(d.layoutMs)
      ])
    )
  }
${
    r.failures.length === 0 ? "" : `
**Failures** (the runs after a viewer's first failure in a measurement were not made):

${
      table(
        ["Viewer", "Measurement", "Phase", "Error"],
        r.failures.map((
          f
        ) => [VIEWER_NAMES[f.viewer], f.measurement, f.phase, firstLine(f.message).replaceAll("|", "\\|")])
      )
    }
`
  }
## Figures

${
    table(
      ["Figure", "Ours", "pdf.js", "Ours / pdf.js", "Target", "Status"],
      browserFigures(r).map((f) => [
        f.name,
        f.shown.ours,
        f.shown.pdfjs,
        ratioOf(f),
        f.target,
        f.met ? "met" : "**MISSED**"
      ])
    )
  }

## Each run

${
    perRun("Navigation:", [[large.file, r.runs.navigationLarge], [small.file, r.runs.navigationSmall]], [
      firstPaint,
      [`Jump to page ${s.jumpTo} (ms)`, (x) => x.jumpMs],
      width
    ])
  }

${
    perRun(
      "The first navigation of each viewer to each document, before the runs (for ours the broker had not drawn those pages yet; not in the medians):",
      [
        [large.file, r.warmUp.navigationLarge],
        [small.file, r.warmUp.navigationSmall],
        [generated.file, r.warmUp.scroll]
      ],
      [firstPaint, width]
    )
  }

${
    perRun(
      `Full scroll of ${generated.file}: one step per animation frame, a viewport height or 1/${s.scrollMaxSteps} of the document, whichever is longer (by page number, 1/${s.scrollMaxSteps} of the pages a step, for a viewer showing one page at a time, as pdf.js does above 10,000 pages), then the last page painted:`,
      [[generated.file, r.runs.scroll]],
      [
        firstPaint,
        ["Steps", (x) => x.steps],
        ["One page at a time", (x) => (x.onePageAtATime ? 1 : 0)],
        ["Stepping (ms)", (x) => x.stepsMs],
        ["To last page painted (ms)", (x) => x.totalMs],
        ["Long tasks", (x) => x.longTasks],
        ["Longest (ms)", (x) => x.longestTaskMs],
        ["Most DOM nodes", (x) => x.maxNodes],
        ["Most elements", (x) => x.maxElements]
      ]
    )
  }
${notPaintedNotes(r)}

${
    perRun(
      `Reading ${large.file}: each page gone to in turn and painted, then a garbage collection in the page and in each worker (V8 heap in use; ArrayBuffers are outside it; Blink's heap holds the DOM):`,
      [[large.file, r.runs.heap]],
      [
        ["Reading (ms)", (x) => x.readMs],
        ["Page heap (KiB)", (x) => x.pageHeapBytes / 1024],
        ["Workers", (x) => x.workers],
        ["Workers' heap (KiB)", (x) => x.workerHeapBytes / 1024],
        ["ArrayBuffers (KiB)", (x) => x.arrayBufferBytes / 1024],
        ["Blink heap (KiB)", (x) => x.blinkHeapBytes / 1024]
      ]
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

export const renderBrowserSummary = (r: BrowserBenchResults) =>
  [
    "Browser section (ours / pdf.js, medians)",
    ...browserFigures(r).map((f) =>
      `  ${f.met ? "met   " : "MISSED"} ${f.name}: ${f.shown.ours} / ${f.shown.pdfjs} (${
        ratioOf(f)
      }; target ${f.target})`
    ),
    ...r.failures.map((f) =>
      `  FAILED ${VIEWER_NAMES[f.viewer]}, ${f.measurement} (${f.phase}): ${firstLine(f.message)}`
    )
  ].join("\n")
