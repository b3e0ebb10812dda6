/**
 * Section "conversions" of `npm run bench`: conversion orders measured through the real broker
 * (`npx tsx src/main.ts broker`, embedded PGlite, a fresh DATA_DIR under bench/tmp/), with the
 * reference tools run as whole processes in the same run.
 *
 *  1. upload → first page image (GET /documents/{id}/pages/0/image at the default descriptor,
 *     which waits for the conversion order) and upload → layout of a 2.4 MB HTML page and a
 *     3.2 MB text, median of BENCH_RUNS runs each. Renditions are content-addressed, so every run
 *     uploads different bytes (a comment appended to the HTML, a last line to the text). Reference,
 *     interleaved run by run: a cold `soffice --headless --convert-to pdf` of the same bytes (on a
 *     profile initialised by an untimed run, as in office.ts) followed by
 *     `pdftoppm -r 150 -f 1 -l 1 -png`.
 *  2. throughput: 8 distinct small office files uploaded at once, time until all 8 layouts answer,
 *     in documents per minute, with the broker's order records (GET /conversions/{id}) summarised.
 *     Each batch runs on a brand-new broker (fresh DATA_DIR), so nothing is deduplicated although
 *     the ZIP and OLE files cannot be made unique by appending bytes. For context the same 8 files
 *     are converted once by cold soffice runs one after another.
 *  3. peak RSS of every broker's process tree (npx, tsx, the server, the LibreOffice driver and
 *     soffice.bin), sampled every 100 ms.
 *
 * Writes bench/results/conversions-<date>.md and .json (a smoke run, BENCH_RUNS below 3, writes to
 * bench/tmp/smoke-results/ instead) and returns the results whose summary is printed at the end.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { basename, extname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { type RunningBroker, startBroker } from "./broker.ts"
import { getJson, getPageImage, type LayoutResult, upload } from "./http.ts"
import { commandLine, processCpuMs, processMemory, processTree, type PhaseCpu, runTimed, shortCommand, toolVersion } from "./proc.ts"
import { cores, otherCoresOverall, phaseTable, type SectionOptions, spread, table, writeSectionReport } from "./report.ts"
import { fmtRatio, median, mib, ms, ratio, type Summary, summarize } from "./stats.ts"

export interface QuietWait {
  readonly before: string
  readonly waitedMs: number
  readonly otherCores: number
}

export interface ConversionsBenchOptions extends SectionOptions {
  /** bench.ts's wait for a quiet machine (its budget is shared by the whole run); the broker tree rooted at the pid is not counted. */
  readonly waitForQuiet: (before: string, brokerRoot: number | undefined) => Promise<QuietWait>
}

/** The broker's default page image (DEFAULT_PAGE_IMAGE, set explicitly for the benchmark's brokers). */
const DESCRIPTOR = "IM_1240_0"
const WIDTH = 1240

const LARGE = [
  {
    key: "html",
    file: "example-10k.html",
    label: "example-10k.html (2.4 MB HTML)",
    unique: (bytes: Buffer, run: number) => Buffer.concat([bytes, Buffer.from(`\n<!-- run ${run} -->\n`)])
  },
  {
    key: "text",
    file: "book-war-and-peace-1225p.txt",
    label: "book-war-and-peace-1225p.txt (3.2 MB text)",
    unique: (bytes: Buffer, run: number) => Buffer.concat([bytes, Buffer.from(`${bytes.at(-1) === 0x0a ? "" : "\n"}bench run ${run}\n`)])
  }
] as const

const BATCH = [
  "fake.odt",
  "docx-tables.docx",
  "fake-doc-emphasized-text.doc",
  "eng_spa_mult.rtf",
  "fake-power-point.ppt",
  "fake-power-point-table.pptx",
  "tests-example.xls",
  "contains-pictures.docx"
] as const

/** Below this many cores the broker's own tree counts as idle (health checks only). */
const BROKER_IDLE_CORES = 0.2

const pdfPages = (file: string) => Number(/Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [file], { encoding: "utf8" }))?.[1] ?? 0)
const isLibreOffice = (command: string) => /soffice|office-driver/.test(command)
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/** User + system CPU of the live processes of a tree (LibreOffice included), in milliseconds. */
const treeCpuMs = (root: number) =>
  processTree(root).reduce((sum, pid) => {
    const cpu = processCpuMs(pid)
    return sum + (Number.isFinite(cpu) ? cpu : 0)
  }, 0)

/** The same, of the tree's LibreOffice processes alone (the Python driver and soffice.bin). */
const libreOfficeCpuMs = (root: number) =>
  processTree(root).reduce((sum, pid) => {
    const cpu = isLibreOffice(commandLine(pid)) ? processCpuMs(pid) : 0
    return sum + (Number.isFinite(cpu) ? cpu : 0)
  }, 0)

/**
 * Waits (up to `maxMs`) until the broker's tree is idle, so the background work an upload leaves
 * behind (analysis, warm-up renders) does not share the cores with the next measurement.
 */
const waitForBrokerIdle = async (broker: RunningBroker, maxMs = 60_000) => {
  const started = performance.now()
  while (performance.now() - started < maxMs) {
    const before = treeCpuMs(broker.rootPid)
    await sleep(1_000)
    if (Math.max(0, treeCpuMs(broker.rootPid) - before) / 1_000 < BROKER_IDLE_CORES) break
  }
  return performance.now() - started
}

