/**
 * Section "broker" of `npm run bench`: the broker against the reference tools, in one run on this
 * machine. Starts the real broker (`node scripts/start.mjs broker`, embedded PGlite, a fresh DATA_DIR
 * under the section's bench/tmp/ directory) and measures, with the reference tools run as whole
 * processes in the same run:
 *  1. a fresh 400-page upload: upload time, upload→layout, upload→first page image;
 *  2. page 0 at 1240 px of a text, a vector and a CJK page: cached, and freshly rendered on an open
 *     document, against `mutool draw` and `pdftoppm`;
 *  3. cold text positions per page against `pdftotext -bbox`;
 *  4. pages per second over the 400 pages (BENCH_CONCURRENCY requests in flight) against two
 *     `mutool draw` processes;
 *  5. peak RSS of the broker (its process, worker threads included, and the whole process tree);
 *  6. the memory soak of issue 19 on a brand-new broker (broker/soak.ts): idle RSS after start, peak
 *     RSS over three passes of every page of the large files at two widths and of the whole corpus,
 *     and growth from one pass to the next (BENCH_SOAK=0 leaves it out);
 *  7. a page image and a page's text positions after a quiet spell, on a broker of their own
 *     (broker/after-quiet.ts), against cold `mutool draw` and `pdftotext -bbox` processes;
 * then repeats (1) on brand-new brokers (BENCH_FRESH_REPEATS in all) for more samples of the
 * fresh-upload figures. Settings and smoke runs: bench/README.md.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { measureAfterQuiet } from "./broker/after-quiet.ts"
import {
  type BrokerBenchResults,
  type BrokerMemory,
  type FreshUpload,
  type PageImageResult,
  renderBrokerMarkdown,
  type TextPositionResult
} from "./broker/report.ts"
import { runSoak, soakTargets } from "./broker/soak.ts"
import { getJson, getPageImage, type LayoutResult, type PageTextResult, pngWidth, upload } from "./lib/http.ts"
import { hasGnuTime, processCpuMs, processMemory, reapedChildrenCpuMs, runTimed, threadCpuMs } from "./lib/proc.ts"
import { QUIET_CORES, type QuietWait } from "./lib/quiet.ts"
import { type Target, writeSectionReport } from "./lib/report.ts"
import type { SectionOptions } from "./lib/section.ts"
import { type RunningService, startBroker } from "./lib/service.ts"
import { median, ratio, summarize } from "./lib/stats.ts"

export interface BrokerBenchOptions extends SectionOptions {
  /** BENCH_CONCURRENCY: requests in flight in the throughput phase. */
  readonly concurrency: number
  /** BENCH_FRESH_REPEATS: brokers the fresh upload is measured on, the main one included. */
  readonly freshRepeats: number
  /** BENCH_THROUGHPUT_PAGES: pages of the throughput phase (fewer than 400 only in a smoke run). */
  readonly throughputPages: number
  /** The whole run's quiet-wait budget, for the report. */
  readonly quietBudgetMs: number
  /** BENCH_SOAK: run the memory soak. */
  readonly soak: boolean
  /** BENCH_SOAK_PAGES: at most this many pages of each file in the soak (Infinity: all). */
  readonly soakPages: number
}

const WIDTH = 1240
const CACHED_DESCRIPTOR = `IM_${WIDTH}_0`

const PAGE_DOCS = [
  { key: "text", file: "tracemonkey.pdf", label: "tracemonkey.pdf p0 (text)" },
  { key: "vector", file: "issue12810.pdf", label: "issue12810.pdf p0 (vector)" },
  { key: "cjk", file: "korean-text-with-tables.pdf", label: "korean-text-with-tables.pdf p0 (CJK)" }
] as const
const LARGE_DOC = "pdf2image-memory-error-test-400p.pdf"
const LARGE_PAGES = 400
/** 0-based pages of the 400-page file whose text positions are timed (none read before; all hold text, 36 to 269 words). */
const TEXT_PAGES_LARGE = [2, 57, 99, 133, 249, 299, 398]

