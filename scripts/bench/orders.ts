/**
 * Section "orders" of `npm run bench`: the broker's document orders measured through the real
 * broker (`node scripts/start.mjs broker`, embedded PGlite, a fresh DATA_DIR under bench/tmp/), each
 * with its time and the peak RSS of the broker, and a reference tool run as a whole process in the
 * same run:
 *
 *  1. merge: a transformation of the 352-page freeculture.pdf and the 400-page IRS manual into one
 *     document, against `pdfunite` and `mutool merge`;
 *  2. redaction: a transformation of the 400-page IRS manual with 10 RedactText regions (a word on
 *     every 40th page), against MuPDF's own redaction (`mutool run` creating Redact annotations and
 *     applying them: text and images only, no vector pass, no re-assembly);
 *  3. comparison: an image comparison of tracemonkey.pdf (14 pages) with a copy changed on three
 *     pages, against `pdftoppm` rendering both documents at the same width (the rendering alone,
 *     without any diff).
 * Times: POST to the order's PROCESSED state seen by a long poll (`?timeoutMs=`), and the order's
 * own processingTime; median of BENCH_RUNS runs, each on different bytes (a different title in the
 * files' information dictionary), so that nothing is answered from a cache. Peak RSS: the broker's
 * server process (its worker threads included) and its whole process tree (mutool children
 * included; the LibreOffice pool the broker keeps is idle but counted), sampled every 100 ms during
 * each operation.
 *
 * Settings, smoke runs and where the report goes: bench/README.md.
 */
import { writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { PDFDocument, rgb, StandardFonts } from "pdf-lib"
import { getJson, upload } from "./lib/http.ts"
import { processMemory, runTimed, toolVersion } from "./lib/proc.ts"
import type { QuietWait } from "./lib/quiet.ts"
import { table, writeSectionReport } from "./lib/report.ts"
import type { MachineFacts, SectionOptions } from "./lib/section.ts"
import { startBroker } from "./lib/service.ts"
import { fmtRatio, mib, ms, ratio, summarize, type Summary } from "./lib/stats.ts"

const BOOK = "freeculture.pdf"
const MANUAL = "pdf2image-memory-error-test-400p.pdf"
const PAPER = "tracemonkey.pdf"
const REDACTED_PAGES = Array.from({ length: 10 }, (_, i) => i * 40)
const COMPARISON_WIDTH = 1240

interface Measured {
  readonly name: string
  /** POST to PROCESSED, per run. */
  readonly total: Summary
  /** The order's processingTime, per run. */
  readonly processing: Summary
  readonly peakServerRssKiB: number
  readonly peakTreeRssKiB: number
  readonly reference: { readonly label: string; readonly ms: Summary; readonly maxRssKiB: number }
  readonly alternative?: { readonly label: string; readonly ms: Summary; readonly maxRssKiB: number }
  readonly detail: string
}

export interface OrdersBenchResults {
  readonly machine: MachineFacts
  readonly runs: number
  /** RSS of the broker's server process when it is ready, before any document: what the peaks grow from. */
  readonly readyServerRssKiB: number
  readonly operations: ReadonlyArray<Measured>
  readonly quietWaits: ReadonlyArray<QuietWait>
  readonly tools: Readonly<Record<string, string>>
}

/** The same PDF with another title (other bytes, so no content-addressed cache answers it). */
const retitled = async (bytes: Uint8Array, title: string) => {
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false })
  pdf.setTitle(title)
  return pdf.save()
}

/** tracemonkey.pdf with a changed line on three of its pages: a second version of the paper. */
const changedVersion = async (bytes: Uint8Array, title: string) => {
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false })
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  for (const index of [1, 6, 11]) {
    const page = pdf.getPage(index)
    page.drawRectangle({ x: 60, y: 400, width: 220, height: 16, color: rgb(1, 1, 1) })
    page.drawText(`Revised paragraph ${index}: results updated`, { x: 62, y: 404, size: 10, font })
  }
  pdf.setTitle(title)
  return pdf.save()
}