interface DocumentMetadata {
  readonly conversionOrderIds: Readonly<Record<string, { readonly id: string }>>
}

interface ConversionOrderRecord {
  readonly conversionOrderId: { readonly id: string }
  readonly currentState: string
  readonly queuedDate: string
  readonly processedDate: string | null
  readonly processingTime: number | null
  readonly queuedTime?: number
  readonly errorMessage: string | null
}

/** The PDF conversion order of a document, as GET /conversions/{id} gives it. */
const conversionOrder = async (broker: RunningBroker, documentId: string) => {
  const metadata = await getJson<DocumentMetadata>(broker.baseUrl, `/documents/${encodeURIComponent(documentId)}`)
  const ref = metadata.value.conversionOrderIds.pdf ?? Object.values(metadata.value.conversionOrderIds)[0]
  if (!ref) throw new Error(`Document ${documentId} has no conversion order`)
  const order = (await getJson<ConversionOrderRecord>(broker.baseUrl, `/conversions/${encodeURIComponent(ref.id)}`)).value
  if (order.currentState !== "PROCESSED") throw new Error(`Conversion order ${ref.id} of ${documentId} is ${order.currentState}: ${order.errorMessage ?? ""}`)
  return order
}

export interface BrokerRecord {
  readonly label: string
  readonly startupMs: number
  readonly rssAtReadyKiB: number
  readonly serverHwmKiB: number
  readonly peakServerRssKiB: number
  /** Sampled peak of the whole tree, startup included (the embedded database is initialised by a child then). */
  readonly peakTreeRssKiB: number
  /** Sampled peak of the whole tree after startup: while the broker converted and served. */
  readonly peakTreeAfterStartupKiB: number
  readonly peakTreeAfterStartupPhase: string
  /** Of the tree's peak: LibreOffice (its driver and soffice.bin). */
  readonly peakLibreOfficeRssKiB: number
  /** The kernel's high-water mark (VmHWM) of each LibreOffice process alive at the end, read just before the broker stopped. */
  readonly libreOfficeHwm: ReadonlyArray<{ readonly command: string; readonly hwmKiB: number }>
  readonly maxThreads: number
  /** First conversion after startup (a tiny text, untimed warm-up: the LibreOffice pool may still be starting). */
  readonly warmUpMs: number
  readonly peakByPhase: Readonly<Record<string, { readonly serverRssKiB: number; readonly treeRssKiB: number }>>
  readonly cpuByPhase: Readonly<Record<string, PhaseCpu>>
  readonly peakTree: ReadonlyArray<{ readonly command: string; readonly rssKiB: number }>
}

export interface LargeRun {
  readonly run: number
  readonly documentId: string
  readonly bytes: number
  /** Which side ran first in this round (they alternate). */
  readonly first: "broker" | "reference"
  readonly uploadMs: number
  readonly layoutAfterUploadMs: number
  readonly imageAfterUploadMs: number
  /** From the start of the upload request to the last byte of the page image. */
  readonly uploadToImageMs: number
  readonly uploadToLayoutMs: number
  readonly pages: number
  readonly imageBytes: number
  readonly order: { readonly processingTime: number | null; readonly queuedTime: number | null }
  /** CPU of the broker's live process tree (server + LibreOffice) from upload to image. */
  readonly brokerCpuMs: number
  /** Of which LibreOffice's processes. */
  readonly libreOfficeCpuMs: number
  readonly sofficeMs: number
  readonly pdftoppmMs: number
  readonly referenceMs: number
  /** user+system of soffice and pdftoppm (GNU time), when available. */
  readonly referenceCpuMs: number | null
  readonly referencePages: number
  readonly otherCoresBroker: number
  readonly otherCoresReference: number
  readonly brokerIdleWaitMs: number
}

export interface LargeResult {
  readonly key: string
  readonly label: string
  readonly file: string
  readonly runs: ReadonlyArray<LargeRun>
  readonly uploadToImage: Summary
  readonly uploadToLayout: Summary
  readonly imageAfterUpload: Summary
  readonly upload: Summary
  readonly processingTime: Summary
  readonly reference: Summary
  readonly soffice: Summary
  readonly pdftoppm: Summary
  readonly brokerOverReference: number
  readonly brokerCpu: Summary
  readonly libreOfficeCpu: Summary
  readonly referenceCpu: Summary | null
  readonly pages: number
  readonly referencePages: number
}

export interface BatchRun {
  readonly run: number
  readonly broker: string
  readonly wallMs: number
  readonly docsPerMinute: number
  readonly otherCores: number
  readonly documents: ReadonlyArray<{
    readonly file: string
    readonly uploadMs: number
    /** From the start of the batch to this document's layout. */
    readonly layoutMs: number
    readonly pages: number
    readonly processingTime: number | null
    readonly queuedTime: number | null
  }>
}