/** The section's quiet wait before a measurement, the broker's own tree not counted as other work. */
type Quiet = (before: string, broker: RunningService) => Promise<void>

const corpusFile = (options: SectionOptions, name: string) => join(options.corpus, "pdf", name)

/** Runs `count` tasks with at most `concurrency` at once, in order of index. */
const pooled = async <A>(count: number, concurrency: number, task: (index: number) => Promise<A>) => {
  const results: Array<A> = new Array(count)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next++
        results[index] = await task(index)
      }
    })
  )
  return results
}

/** Fresh upload of the 400-page file, then layout and page 0 requested at once, as a viewer does. */
const freshLargeUpload = async (
  options: SectionOptions,
  broker: RunningService,
  label: string,
  waitForQuiet: Quiet
): Promise<FreshUpload> => {
  const bytes = readFileSync(corpusFile(options, LARGE_DOC))
  await waitForQuiet(`the 400-page upload (${label})`, broker)
  const phase = `upload-400p (${label})`
  broker.sampler.setPhase(phase)
  const up = await upload(broker.baseUrl, bytes, { documentTitle: `bench ${label}` })
  const id = up.value
  const [layout, image] = await Promise.all([
    getJson<LayoutResult>(broker.baseUrl, `/documents/${encodeURIComponent(id)}/layout`),
    getPageImage(broker.baseUrl, id, 0, CACHED_DESCRIPTOR, WIDTH)
  ])
  if (layout.value.pageDimensionsList.length !== LARGE_PAGES) {
    throw new Error(`The layout lists ${layout.value.pageDimensionsList.length} pages, expected ${LARGE_PAGES}`)
  }
  broker.sampler.setPhase(`after upload-400p (${label})`)
  options.log(
    `upload ${Math.round(up.ms)} ms, layout +${Math.round(layout.endedAt - up.endedAt)} ms, first image +${
      Math.round(image.endedAt - up.endedAt)
    } ms`
  )
  return {
    label,
    documentId: id,
    uploadMs: up.ms,
    layoutAfterUploadMs: layout.endedAt - up.endedAt,
    firstImageAfterUploadMs: image.endedAt - up.endedAt,
    firstImageBytes: image.value,
    /** 1-minute load average right after: a high one flags a sample taken while other work shared the cores. */
    loadAverage1m: Math.round(loadavg()[0]! * 100) / 100,
    /** Cores other processes on the machine kept busy, on average, between the upload and the last answer. */
    otherCores: broker.sampler.cpuByPhase.get(phase)?.otherCores ?? Number.NaN
  }
}