/** MuPDF's redaction alone: Redact annotations over the regions (page and top-left box in points), applied. */
const MUPDF_REDACT = `var doc = new PDFDocument(scriptArgs[0]);
var regions = JSON.parse(read(scriptArgs[2]));
for (var i = 0; i < regions.length; i++) {
  var r = regions[i], page = doc.loadPage(r.page);
  page.createAnnotation("Redact").setRect([r.x, r.y, r.x + r.w, r.y + r.h]);
  page.applyRedactions(true, 2);
}
doc.save(scriptArgs[1], "garbage,compress");
`

export const runOrdersBench = async (options: SectionOptions): Promise<OrdersBenchResults> => {
  const { log, runs } = options
  const quietWaits: Array<QuietWait> = []
  const corpus = (name: string) => join(options.corpus, "pdf", name)
  const broker = await startBroker({
    cwd: options.codeRoot,
    dataDir: join(options.tmp, "data"),
    logFile: join(options.tmp, "broker.log")
  })
  try {
    const base = broker.baseUrl
    const readyServerRssKiB = processMemory(broker.serverPid() ?? -1)?.rssKiB ?? Number.NaN
    const [book, manual, paper] = await Promise.all([BOOK, MANUAL, PAPER].map((name) => readFile(corpus(name))))
    const ids = async (bytes: Uint8Array, title: string) =>
      (await upload(base, bytes as Uint8Array<ArrayBuffer>, { documentTitle: title })).value

    /** POST the order, long-poll it to PROCESSED; its total and server-side times. */
    const order = async (path: string, body: unknown, idField: string) => {
      const started = performance.now()
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`)
      const id = ((await response.json()) as Record<string, { id: string }>)[idField]!.id
      for (;;) {
        const { value } = await getJson<
          { currentState: string; processingTime: number | null; errorMessage: string | null }
        >(base, `${path}/${id}?timeoutMs=60000`)
        if (value.currentState === "FAILED") throw new Error(`${path} ${id} failed: ${value.errorMessage}`)
        if (value.currentState === "PROCESSED") {
          return { total: performance.now() - started, processing: value.processingTime ?? Number.NaN }
        }
      }
    }

    const measure = async (
      name: string,
      prepare: (run: number) => Promise<{ readonly path: string; readonly body: unknown; readonly idField: string }>
    ) => {
      quietWaits.push(await options.waitForQuiet(name, broker.rootPid))
      const totals: Array<number> = []
      const processing: Array<number> = []
      for (let run = 0; run < runs; run++) {
        const request = await prepare(run)
        broker.sampler.setPhase(name)
        const timing = await order(request.path, request.body, request.idField)
        broker.sampler.setPhase("idle")
        totals.push(timing.total)
        processing.push(timing.processing)
        log(`${name}, run ${run + 1}: ${ms(timing.total)} (processing ${ms(timing.processing)})`)
      }
      const peak = broker.sampler.peakByPhase.get(name)
      return {
        total: summarize(totals),
        processing: summarize(processing),
        peakServerRssKiB: peak?.serverRssKiB ?? Number.NaN,
        peakTreeRssKiB: peak?.treeRssKiB ?? Number.NaN
      }
    }

    const reference = async (
      label: string,
      times: number,
      run: (i: number) => Promise<{ ms: number; maxRssKiB?: number }>
    ) => {
      const results: Array<{ ms: number; maxRssKiB?: number }> = []
      for (let i = 0; i < times; i++) results.push(await run(i))
      return {
        label,
        ms: summarize(results.map((r) => r.ms)),
        maxRssKiB: Math.max(...results.map((r) => r.maxRssKiB ?? Number.NaN))
      }
    }

    // 1. Merge.
    const merge = await measure("merge", async (run) => ({
      path: "/transformations",
      idField: "transformationOrderId",
      body: {
        transformationDetails: [{
          documentTitle: `merged ${run}`,
          transformationElements: [
            { documentId: await ids(await retitled(book, `book ${run}`), BOOK) },
            { documentId: await ids(await retitled(manual, `manual ${run}`), MANUAL) }
          ]
        }]
      }
    }))
    const pdfunite = await reference(
      "pdfunite",
      runs,
      (i) => runTimed("pdfunite", [corpus(BOOK), corpus(MANUAL), join(options.tmp, `pdfunite-${i}.pdf`)], { cpu: true })
    )
    const mutoolMerge = await reference(
      "mutool merge",
      runs,
      (i) =>
        runTimed("mutool", ["merge", "-o", join(options.tmp, `mutool-merge-${i}.pdf`), corpus(BOOK), corpus(MANUAL)], {
          cpu: true
        })
    )

    // 2. Redaction: a word on every 40th page of the manual.
    const manualId = await ids(manual, MANUAL)
    const regions = await Promise.all(REDACTED_PAGES.map(async (page) => {
      const { value } = await getJson<
        {
          positionTextList: Array<
            { text: string; individualWidths: Array<number>; position: { x: number; y: number; w: number; h: number } }
          >
        }
      >(
        base,
        `/documents/${manualId}/pages/${page}/text/position`
      )
      const run = value.positionTextList.find((r) => r.text.trim().length > 8) ?? value.positionTextList[0]!
      const w = run.individualWidths.slice(0, Math.min(8, run.text.length)).reduce((a, b) => a + b, 0)
      return { page, x: run.position.x, y: run.position.y, w, h: run.position.h }
    }))
    const redaction = await measure("redaction", async (run) => {
      const id = await ids(await retitled(manual, `manual redacted ${run}`), MANUAL)
      return {
        path: "/transformations",
        idField: "transformationOrderId",
        body: {
          transformationDetails: [{ transformationElements: [{ documentId: id }] }],
          annotations: {
            annotations: regions.map((r) => ({
              type: "RedactText",
              page: r.page,
              position: { x: r.x, y: r.y, w: r.w, h: r.h },
              documentId: { id }
            }))
          }
        }
      }
    })
    const script = join(options.tmp, "mupdf-redact.js")
    const regionsFile = join(options.tmp, "regions.json")
    writeFileSync(script, MUPDF_REDACT)
    writeFileSync(regionsFile, JSON.stringify(regions))
    const mupdfRedact = await reference(
      "mutool run (MuPDF's applyRedactions)",
      runs,
      (i) =>
        runTimed("mutool", ["run", script, corpus(MANUAL), join(options.tmp, `mupdf-redacted-${i}.pdf`), regionsFile], {
          cpu: true,
          timeoutMs: 600_000
        })
    )

    // 3. Comparison of two 14-page versions.
    const comparison = await measure("comparison", async (run) => ({
      path: "/comparisons",
      idField: "comparisonOrderId",
      body: {
        leftDocumentId: await ids(await retitled(paper, `paper ${run}`), PAPER),
        rightDocumentId: await ids(await changedVersion(paper, `paper changed ${run}`), "changed")
      }
    }))
    const changedFile = join(options.tmp, "changed.pdf")
    writeFileSync(changedFile, await changedVersion(paper, "reference"))
    const pdftoppm = await reference(`pdftoppm of both (${COMPARISON_WIDTH} px wide)`, runs, async (i) => {
      const a = await runTimed("pdftoppm", [
        "-scale-to-x",
        String(COMPARISON_WIDTH),
        "-scale-to-y",
        "-1",
        "-png",
        corpus(PAPER),
        join(options.tmp, `l${i}`)
      ], { cpu: true })
      const b = await runTimed("pdftoppm", [
        "-scale-to-x",
        String(COMPARISON_WIDTH),
        "-scale-to-y",
        "-1",
        "-png",
        changedFile,
        join(options.tmp, `r${i}`)
      ], { cpu: true })
      return { ms: a.ms + b.ms, maxRssKiB: Math.max(a.maxRssKiB ?? 0, b.maxRssKiB ?? 0) }
    })

    const results: OrdersBenchResults = {
      machine: options.machine,
      runs,
      readyServerRssKiB,
      quietWaits,
      tools: {
        mutool: toolVersion("mutool", ["-v"]),
        pdfunite: toolVersion("pdfunite", ["-v"]),
        pdftoppm: toolVersion("pdftoppm", ["-v"])
      },
      operations: [
        {
          name: "Merge 352 + 400 pages",
          ...merge,
          reference: pdfunite,
          alternative: mutoolMerge,
          detail: `${BOOK} and ${MANUAL} into one 752-page document`
        },
        {
          name: "Redact 10 regions, 400 pages",
          ...redaction,
          reference: mupdfRedact,
          detail: `a word on pages ${REDACTED_PAGES.join(", ")} of ${MANUAL}`
        },
        {
          name: "Compare two 14-page documents",
          ...comparison,
          reference: pdftoppm,
          detail: `${PAPER} against a copy changed on 3 pages, rendered ${COMPARISON_WIDTH} px wide`
        }
      ]
    }
    const { jsonPath, mdPath } = writeSectionReport(options.outDir, "orders", results, renderOrdersMarkdown)
    log(`wrote ${mdPath} and ${jsonPath}`)
    return results
  } finally {
    await broker.stop()
  }
}

const summaryTable = (r: OrdersBenchResults) =>
  table(
    [
      "Operation",
      "Broker: POST to PROCESSED (median, min–max)",
      "Order's processingTime",
      "Peak RSS: server / process tree",
      "Reference",
      "Reference time",
      "Reference peak RSS",
      "Broker / reference"
    ],
    r.operations.flatMap((o) => {
      const row = (ref: Measured["reference"], first: boolean) => [
        first ? o.name : "",
        first ? `${ms(o.total.median)} (${ms(o.total.min)}–${ms(o.total.max)})` : "",
        first ? ms(o.processing.median) : "",
        first ? `${mib(o.peakServerRssKiB)} / ${mib(o.peakTreeRssKiB)}` : "",
        ref.label,
        ms(ref.ms.median),
        mib(ref.maxRssKiB),
        fmtRatio(ratio(o.total.median, ref.ms.median))
      ]
      return o.alternative ? [row(o.reference, true), row(o.alternative, false)] : [row(o.reference, true)]
    })
  )

export const renderOrdersSummary = (r: OrdersBenchResults) =>
  [`Document orders (${r.runs} runs each)`, "", summaryTable(r)].join("\n")

const renderOrdersMarkdown = (r: OrdersBenchResults, jsonName: string) => {
  const m = r.machine
  return [
    `# Document orders benchmark, ${String(m.date ?? new Date().toISOString()).slice(0, 10)}`,
    "",
    `Generated by \`npm run bench -- orders\` (scripts/bench/orders.ts); raw figures in [${jsonName}](${jsonName}).`,
    "",
    table(["Fact", "Value"], [
      ["Cores (nproc)", String(m.nproc)],
      ["CPU", String(m.cpuModel)],
      ["Node", String(m.node)],
      ["Code measured", String(m.measuredRef ?? `working tree at ${String(m.gitHead)}`)],
      ["Tools", Object.entries(r.tools).map(([k, v]) => `${k}: ${v}`).join("; ")],
      ["Broker server RSS when ready (before any document)", mib(r.readyServerRssKiB)],
      [
        "Quiet waits",
        r.quietWaits.map((w) =>
          `${w.before}: ${Math.round(w.waitedMs / 1000)} s, other processes ${w.otherCores.toFixed(2)} cores`
        ).join("; ")
      ]
    ]),
    "",
    "## Method",
    "",
    "The real broker on embedded PGlite, each operation as a client runs it: POST the order, then long-poll it (`?timeoutMs=60000`) until PROCESSED; the time is POST to PROCESSED, the order's own `processingTime` beside it. Each run uses different bytes (a new title), so nothing comes from a cache. Peak RSS is sampled every 100 ms during each operation: the broker's server process (worker threads included) and its whole process tree (mutool children, and the idle LibreOffice pool). References run as whole processes in the same run, their peak RSS from GNU time.",
    "",
    ...r.operations.map((o) => `- ${o.name}: ${o.detail}.`),
    "- The references do less than the broker: `pdfunite`/`mutool merge` only merge; MuPDF's redaction removes text and image pixels but not vector graphics and does not re-assemble the document; `pdftoppm` only renders the pages the comparison diffs.",
    "",
    "## Results",
    "",
    summaryTable(r),
    ""
  ].join("\n")
}