export interface ConversionsBenchResults {
  readonly machine: Readonly<Record<string, unknown>>
  readonly settings: {
    readonly runs: number
    readonly descriptor: string
    readonly officeInstances: number
    readonly orderWorkers: number
    readonly batch: ReadonlyArray<string>
    readonly brokerIdleCores: number
  }
  readonly durationSeconds: number
  readonly large: ReadonlyArray<LargeResult>
  readonly batch: {
    readonly runs: ReadonlyArray<BatchRun>
    readonly wall: Summary
    readonly docsPerMinute: number
    readonly latency: Summary
    readonly processingTime: Summary
    readonly queuedTime: Summary
    readonly processingByFile: ReadonlyArray<{ readonly file: string; readonly pages: number; readonly processingTime: Summary; readonly queuedTime: Summary }>
    readonly coldSequentialMs: number
    readonly coldDocsPerMinute: number
  }
  readonly memory: {
    /** Over every broker of the section, startup included. */
    readonly peakTreeRssKiB: number
    readonly peakTreeBroker: string
    /** Over every broker, after startup (conversions and requests). */
    readonly peakTreeAfterStartupKiB: number
    readonly peakTreeAfterStartupBroker: string
    readonly peakServerRssKiB: number
    /** Largest VmHWM of one broker's LibreOffice processes (driver + soffice.bin, summed). */
    readonly peakLibreOfficeHwmKiB: number
  }
  readonly brokers: ReadonlyArray<BrokerRecord>
  readonly quietWaits: ReadonlyArray<QuietWait>
}


