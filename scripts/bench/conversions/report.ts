/**
 * The conversions section's results: their shape (also the JSON written next to the report), the
 * Markdown report and the summary printed at the end of the section.
 */
import type { PhaseCpu } from "../lib/proc.ts"
import { QUIET_CORES, type QuietWait } from "../lib/quiet.ts"
import { cores, otherCoresOverall, phaseTable, spread, table } from "../lib/report.ts"
import { fmtRatio, mib, ms, ratio, type Summary } from "../lib/stats.ts"

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
    readonly processingByFile: ReadonlyArray<
      { readonly file: string; readonly pages: number; readonly processingTime: Summary; readonly queuedTime: Summary }
    >
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

const noiseNote = (r: ConversionsBenchResults) => {
  const other = otherCoresOverall(r)
  const waited = r.quietWaits.reduce((sum, w) => sum + w.waitedMs, 0)
  const loud = r.quietWaits.filter((w) => w.otherCores >= QUIET_CORES)
  return `Other processes on the machine kept ${cores(other)} busy on average while the brokers ran (of ${
    String(r.machine.nproc)
  }); the per-run figures are in the sections below. ` +
    `Before each measured round the run waited for them to drop below ${QUIET_CORES} cores (${
      Math.round(waited / 1000)
    } s waited in all` +
    (loud.length
      ? `; budget spent, so these started with the machine busy: ${
        loud.map((w) => `${w.before} (${w.otherCores.toFixed(2)} cores)`).join(", ")
      })`
      : "; every round started on a quiet machine)") +
    `, and for the broker's own tree to fall below ${r.settings.brokerIdleCores} cores (background work left by the previous upload).`
}

export const conversionsSummaryTable = (r: ConversionsBenchResults) => {
  const rows: Array<Array<string>> = []
  for (const l of r.large) {
    rows.push([
      `${l.label}: upload → first page image (${l.pages} pages; reference ${l.referencePages})`,
      ms(l.uploadToImage.median),
      ms(l.reference.median),
      fmtRatio(l.brokerOverReference)
    ])
    rows.push([`${l.label}: upload → layout`, ms(l.uploadToLayout.median), "", ""])
    if (l.referenceCpu) {
      rows.push([
        `${l.label}: CPU time, broker tree (LibreOffice ${ms(l.libreOfficeCpu.median)} of it) vs soffice + pdftoppm`,
        ms(l.brokerCpu.median),
        ms(l.referenceCpu.median),
        fmtRatio(ratio(l.brokerCpu.median, l.referenceCpu.median))
      ])
    }
  }
  const b = r.batch
  rows.push([
    `${r.settings.batch.length} small files at once: until all layouts answer (reference: cold soffice one after another)`,
    ms(b.wall.median),
    ms(b.coldSequentialMs),
    fmtRatio(ratio(b.wall.median, b.coldSequentialMs))
  ])
  rows.push([
    `${r.settings.batch.length} small files at once: documents per minute`,
    b.docsPerMinute.toFixed(0),
    b.coldDocsPerMinute.toFixed(0),
    fmtRatio(ratio(b.docsPerMinute, b.coldDocsPerMinute))
  ])
  rows.push([
    `Order records of the small files: processingTime median / p90`,
    `${ms(b.processingTime.median)} / ${ms(b.processingTime.p90)}`,
    "",
    ""
  ])
  rows.push([
    `Order records of the small files: queuedTime median / p90`,
    `${ms(b.queuedTime.median)} / ${ms(b.queuedTime.p90)}`,
    "",
    ""
  ])
  rows.push([
    `Peak RSS, broker process tree incl. LibreOffice, while converting (${r.memory.peakTreeAfterStartupBroker})`,
    mib(r.memory.peakTreeAfterStartupKiB),
    "",
    ""
  ])
  rows.push([
    `Peak RSS, broker process tree, startup included (${r.memory.peakTreeBroker})`,
    mib(r.memory.peakTreeRssKiB),
    "",
    ""
  ])
  rows.push(["Peak RSS, broker server process alone (VmHWM)", mib(r.memory.peakServerRssKiB), "", ""])
  rows.push(["Peak RSS, LibreOffice (driver + soffice.bin VmHWM)", mib(r.memory.peakLibreOfficeHwmKiB), "", ""])
  return table(["Measure", "Broker", "Reference", "broker/reference"], rows)
}

export const renderConversionsSummary = (r: ConversionsBenchResults) =>
  [
    `Conversions benchmark (${r.settings.officeInstances} LibreOffice instance(s), ${r.settings.orderWorkers} order workers, ${r.settings.runs} runs per median)`,
    "",
    conversionsSummaryTable(r),
    "",
    noiseNote(r)
  ].join("\n")