/** 2. Page 0 at 1240 px of each page document: fresh renders, cached answers, mutool and pdftoppm, interleaved. */
const measurePageImages = async (options: SectionOptions, broker: RunningService, waitForQuiet: Quiet) => {
  broker.sampler.setPhase("page images")
  const pageImages: Array<PageImageResult> = []
  for (const doc of PAGE_DOCS) {
    await waitForQuiet(`page images of ${doc.file}`, broker)
    options.log(`page images: ${doc.label}`)
    const file = corpusFile(options, doc.file)
    const { value: id } = await upload(broker.baseUrl, readFileSync(file), { documentTitle: doc.file })
    // The first request may be served by the upload's warm-up render; it is not counted.
    const firstRequest = await getPageImage(broker.baseUrl, id, 0, CACHED_DESCRIPTOR, WIDTH)
    // Two throwaway renders: requests alternate between the workers, so both now hold the document open.
    const openRenders = [] as Array<number>
    for (const w of [WIDTH + 20, WIDTH + 21]) {
      openRenders.push((await getPageImage(broker.baseUrl, id, 0, `IM_${w}_0`, w)).ms)
    }
    const cached: Array<number> = []
    const freshRender: Array<number> = []
    // CPU time per run too (clock ticks of 10 ms): unlike wall time it hardly moves when other work shares the cores.
    const cpu = { fresh: [] as Array<number>, mutool: [] as Array<number>, pdftoppm: [] as Array<number> }
    const serverPid = broker.serverPid() ?? -1
    const withCpu = async <A>(into: Array<number>, read: () => number, run: () => Promise<A>) => {
      const before = read()
      const result = await run()
      into.push(read() - before)
      return result
    }
    const mutool: Array<number> = []
    const pdftoppm: Array<number> = []
    const mutoolOut = join(options.tmp, `mutool-${doc.key}.png`)
    for (let i = 1; i <= options.runs; i++) {
      // A width never asked before (1241..1249) misses both the memory and the disk cache.
      freshRender.push(
        (await withCpu(
          cpu.fresh,
          () => processCpuMs(serverPid),
          () => getPageImage(broker.baseUrl, id, 0, `IM_${WIDTH + i}_0`, WIDTH + i)
        )).ms
      )
      cached.push((await getPageImage(broker.baseUrl, id, 0, CACHED_DESCRIPTOR, WIDTH)).ms)
      mutool.push(
        (await withCpu(
          cpu.mutool,
          reapedChildrenCpuMs,
          () => runTimed("mutool", ["draw", "-q", "-o", mutoolOut, "-w", String(WIDTH), file, "1"])
        )).ms
      )
      pdftoppm.push(
        (await withCpu(
          cpu.pdftoppm,
          reapedChildrenCpuMs,
          () =>
            runTimed("pdftoppm", [
              "-png",
              "-f",
              "1",
              "-l",
              "1",
              "-scale-to-x",
              String(WIDTH),
              "-scale-to-y",
              "-1",
              file,
              join(options.tmp, `pdftoppm-${doc.key}`)
            ])
        )).ms
      )
    }
    // The filter variant costs one more sharp stage; measured once per run for comparison.
    const filtered: Array<number> = []
    for (let i = 1; i <= Math.min(options.runs, 3); i++) {
      filtered.push((await getPageImage(broker.baseUrl, id, 0, `${CACHED_DESCRIPTOR}_FILTERS~C~${i}`, WIDTH)).ms)
    }
    pageImages.push({
      key: doc.key,
      label: doc.label,
      firstRequestMs: firstRequest.ms,
      openRendersMs: openRenders,
      cached: summarize(cached),
      fresh: summarize(freshRender),
      freshWithFilter: summarize(filtered),
      mutool: summarize(mutool),
      pdftoppm: summarize(pdftoppm),
      mutoolPngWidth: pngWidth(readFileSync(mutoolOut)) ?? null,
      cpu: { fresh: summarize(cpu.fresh), mutool: summarize(cpu.mutool), pdftoppm: summarize(cpu.pdftoppm) },
      raw: {
        cached,
        fresh: freshRender,
        mutool,
        pdftoppm,
        freshWithFilter: filtered,
        cpuFresh: cpu.fresh,
        cpuMutool: cpu.mutool,
        cpuPdftoppm: cpu.pdftoppm
      }
    })
  }
  return pageImages
}