export const runConversionsBench = async (options: ConversionsBenchOptions): Promise<ConversionsBenchResults> => {
  const { log, runs } = options
  const started = performance.now()
  for (const name of [...LARGE.map((l) => l.file), ...BATCH]) {
    if (!existsSync(join(options.corpus, name))) throw new Error(`Missing corpus file ${join(options.corpus, name)}`)
  }
  const quietWaits: Array<QuietWait> = []
  const waitForQuiet = async (before: string, broker: RunningBroker | undefined) => {
    quietWaits.push(await options.waitForQuiet(before, broker?.rootPid))
  }
  const brokers: Array<BrokerRecord> = []
  // The benchmark's brokers run with the default page image spelled out, so the descriptor asked for is the default.
  const brokerEnv = { DEFAULT_PAGE_IMAGE: DESCRIPTOR }
  const officeInstances = Number(process.env.OFFICE_INSTANCES ?? Math.max(1, Math.floor((options.machine.nproc as number) / 2)))
  const orderWorkers = Number(process.env.ORDER_WORKERS ?? Math.max(2, options.machine.nproc as number))

  let warmUps = 0
  const launch = async (label: string, dir: string) => {
    log(`starting ${label} (fresh DATA_DIR, embedded PGlite)`)
    const broker = await startBroker({ cwd: options.codeRoot, dataDir: join(options.tmp, `data-${dir}`), logFile: join(options.tmp, `broker-${dir}.log`), env: brokerEnv })
    const ready = processMemory(broker.serverPid() ?? -1)
    // An untimed first conversion (a tiny text nobody else uploads): the LibreOffice pool starts with the broker.
    broker.sampler.setPhase("warm-up conversion")
    const t = performance.now()
    try {
      const { value: id } = await upload(broker.baseUrl, Buffer.from(`Warm-up ${warmUps++} ${new Date().toISOString()}\n`), { documentTitle: "bench warm-up" })
      await getJson<LayoutResult>(broker.baseUrl, `/documents/${encodeURIComponent(id)}/layout`)
    } catch (error) {
      await broker.stop()
      throw error
    }
    const warmUpMs = performance.now() - t
    await waitForBrokerIdle(broker, 20_000)
    broker.sampler.setPhase("idle")
    log(`${label} ready in ${Math.round(broker.startupMs)} ms; warm-up conversion ${Math.round(warmUpMs)} ms`)
    const finish = async () => {
      const s = broker.sampler
      const libreOfficeHwm = processTree(broker.rootPid)
        .map((pid) => ({ command: commandLine(pid), hwmKiB: processMemory(pid)?.hwmKiB ?? Number.NaN }))
        .filter((p) => isLibreOffice(p.command) && Number.isFinite(p.hwmKiB))
        .map((p) => ({ command: shortCommand(p.command), hwmKiB: p.hwmKiB }))
      const { serverHwmKiB } = await broker.stop()
      const [afterStartupPhase, afterStartup] = [...s.peakByPhase].filter(([phase]) => phase !== "startup")
        .reduce<[string, number]>((a, [phase, p]) => (p.treeRssKiB > a[1] ? [phase, p.treeRssKiB] : a), ["", 0])
      brokers.push({
        label,
        startupMs: broker.startupMs,
        rssAtReadyKiB: ready?.rssKiB ?? Number.NaN,
        serverHwmKiB,
        peakServerRssKiB: s.peakServerRssKiB,
        peakTreeRssKiB: s.peakTreeRssKiB,
        peakTreeAfterStartupKiB: afterStartup,
        peakTreeAfterStartupPhase: afterStartupPhase,
        peakLibreOfficeRssKiB: s.peakTree.filter((p) => isLibreOffice(p.command)).reduce((sum, p) => sum + p.rssKiB, 0),
        libreOfficeHwm,
        maxThreads: s.maxThreads,
        warmUpMs,
        peakByPhase: Object.fromEntries(s.peakByPhase),
        cpuByPhase: Object.fromEntries(s.cpuByPhase),
        peakTree: s.peakTree
      })
    }
    return { broker, finish }
  }

  // ---- Cold reference: one soffice process per conversion, on a profile initialised beforehand --
  const refDir = join(options.tmp, "reference")
  const coldProfile = join(refDir, "cold-profile")
  mkdirSync(refDir, { recursive: true })
  const cold = (input: string, outDir: string) =>
    runTimed("soffice", [`-env:UserInstallation=${pathToFileURL(coldProfile).href}`, "--headless", "--convert-to", "pdf", "--outdir", outDir, input], {
      cpu: true,
      timeoutMs: 300_000
    })
  log("initialising the profile of the cold soffice (untimed)")
  await cold(join(options.corpus, BATCH[0]), join(refDir, "init"))

  // ---- 1. Large HTML and text: upload → first page image, against soffice + pdftoppm -------------
  const main = await launch("main broker", "main")
  let mainStopped = false
  const large: Array<LargeResult> = []
  try {
    const broker = main.broker
    for (const doc of LARGE) {
      const original = readFileSync(join(options.corpus, doc.file))
      const results: Array<LargeRun> = []
      for (let run = 1; run <= runs; run++) {
        const bytes = doc.unique(original, run)
        const runDir = join(refDir, `${doc.key}-${run}`)
        mkdirSync(runDir, { recursive: true })
        const input = join(runDir, doc.file)
        writeFileSync(input, bytes)
        const idleWaitMs = await waitForBrokerIdle(broker)
        await waitForQuiet(`${doc.file} run ${run}`, broker)

        const viaBroker = async () => {
          const phase = `${doc.key} run ${run}: broker`
          broker.sampler.setPhase(phase)
          const cpuBefore = treeCpuMs(broker.rootPid)
          const officeCpuBefore = libreOfficeCpuMs(broker.rootPid)
          const uploadStarted = performance.now()
          const up = await upload(broker.baseUrl, bytes, { documentTitle: `bench ${doc.file} run ${run}` })
          const id = up.value
          const [layout, image] = await Promise.all([
            getJson<LayoutResult>(broker.baseUrl, `/documents/${encodeURIComponent(id)}/layout`),
            getPageImage(broker.baseUrl, id, 0, DESCRIPTOR, WIDTH)
          ])
          const brokerCpuMs = treeCpuMs(broker.rootPid) - cpuBefore
          const officeCpuMs = libreOfficeCpuMs(broker.rootPid) - officeCpuBefore
          broker.sampler.setPhase(`${doc.key} run ${run}: after`)
          const order = await conversionOrder(broker, id)
          return {
            documentId: id,
            uploadMs: up.ms,
            layoutAfterUploadMs: layout.endedAt - up.endedAt,
            imageAfterUploadMs: image.endedAt - up.endedAt,
            uploadToImageMs: image.endedAt - uploadStarted,
            uploadToLayoutMs: layout.endedAt - uploadStarted,
            pages: layout.value.pageDimensionsList.length,
            imageBytes: image.value,
            order: { processingTime: order.processingTime, queuedTime: order.queuedTime ?? null },
            brokerCpuMs,
            libreOfficeCpuMs: officeCpuMs,
            otherCoresBroker: broker.sampler.cpuByPhase.get(phase)?.otherCores ?? Number.NaN
          }
        }
        const viaReference = async () => {
          const phase = `${doc.key} run ${run}: reference`
          broker.sampler.setPhase(phase)
          const soffice = await cold(input, runDir)
          const pdf = join(runDir, `${basename(doc.file, extname(doc.file))}.pdf`)
          const ppm = await runTimed("pdftoppm", ["-r", "150", "-f", "1", "-l", "1", "-png", pdf, join(runDir, "page")], { cpu: true })
          broker.sampler.setPhase("idle")
          if (!readdirSync(runDir).some((f) => f.startsWith("page") && f.endsWith(".png"))) throw new Error(`pdftoppm made no PNG of ${pdf}`)
          return {
            sofficeMs: soffice.ms,
            pdftoppmMs: ppm.ms,
            referenceMs: soffice.ms + ppm.ms,
            referenceCpuMs: soffice.cpuMs !== undefined && ppm.cpuMs !== undefined ? soffice.cpuMs + ppm.cpuMs : null,
            referencePages: pdfPages(pdf),
            otherCoresReference: broker.sampler.cpuByPhase.get(phase)?.otherCores ?? Number.NaN
          }
        }
        // The two sides alternate which goes first, so a drift in the machine's load weighs on both.
        const brokerFirst = run % 2 === 1
        let b: Awaited<ReturnType<typeof viaBroker>>
        let r: Awaited<ReturnType<typeof viaReference>>
        if (brokerFirst) {
          b = await viaBroker()
          await waitForBrokerIdle(broker)
          r = await viaReference()
        } else {
          r = await viaReference()
          b = await viaBroker()
        }
        broker.sampler.setPhase("idle")
        results.push({ run, bytes: bytes.length, first: brokerFirst ? "broker" : "reference", ...b, ...r, brokerIdleWaitMs: idleWaitMs })
        log(`${doc.file} run ${run}: broker upload→image ${Math.round(b.uploadToImageMs)} ms (layout ${Math.round(b.uploadToLayoutMs)} ms, ${b.pages} pages, order processing ${b.order.processingTime} ms); ` +
          `soffice+pdftoppm ${Math.round(r.referenceMs)} ms (${r.referencePages} pages)`)
      }
      const uploadToImage = summarize(results.map((x) => x.uploadToImageMs))
      const reference = summarize(results.map((x) => x.referenceMs))
      const cpuRuns = results.map((x) => x.referenceCpuMs)
      large.push({
        key: doc.key,
        label: doc.label,
        file: doc.file,
        runs: results,
        uploadToImage,
        uploadToLayout: summarize(results.map((x) => x.uploadToLayoutMs)),
        imageAfterUpload: summarize(results.map((x) => x.imageAfterUploadMs)),
        upload: summarize(results.map((x) => x.uploadMs)),
        processingTime: summarize(results.map((x) => x.order.processingTime ?? Number.NaN).filter(Number.isFinite)),
        reference,
        soffice: summarize(results.map((x) => x.sofficeMs)),
        pdftoppm: summarize(results.map((x) => x.pdftoppmMs)),
        brokerOverReference: ratio(uploadToImage.median, reference.median),
        brokerCpu: summarize(results.map((x) => x.brokerCpuMs)),
        libreOfficeCpu: summarize(results.map((x) => x.libreOfficeCpuMs)),
        referenceCpu: cpuRuns.every((c): c is number => c !== null) ? summarize(cpuRuns) : null,
        pages: median(results.map((x) => x.pages)),
        referencePages: median(results.map((x) => x.referencePages))
      })
    }
    mainStopped = true
    await main.finish()
  } finally {
    if (!mainStopped) await main.broker.stop()
  }

  // ---- 2. Throughput: 8 small files at once, each batch on a brand-new broker ------------------
  const batchBytes = BATCH.map((file) => ({ file, bytes: readFileSync(join(options.corpus, file)) }))
  const batchRuns: Array<BatchRun> = []
  for (let run = 1; run <= runs; run++) {
    const label = `batch broker ${run}`
    const { broker, finish } = await launch(label, `batch-${run}`)
    let finished = false
    try {
      await waitForQuiet(`batch ${run}`, broker)
      const phase = `batch of ${BATCH.length}`
      broker.sampler.setPhase(phase)
      const batchStarted = performance.now()
      const done = await Promise.all(
        batchBytes.map(async ({ file, bytes }) => {
          const up = await upload(broker.baseUrl, bytes, { documentTitle: `bench batch ${file}` })
          const layout = await getJson<LayoutResult>(broker.baseUrl, `/documents/${encodeURIComponent(up.value)}/layout`)
          return { file, id: up.value, uploadMs: up.ms, layoutMs: layout.endedAt - batchStarted, pages: layout.value.pageDimensionsList.length }
        })
      )
      const wallMs = Math.max(...done.map((d) => d.layoutMs))
      broker.sampler.setPhase("after batch")
      const documents: Array<BatchRun["documents"][number]> = []
      for (const d of done) {
        const order = await conversionOrder(broker, d.id)
        documents.push({ file: d.file, uploadMs: d.uploadMs, layoutMs: d.layoutMs, pages: d.pages, processingTime: order.processingTime, queuedTime: order.queuedTime ?? null })
      }
      batchRuns.push({
        run,
        broker: label,
        wallMs,
        docsPerMinute: (BATCH.length / (wallMs / 1000)) * 60,
        otherCores: broker.sampler.cpuByPhase.get(phase)?.otherCores ?? Number.NaN,
        documents
      })
      log(`batch ${run}: ${BATCH.length} layouts in ${Math.round(wallMs)} ms (${((BATCH.length / (wallMs / 1000)) * 60).toFixed(0)} docs/min)`)
      finished = true
      await finish()
    } finally {
      if (!finished) await broker.stop()
    }
  }

  // Context: the same 8 files through cold soffice, one after another (two cannot share a profile).
  await waitForQuiet("the cold sequential batch", undefined)
  const coldBatchDir = join(refDir, "batch")
  const coldStarted = performance.now()
  for (const file of BATCH) await cold(join(options.corpus, file), coldBatchDir)
  const coldSequentialMs = performance.now() - coldStarted
  log(`cold soffice, one after another: ${Math.round(coldSequentialMs)} ms for ${BATCH.length} files`)

  const allDocs = batchRuns.flatMap((r) => r.documents)
  const finite = (values: ReadonlyArray<number | null>) => values.filter((v): v is number => v !== null && Number.isFinite(v))
  const wall = summarize(batchRuns.map((r) => r.wallMs))
  const peakBroker = brokers.reduce((a, b) => (b.peakTreeRssKiB > a.peakTreeRssKiB ? b : a), brokers[0]!)
  const workPeakBroker = brokers.reduce((a, b) => (b.peakTreeAfterStartupKiB > a.peakTreeAfterStartupKiB ? b : a), brokers[0]!)
  const libreOfficeHwm = (b: BrokerRecord) => b.libreOfficeHwm.reduce((sum, p) => sum + p.hwmKiB, 0)
  const results: ConversionsBenchResults = {
    machine: {
      ...options.machine,
      soffice: toolVersion("soffice", ["--version"]),
      loadAverageAtEnd: loadavg().map((l) => Math.round(l * 100) / 100)
    },
    settings: { runs, descriptor: DESCRIPTOR, officeInstances, orderWorkers, batch: BATCH, brokerIdleCores: BROKER_IDLE_CORES },
    durationSeconds: Math.round((performance.now() - started) / 1000),
    large,
    batch: {
      runs: batchRuns,
      wall,
      docsPerMinute: (BATCH.length / (wall.median / 1000)) * 60,
      latency: summarize(allDocs.map((d) => d.layoutMs)),
      processingTime: summarize(finite(allDocs.map((d) => d.processingTime))),
      queuedTime: summarize(finite(allDocs.map((d) => d.queuedTime))),
      processingByFile: BATCH.map((file) => {
        const docs = allDocs.filter((d) => d.file === file)
        return { file, pages: median(docs.map((d) => d.pages)), processingTime: summarize(finite(docs.map((d) => d.processingTime))), queuedTime: summarize(finite(docs.map((d) => d.queuedTime))) }
      }),
      coldSequentialMs,
      coldDocsPerMinute: (BATCH.length / (coldSequentialMs / 1000)) * 60
    },
    memory: {
      peakTreeRssKiB: peakBroker.peakTreeRssKiB,
      peakTreeBroker: peakBroker.label,
      peakTreeAfterStartupKiB: workPeakBroker.peakTreeAfterStartupKiB,
      peakTreeAfterStartupBroker: `${workPeakBroker.label}, ${workPeakBroker.peakTreeAfterStartupPhase}`,
      peakServerRssKiB: Math.max(...brokers.map((b) => Math.max(b.serverHwmKiB, b.peakServerRssKiB))),
      peakLibreOfficeHwmKiB: Math.max(...brokers.map(libreOfficeHwm))
    },
    brokers,
    quietWaits
  }
  const { jsonPath, mdPath } = writeSectionReport(options.outDir, "conversions", results, renderConversionsMarkdown)
  log(`wrote ${mdPath} and ${jsonPath} (${results.durationSeconds} s)`)
  return results
}

