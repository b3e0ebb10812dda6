/**
 * Section "office" of `npm run bench`: the warm LibreOffice pool (OfficeConverter, loaded in this
 * process from the measured code) against a cold `soffice --headless --convert-to pdf` (a new
 * soffice process per conversion, on a profile already initialised by one untimed run: what a
 * user of --convert-to gets), in the same run.
 *
 *  1. one conversion at a time of contains-pictures.docx, 2023-half-year-analyses-by-segment.xlsx
 *     and science-exploration-1p.pptx: warm pool and cold soffice interleaved run by run, median of
 *     BENCH_RUNS each (the pool's first conversion of each file is not counted);
 *  2. throughput of 8 small conversions submitted at once to the default pool (OFFICE_INSTANCES,
 *     default half the cores), in documents per minute, against the same 8 files converted cold
 *     one after another (a --convert-to user cannot run two on one profile).
 *
 * Settings, smoke runs and where the report goes: bench/README.md.
 */
import { type Layer, ManagedRuntime } from "effect"
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import type * as OfficeModule from "../../src/services/broker/conversion/OfficeConverter.ts"
import { pdfPages, runTimed, toolVersion } from "./lib/proc.ts"
import { QUIET_CORES, type QuietWait } from "./lib/quiet.ts"
import { spread, table, type Target, targetsTable, writeSectionReport } from "./lib/report.ts"
import type { SectionOptions } from "./lib/section.ts"
import { fmtRatio, median, ms, ratio, summarize, type Summary } from "./lib/stats.ts"

const SINGLE = [
  { file: "contains-pictures.docx", format: "docx", label: "contains-pictures.docx (small docx, 95 kB)" },
  {
    file: "2023-half-year-analyses-by-segment.xlsx",
    format: "xlsx",
    label: "2023-half-year-analyses-by-segment.xlsx (5 pages)"
  },
  { file: "science-exploration-1p.pptx", format: "pptx", label: "science-exploration-1p.pptx (1 slide, 1.2 MB)" }
] as const

const BATCH = [
  { file: "docx-tables.docx", format: "docx" },
  { file: "fake.odt", format: "odt" },
  { file: "fake-doc-emphasized-text.doc", format: "doc" },
  { file: "eng_spa_mult.rtf", format: "rtf" },
  { file: "contains-pictures.docx", format: "docx" },
  { file: "tests-example.xls", format: "xls" },
  { file: "AntarcticaTemps.ods", format: "ods" },
  { file: "fake-power-point-table.pptx", format: "pptx" }
] as const

/**
 * Where the measured code keeps OfficeConverter: in its feature folder since the move to feature
 * folders (a86d61e), in src/services/convert/ before (a BENCH_REF from before the move).
 */
const CONVERTER_PATHS = ["src/services/broker/conversion/OfficeConverter.ts", "src/services/convert/OfficeConverter.ts"]

const converterModule = (codeRoot: string) => {
  const found = CONVERTER_PATHS.map((path) => join(codeRoot, path)).find((path) => existsSync(path))
  if (found === undefined) {
    throw new Error(
      `No OfficeConverter in ${codeRoot} (looked for ${
        CONVERTER_PATHS.join(" and ")
      }); a BENCH_REF older than the pool has none`
    )
  }
  return pathToFileURL(found).href
}

export interface OfficeBenchResults {
  readonly machine: Readonly<Record<string, unknown>>
  readonly settings: {
    readonly runs: number
    readonly instances: number
    readonly batch: number
    readonly quietCores: number
  }
  readonly durationSeconds: number
  readonly poolStartMs: number
  readonly single: ReadonlyArray<{
    readonly label: string
    readonly pages: number
    readonly firstWarmMs: number
    readonly warm: Summary
    readonly cold: Summary
    readonly coldOverWarm: number
    readonly raw: { readonly warm: ReadonlyArray<number>; readonly cold: ReadonlyArray<number> }
  }>
  readonly throughput: {
    readonly documents: number
    readonly warmBatchesMs: ReadonlyArray<number>
    readonly warmDocsPerMinute: number
    readonly coldSequentialMs: number
    readonly coldDocsPerMinute: number
    readonly latency: Summary
  }
  readonly quietWaits: ReadonlyArray<QuietWait>
  readonly targets: ReadonlyArray<Target>
}