/** 3. Text positions, cold (first request for the page), against pdftotext -bbox. */
const measureTextPositions = async (
  options: SectionOptions,
  broker: RunningService,
  largeDocumentId: string,
  waitForQuiet: Quiet
) => {
  broker.sampler.setPhase("text positions")
  options.log("text positions")
  const textPositions: Array<TextPositionResult> = []
  const textTargets = [
    ...PAGE_DOCS.map((d) => ({ label: `${d.file} p0`, file: d.file, page: 0 })),
    ...TEXT_PAGES_LARGE.map((page) => ({ label: `400p p${page}`, file: LARGE_DOC, page }))
  ]
  const ids = new Map<string, string>([[LARGE_DOC, largeDocumentId]])
  for (const t of textTargets) {
    if (!ids.has(t.file)) {
      ids.set(
        t.file,
        (await upload(broker.baseUrl, readFileSync(corpusFile(options, t.file)), { documentTitle: t.file })).value
      )
    }
  }
  await waitForQuiet("text positions", broker)
  for (const t of textTargets) {
    const path = `/documents/${encodeURIComponent(ids.get(t.file)!)}/pages/${t.page}/text/position`
    const cold = await getJson<PageTextResult>(broker.baseUrl, path)
    const repeat = await getJson<PageTextResult>(broker.baseUrl, path)
    const runs: Array<number> = []
    for (let i = 0; i < options.runs; i++) {
      runs.push(
        (await runTimed("pdftotext", [
          "-bbox",
          "-f",
          String(t.page + 1),
          "-l",
          String(t.page + 1),
          corpusFile(options, t.file),
          join(options.tmp, "pdftotext.html")
        ])).ms
      )
    }
    textPositions.push({
      label: t.label,
      runs: cold.value.positionTextList.length,
      coldMs: cold.ms,
      repeatMs: repeat.ms,
      pdftotext: summarize(runs)
    })
  }
  return textPositions
}

/**
 * 4. Pages per second over the 400 pages. Two mutool processes on halves run just before and just
 * after the broker, and their mean is the reference, so a drift in the machine's other load during
 * the run weighs on both sides alike.
 */
const measureThroughput = async (
  options: BrokerBenchOptions,
  broker: RunningService,
  largeDocumentId: string,
  waitForQuiet: Quiet
): Promise<BrokerBenchResults["throughput"]> => {
  const { log, throughputPages: pages, concurrency } = options
  const large = corpusFile(options, LARGE_DOC)
  const half = Math.floor(pages / 2)
  const mutoolPair = async (label: string) => {
    await waitForQuiet(`mutool 2x (${label})`, broker)
    broker.sampler.setPhase(`mutool 2x parallel (${label})`)
    const dir = join(options.tmp, `mutool-400p-${label}`)
    mkdirSync(dir, { recursive: true })
    const started = performance.now()
    const halves = await Promise.all([
      runTimed("mutool", ["draw", "-q", "-o", join(dir, "a%d.png"), "-w", String(WIDTH), large, `1-${half}`], {
        cpu: true,
        timeoutMs: 600_000
      }),
      runTimed(
        "mutool",
        ["draw", "-q", "-o", join(dir, "b%d.png"), "-w", String(WIDTH), large, `${half + 1}-${pages}`],
        { cpu: true, timeoutMs: 600_000 }
      )
    ])
    const wallMs = performance.now() - started
    rmSync(dir, { recursive: true, force: true })
    log(`mutool x2 (${label}): ${Math.round(wallMs)} ms`)
    return {
      wallMs,
      cpuMs: halves.every((h) => h.cpuMs !== undefined) ? halves.reduce((sum, h) => sum + (h.cpuMs ?? 0), 0) : null,
      processMs: halves.map((h) => h.ms)
    }
  }
  const mutoolBefore = await mutoolPair("before")

  await waitForQuiet("the broker throughput", broker)
  log(`throughput: ${pages} pages at ${WIDTH} px, client concurrency ${concurrency}`)
  broker.sampler.setPhase("throughput 400p")
  const serverPid = broker.serverPid() ?? -1
  const cpuBefore = processCpuMs(serverPid)
  const mainThreadCpuBefore = threadCpuMs(serverPid, serverPid)
  const started = performance.now()
  const latencies = await pooled(
    pages,
    concurrency,
    async (page) => (await getPageImage(broker.baseUrl, largeDocumentId, page, CACHED_DESCRIPTOR, WIDTH)).ms
  )
  const brokerWallMs = performance.now() - started
  const brokerCpuMs = processCpuMs(serverPid) - cpuBefore
  const brokerMainThreadCpuMs = threadCpuMs(serverPid, serverPid) - mainThreadCpuBefore
  log(`broker: ${Math.round(brokerWallMs)} ms for ${pages} pages`)

  const mutoolAfter = await mutoolPair("after")
  broker.sampler.setPhase("after throughput")
  const mutoolWallMs = (mutoolBefore.wallMs + mutoolAfter.wallMs) / 2
  return {
    pages,
    concurrency,
    brokerWallMs,
    brokerPagesPerSecond: pages / (brokerWallMs / 1000),
    brokerCpuMs,
    brokerMainThreadCpuMs,
    brokerLatency: summarize(latencies),
    mutoolWallMs,
    mutoolPagesPerSecond: pages / (mutoolWallMs / 1000),
    mutoolCpuMs: mutoolBefore.cpuMs !== null && mutoolAfter.cpuMs !== null
      ? (mutoolBefore.cpuMs + mutoolAfter.cpuMs) / 2
      : null,
    mutoolRunsMs: [mutoolBefore.wallMs, mutoolAfter.wallMs],
    otherCoresDuringBroker: broker.sampler.cpuByPhase.get("throughput 400p")?.otherCores ?? Number.NaN,
    otherCoresDuringMutool: ["before", "after"].map((l) =>
      broker.sampler.cpuByPhase.get(`mutool 2x parallel (${l})`)?.otherCores ?? Number.NaN
    ),
    mutoolProcessMs: [...mutoolBefore.processMs, ...mutoolAfter.processMs]
  }
}