const noiseNote = (r: ConversionsBenchResults) => {
  const other = otherCoresOverall(r)
  const waited = r.quietWaits.reduce((sum, w) => sum + w.waitedMs, 0)
  const loud = r.quietWaits.filter((w) => w.otherCores >= 0.3)
  return `Other processes on the machine kept ${cores(other)} busy on average while the brokers ran (of ${String(r.machine.nproc)}); the per-run figures are in the sections below. ` +
    `Before each measured round the run waited for them to drop below 0.3 cores (${Math.round(waited / 1000)} s waited in all` +
    (loud.length ? `; budget spent, so these started with the machine busy: ${loud.map((w) => `${w.before} (${w.otherCores.toFixed(2)} cores)`).join(", ")})` : "; every round started on a quiet machine)") +
    `, and for the broker's own tree to fall below ${r.settings.brokerIdleCores} cores (background work left by the previous upload).`
}

export const conversionsSummaryTable = (r: ConversionsBenchResults) => {
  const rows: Array<Array<string>> = []
  for (const l of r.large) {
    rows.push([`${l.label}: upload → first page image (${l.pages} pages; reference ${l.referencePages})`, ms(l.uploadToImage.median), ms(l.reference.median), fmtRatio(l.brokerOverReference)])
    rows.push([`${l.label}: upload → layout`, ms(l.uploadToLayout.median), "", ""])
    if (l.referenceCpu) rows.push([`${l.label}: CPU time, broker tree (LibreOffice ${ms(l.libreOfficeCpu.median)} of it) vs soffice + pdftoppm`, ms(l.brokerCpu.median), ms(l.referenceCpu.median), fmtRatio(ratio(l.brokerCpu.median, l.referenceCpu.median))])
  }
  const b = r.batch
  rows.push([
    `${r.settings.batch.length} small files at once: until all layouts answer (reference: cold soffice one after another)`,
    ms(b.wall.median),
    ms(b.coldSequentialMs),
    fmtRatio(ratio(b.wall.median, b.coldSequentialMs))
  ])
  rows.push([`${r.settings.batch.length} small files at once: documents per minute`, b.docsPerMinute.toFixed(0), b.coldDocsPerMinute.toFixed(0), fmtRatio(ratio(b.docsPerMinute, b.coldDocsPerMinute))])
  rows.push([`Order records of the small files: processingTime median / p90`, `${ms(b.processingTime.median)} / ${ms(b.processingTime.p90)}`, "", ""])
  rows.push([`Order records of the small files: queuedTime median / p90`, `${ms(b.queuedTime.median)} / ${ms(b.queuedTime.p90)}`, "", ""])
  rows.push([`Peak RSS, broker process tree incl. LibreOffice, while converting (${r.memory.peakTreeAfterStartupBroker})`, mib(r.memory.peakTreeAfterStartupKiB), "", ""])
  rows.push([`Peak RSS, broker process tree, startup included (${r.memory.peakTreeBroker})`, mib(r.memory.peakTreeRssKiB), "", ""])
  rows.push(["Peak RSS, broker server process alone (VmHWM)", mib(r.memory.peakServerRssKiB), "", ""])
  rows.push(["Peak RSS, LibreOffice (driver + soffice.bin VmHWM)", mib(r.memory.peakLibreOfficeHwmKiB), "", ""])
  return table(["Measure", "Broker", "Reference", "broker/reference"], rows)
}