export const runOfficeBench = async (options: SectionOptions) => {
  const { log, runs } = options
  const started = performance.now()
  const corpusFile = (name: string) => join(options.corpus, "office", name)
  for (const name of [...SINGLE.map((s) => s.file), ...BATCH.map((b) => b.file)]) {
    if (!existsSync(corpusFile(name))) throw new Error(`Missing corpus file ${corpusFile(name)}`)
  }
  const dir = join(options.tmp, "office")
  mkdirSync(dir, { recursive: true })
  // The pool reads blobs without an extension, as the blob store keeps them.
  const blobs = new Map<string, string>()
  for (const name of new Set([...SINGLE.map((s) => s.file), ...BATCH.map((b) => b.file)])) {
    const blob = join(dir, `blob-${blobs.size}`)
    copyFileSync(corpusFile(name), blob)
    blobs.set(name, blob)
  }

  const quietWaits: Array<QuietWait> = []
  // No service tree to leave out: the pool runs in this process.
  const waitForQuiet = async (before: string) => {
    quietWaits.push(await options.waitForQuiet(before, undefined))
  }

  // ---- Cold: one soffice process per conversion, on a profile initialised beforehand ----------
  const coldProfile = join(dir, "cold-profile")
  const coldOut = join(dir, "cold-out")
  mkdirSync(coldOut, { recursive: true })
  const cold = (name: string) =>
    runTimed("soffice", [
      `-env:UserInstallation=${pathToFileURL(coldProfile).href}`,
      "--headless",
      "--convert-to",
      "pdf",
      "--outdir",
      coldOut,
      corpusFile(name)
    ], {
      timeoutMs: 300_000
    })
  log("initialising the profile of the cold soffice (untimed)")
  await cold(BATCH[0].file)

  // ---- Warm: the pool of the measured code, configured from the environment as in production --
  const office = (await import(converterModule(options.codeRoot))) as typeof OfficeModule
  const runtime = ManagedRuntime.make(office.OfficeConverter.Default as Layer.Layer<OfficeModule.OfficeConverter>)
  try {
    const poolStarted = performance.now()
    const converter = await runtime.runPromise(office.OfficeConverter)
    let outputs = 0
    const warm = async (name: string, format: OfficeModule.OfficeFormat) => {
      const out = join(dir, `warm-${outputs++}.pdf`)
      const t = performance.now()
      await runtime.runPromise(converter.convert({ path: blobs.get(name)!, format }, out))
      return { ms: performance.now() - t, out }
    }
    // The first conversion waits for the instances to start; timed as the pool's start-up.
    await warm(BATCH[0].file, BATCH[0].format)
    const poolStartMs = performance.now() - poolStarted
    const instances = (await runtime.runPromise(converter.instances)).length
    log(`pool of ${instances} instance(s) ready after ${Math.round(poolStartMs)} ms`)

    // 1. One conversion at a time, warm and cold interleaved.
    const single: Array<OfficeBenchResults["single"][number]> = []
    for (const s of SINGLE) {
      await waitForQuiet(s.file)
      const first = await warm(s.file, s.format)
      const pages = pdfPages(first.out)
      if (pages < 1) throw new Error(`The pool's PDF of ${s.file} has no page`)
      const warmMs: Array<number> = []
      const coldMs: Array<number> = []
      for (let i = 0; i < runs; i++) {
        warmMs.push((await warm(s.file, s.format)).ms)
        coldMs.push((await cold(s.file)).ms)
      }
      const coldPdf = join(coldOut, s.file.replace(/\.[^.]+$/, ".pdf"))
      if (!existsSync(coldPdf) || pdfPages(coldPdf) < 1) {
        throw new Error(`soffice --convert-to made no PDF of ${s.file}`)
      }
      const w = summarize(warmMs)
      const c = summarize(coldMs)
      single.push({
        label: s.label,
        pages,
        firstWarmMs: first.ms,
        warm: w,
        cold: c,
        coldOverWarm: ratio(c.median, w.median),
        raw: { warm: warmMs, cold: coldMs }
      })
      log(
        `${s.file}: warm ${Math.round(w.median)} ms, cold ${Math.round(c.median)} ms (${
          ratio(c.median, w.median).toFixed(1)
        }×)`
      )
    }

    // 2. Throughput: 8 small documents submitted at once, several batches.
    await waitForQuiet("the throughput batches")
    const batches: Array<number> = []
    const latencies: Array<number> = []
    for (let b = 0; b < Math.max(1, Math.min(runs, 5)); b++) {
      const t = performance.now()
      const results = await Promise.all(BATCH.map((d) => warm(d.file, d.format)))
      batches.push(performance.now() - t)
      latencies.push(...results.map((r) => r.ms))
    }
    await waitForQuiet("the cold sequential batch")
    const coldStarted = performance.now()
    for (const d of BATCH) await cold(d.file)
    const coldSequentialMs = performance.now() - coldStarted
    const warmDocsPerMinute = (BATCH.length / (median(batches) / 1000)) * 60
    const coldDocsPerMinute = (BATCH.length / (coldSequentialMs / 1000)) * 60
    log(
      `throughput: ${warmDocsPerMinute.toFixed(0)} docs/min warm (${instances} instances), ${
        coldDocsPerMinute.toFixed(0)
      } docs/min cold one after another`
    )

    const docx = single[0]!
    const results: OfficeBenchResults = {
      machine: {
        ...options.machine,
        soffice: toolVersion("soffice", ["--version"]),
        loadAverageAtEnd: loadavg().map((l) => Math.round(l * 100) / 100)
      },
      settings: { runs, instances, batch: BATCH.length, quietCores: QUIET_CORES },
      durationSeconds: Math.round((performance.now() - started) / 1000),
      poolStartMs,
      single,
      throughput: {
        documents: BATCH.length,
        warmBatchesMs: batches,
        warmDocsPerMinute,
        coldSequentialMs,
        coldDocsPerMinute,
        latency: summarize(latencies)
      },
      quietWaits,
      targets: [
        {
          name: "Small docx (contains-pictures.docx): warm pool ≥ 10× faster than a cold soffice --convert-to",
          figure: `${Math.round(docx.warm.median)} ms vs ${Math.round(docx.cold.median)} ms = ${
            fmtRatio(docx.coldOverWarm)
          }`,
          met: docx.coldOverWarm >= 10
        }
      ]
    }
    const { jsonPath, mdPath } = writeSectionReport(options.outDir, "office", results, renderOfficeMarkdown)
    log(`wrote ${mdPath} and ${jsonPath}`)
    return results
  } finally {
    await runtime.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

export const officeSummaryTable = (r: OfficeBenchResults) =>
  table(["Measure", "Warm pool", "Cold soffice --convert-to", "cold/warm"], [
    ...r.single.map((s) => [s.label, ms(s.warm.median), ms(s.cold.median), fmtRatio(s.coldOverWarm)]),
    [
      `${r.throughput.documents} small documents at once (${r.settings.instances} instance${
        r.settings.instances === 1 ? "" : "s"
      }; cold: one after another)`,
      `${Math.round(r.throughput.warmDocsPerMinute)} docs/min`,
      `${Math.round(r.throughput.coldDocsPerMinute)} docs/min`,
      fmtRatio(ratio(r.throughput.warmDocsPerMinute, r.throughput.coldDocsPerMinute))
    ]
  ])

export const renderOfficeSummary = (r: OfficeBenchResults) =>
  [
    `Office conversion benchmark (${r.settings.instances} LibreOffice instance(s), ${r.settings.runs} runs per median)`,
    "",
    officeSummaryTable(r),
    "",
    targetsTable(r.targets)
  ].join("\n")

export const renderOfficeMarkdown = (r: OfficeBenchResults, jsonName: string) => {
  const lines: Array<string> = []
  const m = r.machine
  lines.push(`# Office conversion benchmark, ${String(m.date ?? new Date().toISOString()).slice(0, 10)}`)
  lines.push("")
  lines.push(
    `Generated by \`npm run bench -- office\` (scripts/bench/office.ts); raw figures in [${jsonName}](${jsonName}). Section run: ${r.durationSeconds} s.`
  )
  lines.push("")
  lines.push(table(["Fact", "Value"], [
    ["Cores (nproc)", String(m.nproc)],
    ["CPU", String(m.cpuModel)],
    ["Memory", `${String(m.totalMemoryMiB)} MiB`],
    ["LibreOffice", String(m.soffice)],
    ["Code measured", String(m.measuredRef ?? `working tree at ${String(m.gitHead)}`)],
    [
      "Pool",
      `${r.settings.instances} instance(s) (OFFICE_INSTANCES, default half the cores); first conversion ${
        ms(r.poolStartMs)
      } after the pool was made (instances starting)`
    ],
    [
      "Quiet waits",
      r.quietWaits.map((w) =>
        `${w.before}: ${Math.round(w.waitedMs / 1000)} s, other processes ${w.otherCores.toFixed(2)} cores`
      ).join("; ")
    ]
  ]))
  lines.push("")
  lines.push("## Figures")
  lines.push("")
  lines.push(officeSummaryTable(r))
  lines.push("")
  lines.push(targetsTable(r.targets))
  lines.push("")
  lines.push("## 1. One conversion at a time")
  lines.push("")
  lines.push(
    `Median (min–max) of ${r.settings.runs} runs, interleaved: one conversion by the warm pool (\`OfficeConverter.convert\`, from the call to the PDF renamed in place), then one \`soffice --headless --convert-to pdf --outdir … file\` as a whole process, on a profile initialised by an untimed run before. The pool's first conversion of each file is shown apart (not counted).`
  )
  lines.push("")
  lines.push(
    table(
      ["File", "Pages", "Warm pool", "Cold soffice", "cold/warm", "Pool's first conversion of the file"],
      r.single.map((
        s
      ) => [s.label, String(s.pages), spread(s.warm), spread(s.cold), fmtRatio(s.coldOverWarm), ms(s.firstWarmMs)])
    )
  )
  lines.push("")
  lines.push("## 2. Throughput")
  lines.push("")
  lines.push(
    `${r.throughput.documents} small documents (docx, odt, doc, rtf, docx with pictures, xls, ods, pptx) submitted to the pool at once; wall time until the last PDF, median of ${r.throughput.warmBatchesMs.length} batch(es) (${
      r.throughput.warmBatchesMs.map((v) => ms(v)).join(", ")
    }). Cold reference: the same files converted by \`soffice --convert-to\` one after another (two cannot share one profile), ${
      ms(r.throughput.coldSequentialMs)
    } in all.`
  )
  lines.push("")
  lines.push(table(["", "Warm pool", "Cold soffice, one after another"], [
    ["Documents per minute", r.throughput.warmDocsPerMinute.toFixed(0), r.throughput.coldDocsPerMinute.toFixed(0)],
    [
      "Per-document latency in a batch, median / p90 / max",
      `${ms(r.throughput.latency.median)} / ${ms(r.throughput.latency.p90)} / ${ms(r.throughput.latency.max)}`,
      ""
    ]
  ]))
  lines.push("")
  return lines.join("\n") + "\n"
}