export const renderConversionsMarkdown = (r: ConversionsBenchResults, jsonName: string) => {
  const m = r.machine
  const b = r.batch
  const lines: Array<string> = []
  const srcChanges = Array.isArray(m.srcChanges) ? (m.srcChanges as ReadonlyArray<string>) : []
  lines.push(`# Conversions benchmark, ${String(m.date ?? new Date().toISOString()).slice(0, 10)}`)
  lines.push("")
  lines.push(
    `Generated by \`npm run bench -- conversions\` (scripts/bench/conversions.ts) at ${
      String(m.date)
    }; raw figures in [${jsonName}](${jsonName}). Section run: ${r.durationSeconds} s.`
  )
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
      : [
        "Code measured",
        `working tree at ${String(m.gitHead)}${
          srcChanges.length ? ` + ${srcChanges.length} uncommitted change(s) under src/` : " (clean)"
        }`
      ],
    [
      "Load average (1/5/15 min) at start / end",
      `${(m.loadAverageAtStart as ReadonlyArray<number>).join(" ")} / ${
        (m.loadAverageAtEnd as ReadonlyArray<number>).join(" ")
      }`
    ],
    [
      "Settings",
      `${r.settings.runs} runs per median; brokers with the default pool: ${r.settings.officeInstances} LibreOffice instance(s) (OFFICE_INSTANCES, half the cores), ${r.settings.orderWorkers} order workers (ORDER_WORKERS); page image ${r.settings.descriptor} (DEFAULT_PAGE_IMAGE)`
    ]
  ]))
  lines.push("")
  lines.push(noiseNote(r))
  lines.push("")
  if (otherCoresOverall(r) > 0.25) {
    lines.push(
      `> The machine was not idle: other processes shared the ${
        String(m.nproc)
      } cores during the run, so absolute times carry that noise. Broker and reference were interleaved run by run, alternating which went first, to share it fairly; the CPU-time rows hardly move with other load.`
    )
    lines.push("")
  }
  lines.push("## Figures")
  lines.push("")
  lines.push(
    "Medians; times are wall clock as the client sees them (from the start of the upload request to the last byte of the answer) or whole processes from spawn to exit."
  )
  lines.push("")
  lines.push(conversionsSummaryTable(r))
  lines.push("")

  lines.push("## 1. Large HTML and text: upload → first page image")
  lines.push("")
  lines.push(
    `Each run uploads different bytes (renditions are content-addressed): the HTML with \`<!-- run N -->\` appended, the text with a last line \`bench run N\`. Right after the upload answers, the client asks for the layout and for page 0 at the default descriptor (${r.settings.descriptor}) at once, as a viewer does; both wait for the conversion order. ` +
      "Reference, on the same bytes: `soffice -env:UserInstallation=<profile> --headless --convert-to pdf --outdir …` (a new soffice per conversion, on a profile initialised by one untimed run, as in the office section), then `pdftoppm -r 150 -f 1 -l 1 -png` (page 0 at about the same width: 1240 px for A4, 1275 for Letter). " +
      "The two sides alternate which goes first; before each side the broker's tree was let go idle. CPU: the broker's live process tree (server and LibreOffice) from the upload to the image; the reference's soffice and pdftoppm processes (GNU time)."
  )
  lines.push("")
  lines.push(table(
    [
      "Document",
      "Upload → image",
      "Upload → layout",
      "Upload request",
      "Order processingTime",
      "soffice --convert-to",
      "pdftoppm p1",
      "Reference total",
      "broker/reference",
      "CPU broker (LibreOffice) / reference",
      "Pages broker / reference"
    ],
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
      `${ms(l.brokerCpu.median)} (${ms(l.libreOfficeCpu.median)}) / ${
        l.referenceCpu ? ms(l.referenceCpu.median) : "n/a"
      }`,
      `${l.pages} / ${l.referencePages}`
    ])
  ))
  lines.push("")
  lines.push("Per run (other processes' CPU during the broker's side / the reference's side is the machine's noise):")
  lines.push("")
  lines.push(table(
    [
      "Document",
      "Run",
      "First",
      "Upload → image",
      "Image after upload",
      "Layout after upload",
      "processingTime / queuedTime",
      "Reference",
      "Other CPU broker / reference"
    ],
    r.large.flatMap((l) =>
      l.runs.map((x) => [
        l.file,
        String(x.run),
        x.first,
        ms(x.uploadToImageMs),
        ms(x.imageAfterUploadMs),
        ms(x.layoutAfterUploadMs),
        `${x.order.processingTime ?? "–"} / ${x.order.queuedTime ?? "–"} ms`,
        ms(x.referenceMs),
        `${cores(x.otherCoresBroker)} / ${cores(x.otherCoresReference)}`
      ])
    )
  ))
  lines.push("")
  const pageNote = r.large.filter((l) => l.pages !== l.referencePages)
  if (pageNote.length > 0) {
    lines.push(
      `Page counts differ (${
        pageNote.map((l) => `${l.file}: ${l.pages} vs ${l.referencePages}`).join("; ")
      }): the broker hands text and HTML to LibreOffice as UTF-8 with import filters of its own (HTML: "HTML (StarWriter)", a Writer text document; text: "Text (encoded)", UTF8, Liberation Mono), while the plain \`--convert-to\` lets soffice choose (an .html file opens as a Writer/Web document, with its own page layout); the reference converts the same bytes, not into the same pages.`
    )
    lines.push("")
  }

  lines.push("## 2. Throughput: 8 small files at once")
  lines.push("")
  lines.push(
    `${
      r.settings.batch.join(", ")
    } uploaded at once (8 parallel upload-then-layout chains); wall time from the first upload request to the last layout answer, median of ${b.runs.length} batch(es) (${
      b.runs.map((x) => ms(x.wallMs)).join(", ")
    }). ` +
      "Each batch ran on a brand-new broker with an empty DATA_DIR (started, then warmed by one untimed tiny conversion), so nothing was deduplicated although the ZIP- and OLE-based files were uploaded with their original bytes. " +
      `The order records come from GET /conversions/{id} after the batch: \`queuedTime\` is the wait for one of the ${r.settings.orderWorkers} order workers, \`processingTime\` the worker's time including the wait for the ${r.settings.officeInstances} LibreOffice instance(s). ` +
      `Reference for context: the same 8 files through cold \`soffice --convert-to\` one after another (two cannot share one profile), ${
        ms(b.coldSequentialMs)
      } in all.`
  )
  lines.push("")
  lines.push(table(["", "Broker", "Cold soffice, one after another"], [
    ["Documents per minute", b.docsPerMinute.toFixed(0), b.coldDocsPerMinute.toFixed(0)],
    ["Wall time for the 8", spread(b.wall), ms(b.coldSequentialMs)],
    [
      "Per-document batch start → layout, median / p90 / max",
      `${ms(b.latency.median)} / ${ms(b.latency.p90)} / ${ms(b.latency.max)}`,
      ""
    ],
    [
      "Order processingTime, median / p90 / max",
      `${ms(b.processingTime.median)} / ${ms(b.processingTime.p90)} / ${ms(b.processingTime.max)}`,
      ""
    ],
    [
      "Order queuedTime, median / p90 / max",
      `${ms(b.queuedTime.median)} / ${ms(b.queuedTime.p90)} / ${ms(b.queuedTime.max)}`,
      ""
    ],
    ["Other processes' CPU during each batch", b.runs.map((x) => cores(x.otherCores)).join(", "), ""]
  ]))
  lines.push("")
  lines.push(
    table(
      ["File", "Pages", "processingTime", "queuedTime"],
      b.processingByFile.map((f) => [f.file, String(f.pages), spread(f.processingTime), spread(f.queuedTime)])
    )
  )
  lines.push("")

  lines.push("## 3. Memory")
  lines.push("")
  lines.push(
    "RSS sampled every 100 ms over each broker's whole process tree: npx, the tsx CLI, the server (node, worker threads included), the embedded database's initialisation child during startup, and LibreOffice (the Python driver and soffice.bin, children of the server). VmHWM is the kernel's own high-water mark: of the server process, and of each LibreOffice process (read just before the broker stopped), so LibreOffice's peak during a conversion is caught even between samples."
  )
  lines.push("")
  lines.push(table(
    [
      "Broker",
      "Startup to ready",
      "Warm-up conversion",
      "RSS at ready",
      "Peak RSS server (VmHWM)",
      "Peak RSS tree (phase)",
      "of which LibreOffice then",
      "Peak RSS tree after startup (phase)",
      "LibreOffice VmHWM (driver + soffice.bin)"
    ],
    r.brokers.map((x) => {
      const peakPhase = Object.entries(x.peakByPhase).reduce<[string, number]>(
        (a, [phase, p]) => (p.treeRssKiB > a[1] ? [phase, p.treeRssKiB] : a),
        ["", 0]
      )[0]
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
    lines.push(
      `The ${main.label} by phase (peak sampled RSS; average cores kept busy by the broker's tree, by the benchmark with its reference tools, and by other processes on the machine):`
    )
    lines.push("")
    lines.push(phaseTable(main, (phase) => phase.endsWith(": after")))
    lines.push("")
  }
  const peak = r.brokers.find((x) => x.label === r.memory.peakTreeBroker)
  if (peak) {
    const dbInit = peak.peakTree.find((p) => p.command.includes("pglite-init"))
    lines.push(
      `The process tree of the ${peak.label} at its peak${
        dbInit
          ? ` (during startup: the embedded database is initialised by a child node process, pglite-init.mjs, ${
            mib(dbInit.rssKiB)
          } then, gone once the broker is ready)`
          : ""
      }:`
    )
    lines.push("")
    lines.push(
      table(["Process", "RSS"], peak.peakTree.map((p) => [`\`${p.command.replace(/\|/g, "\\|")}\``, mib(p.rssKiB)]))
    )
    lines.push("")
  }
  return lines.join("\n") + "\n"
}