/** 5. What a stopped broker's sampler saw, with its RSS at ready and its own high-water mark. */
const brokerMemory = (
  label: string,
  broker: RunningService,
  rssAtReadyKiB: number,
  serverHwmKiB: number
): BrokerMemory => {
  const s = broker.sampler
  return {
    label,
    startupMs: broker.startupMs,
    rssAtReadyKiB,
    serverHwmKiB,
    peakServerRssKiB: s.peakServerRssKiB,
    peakTreeRssKiB: s.peakTreeRssKiB,
    maxThreads: s.maxThreads,
    peakByPhase: Object.fromEntries(s.peakByPhase),
    cpuByPhase: Object.fromEntries(s.cpuByPhase),
    peakTree: s.peakTree,
    startupPeakTree: s.startupPeakTree,
    lastTree: s.lastTree
  }
}

/** Issue 19's target for a warm page image, as a ratio to a whole `mutool draw` process of the same page. */
const warmPageTarget = (page: PageImageResult, most: number): Target => {
  const times = ratio(page.fresh.median, page.mutool.median)
  return {
    name: `Warm 1240 px ${page.key} page (fresh render, open document) ≤ ${most.toFixed(1)}× mutool draw`,
    figure: `${Math.round(page.fresh.median)} ms vs ${Math.round(page.mutool.median)} ms = ${times.toFixed(2)}× ` +
      `(CPU ${Math.round(page.cpu.fresh.median)} vs ${Math.round(page.cpu.mutool.median)} ms; from cache: ${
        ratio(page.cached.median, page.mutool.median).toFixed(2)
      }×)`,
    met: times <= most
  }
}

/** Issue 19's target for text positions: the median over the pages of each page's ratio to a `pdftotext -bbox` process. */
const textPositionTarget = (pages: ReadonlyArray<TextPositionResult>): Target => {
  const ratios = pages.map((p) => ratio(p.coldMs, p.pdftotext.median))
  const times = median(ratios)
  return {
    name: "Text positions of a page (cold) ≤ 1.0× a pdftotext -bbox process (median of the pages' ratios)",
    figure: `${times.toFixed(2)}× (per page: ${ratios.map((r) => r.toFixed(2)).join(", ")})`,
    met: times <= 1.0
  }
}