export const renderConversionsSummary = (r: ConversionsBenchResults) =>
  [`Conversions benchmark (${r.settings.officeInstances} LibreOffice instance(s), ${r.settings.orderWorkers} order workers, ${r.settings.runs} runs per median)`, "",
    conversionsSummaryTable(r), "", noiseNote(r)].join("\n")

export const renderConversionsMarkdown = (r: ConversionsBenchResults, jsonName: string) => {
  const m = r.machine
  const b = r.batch
  const lines: Array<string> = []
  const srcChanges = Array.isArray(m.srcChanges) ? (m.srcChanges as ReadonlyArray<string>) : []
  lines.push(`# Conversions benchmark, ${String(m.date ?? new Date().toISOString()).slice(0, 10)}`)
  lines.push("")
  lines.push(`Generated by \`npm run bench -- conversions\` (scripts/bench/conversions.ts) at ${String(m.date)}; raw figures in [${jsonName}](${jsonName}). Section run: ${r.durationSeconds} s.`)
  lines.push("")
  lines.push("## Machine")
  lines.push("")
  lines.push(table(["Fact", "Value"], [
    ["Cores (nproc)", String(m.nproc)],
    ["CPU", String(m.cpuModel)],
    ["Memory", `${String(m.totalMemoryMiB)} MiB`],
    ["Node", String(m.node)],
    ["LibreOffice", String(m.soffice)],
    ["pdftoppm", String(m.pdftoppm)],
    m.measuredRef
      ? ["Code measured", `commit ${String(m.measuredRef)} (checkout at ${String(m.gitHead)})`]
      : ["Code measured", `working tree at ${String(m.gitHead)}${srcChanges.length ? ` + ${srcChanges.length} uncommitted change(s) under src/` : " (clean)"}`],
    ["Load average (1/5/15 min) at start / end", `${(m.loadAverageAtStart as ReadonlyArray<number>).join(" ")} / ${(m.loadAverageAtEnd as ReadonlyArray<number>).join(" ")}`],
    ["Settings", `${r.settings.runs} runs per median; brokers with the default pool: ${r.settings.officeInstances} LibreOffice instance(s) (OFFICE_INSTANCES, half the cores), ${r.settings.orderWorkers} order workers (ORDER_WORKERS); page image ${r.settings.descriptor} (DEFAULT_PAGE_IMAGE)`]
  ]))
  lines.push("")
  lines.push(noiseNote(r))
  lines.push("")
  if (otherCoresOverall(r) > 0.25) {
    lines.push(`> The machine was not idle: other processes shared the ${String(m.nproc)} cores during the run, so absolute times carry that noise. Broker and reference were interleaved run by run, alternating which went first, to share it fairly; the CPU-time rows hardly move with other load.`)
    lines.push("")
  }
  lines.push("## Figures")
  lines.push("")
  lines.push("Medians; times are wall clock as the client sees them (from the start of the upload request to the last byte of the answer) or whole processes from spawn to exit.")
  lines.push("")
  lines.push(conversionsSummaryTable(r))
  lines.push("")

  lines.push("## 1. Large HTML and text: upload → first page image")
  lines.push("")
  lines.push(`Each run uploads different bytes (renditions are content-addressed): the HTML with \`<!-- run N -->\` appended, the text with a last line \`bench run N\`. Right after the upload answers, the client asks for the layout and for page 0 at the default descriptor (${r.settings.descriptor}) at once, as a viewer does; both wait for the conversion order. ` +
    "Reference, on the same bytes: `soffice -env:UserInstallation=<profile> --headless --convert-to pdf --outdir …` (a new soffice per conversion, on a profile initialised by one untimed run, as in the office section), then `pdftoppm -r 150 -f 1 -l 1 -png` (page 0 at about the same width: 1240 px for A4, 1275 for Letter). " +
    "The two sides alternate which goes first; before each side the broker's tree was let go idle. CPU: the broker's live process tree (server and LibreOffice) from the upload to the image; the reference's soffice and pdftoppm processes (GNU time).")
  lines.push("")
  lines.push(table(
    ["Document", "Upload → image", "Upload → layout", "Upload request", "Order processingTime", "soffice --convert-to", "pdftoppm p1", "Reference total", "broker/reference", "CPU broker (LibreOffice) / reference", "Pages broker / reference"],
    r.large.map((l) => [
      l.label,
      spread(l.uploadToImage),
      spread(l.uploadToLayout),
      spread(l.upload),
      spread(l.processingTime),
      spread(l.soffice),
      spread(l.pdftoppm),
      spread(l.reference),
      fmtRatio(l.brokerOverReference),
      `${ms(l.brokerCpu.median)} (${ms(l.libreOfficeCpu.median)}) / ${l.referenceCpu ? ms(l.referenceCpu.median) : "n/a"}`,
      `${l.pages} / ${l.referencePages}`
    ])
  ))
  lines.push("")
  lines.push("Per run (other processes' CPU during the broker's side / the reference's side is the machine's noise):")
  lines.push("")
  lines.push(table(
    ["Document", "Run", "First", "Upload → image", "Image after upload", "Layout after upload", "processingTime / queuedTime", "Reference", "Other CPU broker / reference"],
    r.large.flatMap((l) => l.runs.map((x) => [
      l.file,
      String(x.run),
      x.first,
      ms(x.uploadToImageMs),
      ms(x.imageAfterUploadMs),
      ms(x.layoutAfterUploadMs),
      `${x.order.processingTime ?? "–"} / ${x.order.queuedTime ?? "–"} ms`,
      ms(x.referenceMs),
      `${cores(x.otherCoresBroker)} / ${cores(x.otherCoresReference)}`
    ]))
  ))
  lines.push("")
  const pageNote = r.large.filter((l) => l.pages !== l.referencePages)
  if (pageNote.length > 0) {
    lines.push(`Page counts differ (${pageNote.map((l) => `${l.file}: ${l.pages} vs ${l.referencePages}`).join("; ")}): the broker hands text and HTML to LibreOffice as UTF-8 with import filters of its own (HTML: "HTML (StarWriter)", a Writer text document; text: "Text (encoded)", UTF8, Liberation Mono), while the plain \`--convert-to\` lets soffice choose (an .html file opens as a Writer/Web document, with its own page layout); the reference converts the same bytes, not into the same pages.`)
    lines.push("")
  }

  lines.push("## 2. Throughput: 8 small files at once")
  lines.push("")
  lines.push(`${r.settings.batch.join(", ")} uploaded at once (8 parallel upload-then-layout chains); wall time from the first upload request to the last layout answer, median of ${b.runs.length} batch(es) (${b.runs.map((x) => ms(x.wallMs)).join(", ")}). ` +
    "Each batch ran on a brand-new broker with an empty DATA_DIR (started, then warmed by one untimed tiny conversion), so nothing was deduplicated although the ZIP- and OLE-based files were uploaded with their original bytes. " +
    `The order records come from GET /conversions/{id} after the batch: \`queuedTime\` is the wait for one of the ${r.settings.orderWorkers} order workers, \`processingTime\` the worker's time including the wait for the ${r.settings.officeInstances} LibreOffice instance(s). ` +
    `Reference for context: the same 8 files through cold \`soffice --convert-to\` one after another (two cannot share one profile), ${ms(b.coldSequentialMs)} in all.`)
  lines.push("")
  lines.push(table(["", "Broker", "Cold soffice, one after another"], [
    ["Documents per minute", b.docsPerMinute.toFixed(0), b.coldDocsPerMinute.toFixed(0)],
    ["Wall time for the 8", spread(b.wall), ms(b.coldSequentialMs)],
    ["Per-document batch start → layout, median / p90 / max", `${ms(b.latency.median)} / ${ms(b.latency.p90)} / ${ms(b.latency.max)}`, ""],
    ["Order processingTime, median / p90 / max", `${ms(b.processingTime.median)} / ${ms(b.processingTime.p90)} / ${ms(b.processingTime.max)}`, ""],
    ["Order queuedTime, median / p90 / max", `${ms(b.queuedTime.median)} / ${ms(b.queuedTime.p90)} / ${ms(b.queuedTime.max)}`, ""],
    ["Other processes' CPU during each batch", b.runs.map((x) => cores(x.otherCores)).join(", "), ""]
  ]))
  lines.push("")
  lines.push(table(["File", "Pages", "processingTime", "queuedTime"], b.processingByFile.map((f) => [f.file, String(f.pages), spread(f.processingTime), spread(f.queuedTime)])))
  lines.push("")

  lines.push("## 3. Memory")
  lines.push("")
  lines.push("RSS sampled every 100 ms over each broker's whole process tree: npx, the tsx CLI, the server (node, worker threads included), the embedded database's initialisation child during startup, and LibreOffice (the Python driver and soffice.bin, children of the server). VmHWM is the kernel's own high-water mark: of the server process, and of each LibreOffice process (read just before the broker stopped), so LibreOffice's peak during a conversion is caught even between samples.")
  lines.push("")
  lines.push(table(
    ["Broker", "Startup to ready", "Warm-up conversion", "RSS at ready", "Peak RSS server (VmHWM)", "Peak RSS tree (phase)", "of which LibreOffice then", "Peak RSS tree after startup (phase)", "LibreOffice VmHWM (driver + soffice.bin)"],
    r.brokers.map((x) => {
      const peakPhase = Object.entries(x.peakByPhase).reduce<[string, number]>((a, [phase, p]) => (p.treeRssKiB > a[1] ? [phase, p.treeRssKiB] : a), ["", 0])[0]
      return [
        x.label,
        ms(x.startupMs),
        ms(x.warmUpMs),
        mib(x.rssAtReadyKiB),
        mib(Math.max(x.serverHwmKiB, x.peakServerRssKiB)),
        `${mib(x.peakTreeRssKiB)} (${peakPhase})`,
        mib(x.peakLibreOfficeRssKiB),
        `${mib(x.peakTreeAfterStartupKiB)} (${x.peakTreeAfterStartupPhase})`,
        x.libreOfficeHwm.map((p) => mib(p.hwmKiB)).join(" + ")
      ]
    })
  ))
  lines.push("")
  const main = r.brokers[0]
  if (main) {
    lines.push(`The ${main.label} by phase (peak sampled RSS; average cores kept busy by the broker's tree, by the benchmark with its reference tools, and by other processes on the machine):`)
    lines.push("")
    lines.push(phaseTable(main, (phase) => phase.endsWith(": after")))
    lines.push("")
  }
  const peak = r.brokers.find((x) => x.label === r.memory.peakTreeBroker)
  if (peak) {
    const dbInit = peak.peakTree.find((p) => p.command.includes("pglite-init"))
    lines.push(`The process tree of the ${peak.label} at its peak${dbInit ? ` (during startup: the embedded database is initialised by a child node process, pglite-init.mjs, ${mib(dbInit.rssKiB)} then, gone once the broker is ready)` : ""}:`)
    lines.push("")
    lines.push(table(["Process", "RSS"], peak.peakTree.map((p) => [`\`${p.command.replace(/\|/g, "\\|")}\``, mib(p.rssKiB)])))
    lines.push("")
  }
  return lines.join("\n") + "\n"
}
