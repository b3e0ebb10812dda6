/**
 * Section "conversions" of `npm run bench`: conversion orders measured through the real broker
 * (`node scripts/start.mjs broker`, embedded PGlite, a fresh DATA_DIR under bench/tmp/), with the
 * reference tools run as whole processes in the same run.
 *
 *  1. upload → first page image (GET /documents/{id}/pages/0/image at the default descriptor,
 *     which waits for the conversion order) and upload → layout of a 2.4 MB HTML page and a
 *     3.2 MB text, median of BENCH_RUNS runs each. Renditions are content-addressed, so every run
 *     uploads different bytes (a comment appended to the HTML, a last line to the text). Reference,
 *     interleaved run by run: a cold `soffice --headless --convert-to pdf` of the same bytes (on a
 *     profile initialised by an untimed run, as in the office section) followed by
 *     `pdftoppm -r 150 -f 1 -l 1 -png`.
 *  2. throughput: 8 distinct small office files uploaded at once, time until all 8 layouts answer,
 *     in documents per minute, with the broker's order records (GET /conversions/{id}) summarised.
 *     Each batch runs on a brand-new broker (fresh DATA_DIR), so nothing is deduplicated although
 *     the ZIP and OLE files cannot be made unique by appending bytes. For context the same 8 files
 *     are converted once by cold soffice runs one after another.
 *  3. peak RSS of every broker's process tree (npx, tsx, the server, the LibreOffice driver and
 *     soffice.bin), sampled every 100 ms.
 *
 * The brokers are in conversions/broker.ts, the results and their report in conversions/report.ts;
 * settings, smoke runs and where the report goes: bench/README.md.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { basename, extname, join } from "node:path"
import { pathToFileURL } from "node:url"
import {
  BROKER_IDLE_CORES,
  brokerLauncher,
  conversionOrder,
  libreOfficeCpuMs,
  waitForBrokerIdle
} from "./conversions/broker.ts"
import {
  type BatchRun,
  type BrokerRecord,
  type ConversionsBenchResults,
  type LargeResult,
  type LargeRun,
  renderConversionsMarkdown
} from "./conversions/report.ts"
import { getJson, getPageImage, type LayoutResult, upload } from "./lib/http.ts"
import { pdfPages, runTimed, toolVersion, treeCpuMs } from "./lib/proc.ts"
import type { QuietWait } from "./lib/quiet.ts"
import { writeSectionReport } from "./lib/report.ts"
import type { SectionOptions } from "./lib/section.ts"
import type { RunningService } from "./lib/service.ts"
import { median, ratio, summarize } from "./lib/stats.ts"

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
    unique: (bytes: Buffer, run: number) =>
      Buffer.concat([bytes, Buffer.from(`${bytes.at(-1) === 0x0a ? "" : "\n"}bench run ${run}\n`)])
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

export const runConversionsBench = async (options: SectionOptions): Promise<ConversionsBenchResults> => {
  const { log, runs } = options
  const started = performance.now()
  const corpusFile = (name: string) => join(options.corpus, "office", name)
  for (const name of [...LARGE.map((l) => l.file), ...BATCH]) {
    if (!existsSync(corpusFile(name))) throw new Error(`Missing corpus file ${corpusFile(name)}`)
  }
  const quietWaits: Array<QuietWait> = []
  const waitForQuiet = async (before: string, broker: RunningService | undefined) => {
    quietWaits.push(await options.waitForQuiet(before, broker?.rootPid))
  }
  // The benchmark's brokers run with the default page image spelled out, so the descriptor asked for is the default.
  const { launch, records: brokers } = brokerLauncher(options, { DEFAULT_PAGE_IMAGE: DESCRIPTOR })
  const officeInstances = Number(process.env.OFFICE_INSTANCES ?? Math.max(1, Math.floor(options.machine.nproc / 2)))
  const orderWorkers = Number(process.env.ORDER_WORKERS ?? Math.max(2, options.machine.nproc))

  // ---- Cold reference: one soffice process per conversion, on a profile initialised beforehand --
  const refDir = join(options.tmp, "reference")
  const coldProfile = join(refDir, "cold-profile")
  mkdirSync(refDir, { recursive: true })
  const cold = (input: string, outDir: string) =>
    runTimed("soffice", [
      `-env:UserInstallation=${pathToFileURL(coldProfile).href}`,
      "--headless",
      "--convert-to",
      "pdf",
      "--outdir",
      outDir,
      input
    ], {
      cpu: true,
      timeoutMs: 300_000
    })
  log("initialising the profile of the cold soffice (untimed)")
  await cold(corpusFile(BATCH[0]), join(refDir, "init"))

  // ---- 1. Large HTML and text: upload → first page image, against soffice + pdftoppm -------------
  const main = await launch("main broker", "main")
  let mainStopped = false
  const large: Array<LargeResult> = []
  try {
    const broker = main.broker
    for (const doc of LARGE) {
      const original = readFileSync(corpusFile(doc.file))
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
          const ppm = await runTimed(
            "pdftoppm",
            ["-r", "150", "-f", "1", "-l", "1", "-png", pdf, join(runDir, "page")],
            { cpu: true }
          )
          broker.sampler.setPhase("idle")
          if (!readdirSync(runDir).some((f) => f.startsWith("page") && f.endsWith(".png"))) {
            throw new Error(`pdftoppm made no PNG of ${pdf}`)
          }
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
        results.push({
          run,
          bytes: bytes.length,
          first: brokerFirst ? "broker" : "reference",
          ...b,
          ...r,
          brokerIdleWaitMs: idleWaitMs
        })
        log(
          `${doc.file} run ${run}: broker upload→image ${Math.round(b.uploadToImageMs)} ms (layout ${
            Math.round(b.uploadToLayoutMs)
          } ms, ${b.pages} pages, order processing ${b.order.processingTime} ms); ` +
            `soffice+pdftoppm ${Math.round(r.referenceMs)} ms (${r.referencePages} pages)`
        )
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
  const batchBytes = BATCH.map((file) => ({ file, bytes: readFileSync(corpusFile(file)) }))
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
          const layout = await getJson<LayoutResult>(
            broker.baseUrl,
            `/documents/${encodeURIComponent(up.value)}/layout`
          )
          return {
            file,
            id: up.value,
            uploadMs: up.ms,
            layoutMs: layout.endedAt - batchStarted,
            pages: layout.value.pageDimensionsList.length
          }
        })
      )
      const wallMs = Math.max(...done.map((d) => d.layoutMs))
      broker.sampler.setPhase("after batch")
      const documents: Array<BatchRun["documents"][number]> = []
      for (const d of done) {
        const order = await conversionOrder(broker, d.id)
        documents.push({
          file: d.file,
          uploadMs: d.uploadMs,
          layoutMs: d.layoutMs,
          pages: d.pages,
          processingTime: order.processingTime,
          queuedTime: order.queuedTime ?? null
        })
      }
      batchRuns.push({
        run,
        broker: label,
        wallMs,
        docsPerMinute: (BATCH.length / (wallMs / 1000)) * 60,
        otherCores: broker.sampler.cpuByPhase.get(phase)?.otherCores ?? Number.NaN,
        documents
      })
      log(
        `batch ${run}: ${BATCH.length} layouts in ${Math.round(wallMs)} ms (${
          ((BATCH.length / (wallMs / 1000)) * 60).toFixed(0)
        } docs/min)`
      )
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
  for (const file of BATCH) await cold(corpusFile(file), coldBatchDir)
  const coldSequentialMs = performance.now() - coldStarted
  log(`cold soffice, one after another: ${Math.round(coldSequentialMs)} ms for ${BATCH.length} files`)

  const allDocs = batchRuns.flatMap((r) => r.documents)
  const finite = (values: ReadonlyArray<number | null>) =>
    values.filter((v): v is number => v !== null && Number.isFinite(v))
  const wall = summarize(batchRuns.map((r) => r.wallMs))
  const peakBroker = brokers.reduce((a, b) => (b.peakTreeRssKiB > a.peakTreeRssKiB ? b : a), brokers[0]!)
  const workPeakBroker = brokers.reduce(
    (a, b) => (b.peakTreeAfterStartupKiB > a.peakTreeAfterStartupKiB ? b : a),
    brokers[0]!
  )
  const libreOfficeHwm = (b: BrokerRecord) => b.libreOfficeHwm.reduce((sum, p) => sum + p.hwmKiB, 0)
  const results: ConversionsBenchResults = {
    machine: {
      ...options.machine,
      soffice: toolVersion("soffice", ["--version"]),
      loadAverageAtEnd: loadavg().map((l) => Math.round(l * 100) / 100)
    },
    settings: {
      runs,
      descriptor: DESCRIPTOR,
      officeInstances,
      orderWorkers,
      batch: BATCH,
      brokerIdleCores: BROKER_IDLE_CORES
    },
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
        return {
          file,
          pages: median(docs.map((d) => d.pages)),
          processingTime: summarize(finite(docs.map((d) => d.processingTime))),
          queuedTime: summarize(finite(docs.map((d) => d.queuedTime)))
        }
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