const targetsOf = (
  pageImages: ReadonlyArray<PageImageResult>,
  textPositions: ReadonlyArray<TextPositionResult>,
  fresh: ReadonlyArray<FreshUpload>,
  throughput: BrokerBenchResults["throughput"],
  main: BrokerMemory
): Array<Target> => {
  const layoutMedian = median(fresh.map((f) => f.layoutAfterUploadMs))
  const imageMedian = median(fresh.map((f) => f.firstImageAfterUploadMs))
  const throughputRatio = ratio(throughput.brokerPagesPerSecond, throughput.mutoolPagesPerSecond)
  const peakKiB = Math.max(main.serverHwmKiB, main.peakServerRssKiB)
  return [
    warmPageTarget(pageImages.find((p) => p.key === "text")!, 0.5),
    warmPageTarget(pageImages.find((p) => p.key === "vector")!, 1.0),
    textPositionTarget(textPositions),
    {
      name: "400-page layout ≤ 100 ms after upload",
      figure: `median ${Math.round(layoutMedian)} ms (${
        fresh.map((f) => Math.round(f.layoutAfterUploadMs)).join(", ")
      } ms over ${fresh.length} fresh uploads)`,
      met: layoutMedian <= 100
    },
    {
      name: "First page image ≤ 300 ms after upload",
      figure: `median ${Math.round(imageMedian)} ms (${
        fresh.map((f) => Math.round(f.firstImageAfterUploadMs)).join(", ")
      } ms over ${fresh.length} fresh uploads)`,
      met: imageMedian <= 300
    },
    {
      name: "Pages/s over 400 pages ≥ 1.0× two mutool draw processes",
      figure:
        `${throughput.brokerPagesPerSecond.toFixed(2)} vs ${throughput.mutoolPagesPerSecond.toFixed(2)} pages/s = ${
          throughputRatio.toFixed(2)
        }×` +
        (throughput.mutoolCpuMs === null
          ? ""
          : ` (CPU per page ${Math.round(throughput.brokerCpuMs / throughput.pages)} vs ${
            Math.round(throughput.mutoolCpuMs / throughput.pages)
          } ms)`),
      met: throughputRatio >= 1.0
    },
    {
      name: "Peak RSS ≤ 1 GB (broker server process, worker threads included)",
      figure: `${Math.round(peakKiB / 1024)} MiB (VmHWM); whole process tree peak ${
        Math.round(main.peakTreeRssKiB / 1024)
      } MiB; ${Math.round(main.rssAtReadyKiB / 1024)} MiB already at ready`,
      met: peakKiB <= 1024 * 1024
    }
  ]
}

export const runBrokerBench = async (options: BrokerBenchOptions): Promise<BrokerBenchResults> => {
  const { log, machine } = options
  for (const name of [...PAGE_DOCS.map((d) => d.file), LARGE_DOC]) {
    if (!existsSync(corpusFile(options, name))) throw new Error(`Missing corpus file ${corpusFile(options, name)}`)
  }
  const started = performance.now()
  log(
    `${machine.nproc} cores, node ${machine.node}, ${machine.mutool}, ${machine.pdftoppm}; load ${
      machine.loadAverageAtStart.join(" ")
    }`
  )
  const quietWaits: Array<QuietWait> = []
  const waitForQuiet: Quiet = async (before, broker) => {
    quietWaits.push(await options.waitForQuiet(before, broker.rootPid))
  }
  const brokers: Array<BrokerMemory> = []
  const fresh: Array<FreshUpload> = []

  // ---- Main broker -------------------------------------------------------------------------
  log("starting the broker (fresh DATA_DIR, embedded PGlite)")
  const broker = await startBroker({
    cwd: options.codeRoot,
    dataDir: join(options.tmp, "data-main"),
    logFile: join(options.tmp, "broker-main.log")
  })
  let stopped = false
  try {
    const idle = processMemory(broker.serverPid() ?? -1)
    log(
      `ready in ${Math.round(broker.startupMs)} ms on ${broker.baseUrl}; server RSS at ready ${
        Math.round((idle?.rssKiB ?? 0) / 1024)
      } MiB`
    )

    // 1. Fresh 400-page upload (nothing in DATA_DIR yet).
    log(`fresh upload of ${LARGE_DOC}`)
    const first = await freshLargeUpload(options, broker, "main broker", waitForQuiet)
    fresh.push(first)
    // Same bytes again under a new ID: the broker dedupes by content hash (no analysis, page 0 cached).
    broker.sampler.setPhase("re-upload-400p")
    const again = await upload(broker.baseUrl, readFileSync(corpusFile(options, LARGE_DOC)), {
      documentTitle: "bench dedup"
    })
    const againLayout = await getJson<LayoutResult>(
      broker.baseUrl,
      `/documents/${encodeURIComponent(again.value)}/layout`
    )
    const againImage = await getPageImage(broker.baseUrl, again.value, 0, CACHED_DESCRIPTOR, WIDTH)
    const dedupUpload = {
      uploadMs: again.ms,
      layoutAfterUploadMs: againLayout.endedAt - again.endedAt,
      firstImageAfterUploadMs: againImage.endedAt - again.endedAt
    }

    // Text before the page images: a page the broker draws has its text read ahead (TEXT_AHEAD_MIN_WIDTH).
    const textPositions = await measureTextPositions(options, broker, first.documentId, waitForQuiet)
    const pageImages = await measurePageImages(options, broker, waitForQuiet)
    const throughput = await measureThroughput(options, broker, first.documentId, waitForQuiet)

    const { serverHwmKiB } = await broker.stop()
    stopped = true
    brokers.push(brokerMemory("main broker", broker, idle?.rssKiB ?? Number.NaN, serverHwmKiB))
    const memoryTimeline = broker.sampler.samples.filter((_, i) => i % 5 === 0)

    // ---- Memory soak on a brand-new broker ----------------------------------------------------
    let soak: BrokerBenchResults["soak"] = null
    if (options.soak) {
      await options.waitForQuiet("the memory soak", undefined)
      soak = await runSoak({
        codeRoot: options.codeRoot,
        corpus: options.corpus,
        tmp: options.tmp,
        concurrency: options.concurrency,
        maxPagesPerFile: options.soakPages,
        log
      })
    }

    const afterQuiet = await measureAfterQuiet(options, Math.max(2, options.runs))

    // ---- More fresh brokers for the upload figures -------------------------------------------
    for (let r = 2; r <= options.freshRepeats; r++) {
      log(`fresh broker ${r}/${options.freshRepeats} for the 400-page upload`)
      const extra = await startBroker({
        cwd: options.codeRoot,
        dataDir: join(options.tmp, `data-fresh-${r}`),
        logFile: join(options.tmp, `broker-fresh-${r}.log`)
      })
      try {
        const ready = processMemory(extra.serverPid() ?? -1)
        fresh.push(await freshLargeUpload(options, extra, `fresh broker ${r}`, waitForQuiet))
        const { serverHwmKiB: hwm } = await extra.stop()
        brokers.push(brokerMemory(`fresh broker ${r}`, extra, ready?.rssKiB ?? Number.NaN, hwm))
      } catch (error) {
        await extra.stop()
        throw error
      }
    }

    const results: BrokerBenchResults = {
      machine: { ...machine, loadAverageAtEnd: loadavg().map((l) => Math.round(l * 100) / 100) },
      settings: {
        runs: options.runs,
        concurrency: options.concurrency,
        freshRepeats: options.freshRepeats,
        width: WIDTH,
        gnuTime: hasGnuTime,
        quietBudgetSeconds: options.quietBudgetMs / 1000,
        quietCores: QUIET_CORES
      },
      durationSeconds: Math.round((performance.now() - started) / 1000),
      freshUploads: fresh,
      dedupUpload,
      pageImages,
      textPositions,
      throughput,
      brokers,
      targets: [
        ...targetsOf(pageImages, textPositions, fresh, throughput, brokers[0]!),
        ...(soak ? soakTargets(soak) : [])
      ],
      soak,
      afterQuiet,
      quietWaits,
      memoryTimeline
    }
    const { jsonPath, mdPath } = writeSectionReport(options.outDir, "broker", results, renderBrokerMarkdown)
    log(`wrote ${mdPath} and ${jsonPath} (${results.durationSeconds} s)`)
    return results
  } finally {
    if (!stopped) await broker.stop()
  }
}
