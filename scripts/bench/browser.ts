/**
 * Section "browser" of `npm run bench`: the browser viewer in real headless Chromium against
 * pdf.js's own PDFViewer component, in the same run.
 *
 * A real broker (`node scripts/start.mjs broker`) and a viewer (`node scripts/start.mjs viewer`, its
 * only rendition target that broker), each on a free loopback port with a fresh DATA_DIR and the
 * embedded database. Three documents are uploaded to the broker and their layout and flat layout
 * read through the viewer before any navigation (converted, layout warm): the 400-page corpus PDF
 * (the IRS manual), the 14-page tracemonkey.pdf, and a 20,000-page PDF of text pages generated
 * with pdf-lib into the section's tmp directory. pdf.js gets the same files from a small node:http
 * server on loopback (browser/pdfjs-server.ts) with pdfjs-dist's own files, range requests
 * answered; its page (browser/pdfjs-page.ts) sets up PDFViewer as pdf.js's component example does,
 * with the getDocument options of pdf.js's viewer and the scale page-width. Ours is the full page
 * `{viewer}/?uuid=<id>` as the viewer serves it, at its own default zoom, from web/dist/ of the
 * code measured (bundled first by its scripts/build-web.mjs, which does nothing when it is current).
 *
 * Chromium (Debian's, playwright-core, headless, 1280×720) opens every navigation in a fresh
 * browser context; a probe installed before the page's scripts (browser/probe.ts) records each
 * `pagerendered` (ours: the DOM event of `<docstack-viewer>`; pdf.js: its eventBus's, those that
 * painted) and every long task on performance.now(), whose origin is the navigation's start.
 *
 *  1. navigation → page 1 painted, the 400-page PDF and tracemonkey.pdf; on the 400-page one, once
 *     no page has been painted for 500 ms, goToPage(200) → page 200 painted.
 *  2. the 20,000-page PDF: navigation → page 1 painted, then a full scroll: one step per animation
 *     frame, a viewport height or 1/600 of the document, whichever is longer (the scroll bar flung
 *     from top to bottom; wheel steps of a viewport height would take 40,000 frames), not waiting
 *     for pages on the way, then the last page painted. pdf.js shows one page at a time above
 *     10,000 pages: its steps go by page number, 1/600 of the pages each. Total time, the longest
 *     task (PerformanceObserver 'longtask', tasks of 50 ms or more), the most DOM nodes and
 *     elements (open shadow roots included, counted every 10 frames; the target, Lighthouse's
 *     1,400, counts elements: lit's comment markers are nodes too).
 *  3. the 400-page PDF read page by page (goToPage, then that page painted), then the JS heap in
 *     use after a garbage collection (CDP HeapProfiler.collectGarbage, Runtime.getHeapUsage) of
 *     the page and of each of its workers (pdf.js parses in a worker).
 *
 * Before the runs each viewer navigates once to each document, unmeasured (reported apart: for
 * ours the broker then draws those pages for the first time). Then BENCH_RUNS runs, each
 * measurement preceded by a quiet wait, the two viewers taking turns first. A viewer that fails a
 * measurement is not asked again for it; the report lists the failure and the section fails after
 * writing it. The report is in browser/report.ts; settings and where it goes: bench/README.md.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, statSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { writeTextPagesPdf } from "./browser/generate.ts"
import { type BrowserHarness, launchBrowser, VIEWPORT } from "./browser/measure.ts"
import { type PdfjsServer, pdfjsVersion, startPdfjsServer } from "./browser/pdfjs-server.ts"
import {
  type BenchDocument,
  type BrowserBenchResults,
  type Failure,
  type MeasurementName,
  type Measurements,
  renderBrowserMarkdown,
  type ViewerName,
  VIEWERS
} from "./browser/report.ts"
import { getJson, upload } from "./lib/http.ts"
import type { QuietWait } from "./lib/quiet.ts"
import { writeSectionReport } from "./lib/report.ts"
import type { SectionOptions } from "./lib/section.ts"
import { type RunningService, startBroker, startViewer } from "./lib/service.ts"
import { round } from "./lib/stats.ts"

const LARGE = "pdf2image-memory-error-test-400p.pdf"
const SMALL = "tracemonkey.pdf"
const GENERATED_PAGES = 20_000
const JUMP_TO = 200
const SCROLL_MAX_STEPS = 600

type DocumentName = "large" | "small" | "generated"

type RunOf<K extends MeasurementName> = Measurements[K][ViewerName][number]

/** Mutable runs of one measurement, by viewer. */
const perViewer = <A>(): Record<ViewerName, Array<A>> => ({ ours: [], pdfjs: [] })

export const runBrowserBench = async (options: SectionOptions): Promise<BrowserBenchResults> => {
  const { log } = options
  const started = performance.now()
  const services: Array<RunningService> = []
  let pdfjs: PdfjsServer | undefined
  let harness: BrowserHarness | undefined

  const generatedFile = `generated-${GENERATED_PAGES}.pdf`
  const paths: Record<DocumentName, string> = {
    large: join(options.corpus, "pdf", LARGE),
    small: join(options.corpus, "pdf", SMALL),
    generated: join(options.tmp, generatedFile)
  }
  const generating = performance.now()
  await writeTextPagesPdf(paths.generated, GENERATED_PAGES)
  log(`${generatedFile} written in ${Math.round((performance.now() - generating) / 1000)} s`)

  // The viewer serves web/dist/ of the code measured: built from its web/ sources if they changed.
  if (existsSync(join(options.codeRoot, "scripts", "build-web.mjs"))) {
    log(execFileSync("node", ["scripts/build-web.mjs"], { cwd: options.codeRoot, encoding: "utf8" }).trim())
  }

  try {
    const start = async (what: "broker" | "viewer", env: Record<string, string>) => {
      const service = await (what === "broker" ? startBroker : startViewer)({
        cwd: options.codeRoot,
        dataDir: join(options.tmp, `data-${what}`),
        logFile: join(options.tmp, `${what}.log`),
        env
      })
      services.push(service)
      log(`${what} ready in ${Math.round(service.startupMs)} ms on ${service.baseUrl}`)
      return service
    }
    const broker = await start("broker", {})
    const viewer = await start("viewer", { RENDITION_TARGETS: broker.baseUrl })

    // ---- The documents: uploaded, converted, their layouts read through the viewer -----------
    const documents = {} as Record<DocumentName, BenchDocument>
    for (const name of ["large", "small", "generated"] as const) {
      const path = paths[name]
      const uploaded = await upload(broker.baseUrl, new Uint8Array(readFileSync(path)), {})
      const id = uploaded.value
      const query = `uuid=${encodeURIComponent(id)}`
      const layout = await getJson<unknown>(viewer.baseUrl, `/viewergwt/documentLayout?${query}`)
      const flat = await getJson<ReadonlyArray<string>>(viewer.baseUrl, `/viewergwt/flatDocumentLayout?${query}`)
      documents[name] = {
        file: name === "generated" ? generatedFile : path.slice(path.lastIndexOf("/") + 1),
        pages: flat.value.length,
        bytes: statSync(path).size,
        id,
        uploadMs: uploaded.ms,
        layoutMs: layout.ms + flat.ms
      }
      log(
        `${documents[name].file}: ${flat.value.length} pages, uploaded in ${Math.round(uploaded.ms)} ms, ` +
          `layout ${Math.round(layout.ms)} ms and flat layout ${Math.round(flat.ms)} ms through the viewer`
      )
    }
    if (documents.generated.pages !== GENERATED_PAGES) {
      throw new Error(`The generated document has ${documents.generated.pages} pages, expected ${GENERATED_PAGES}`)
    }

    pdfjs = await startPdfjsServer(
      Object.fromEntries((Object.keys(paths) as Array<DocumentName>).map((name) => [documents[name].file, paths[name]]))
    )
    harness = await launchBrowser()
    log(`Chromium ${harness.version}; pdf.js ${pdfjsVersion()} served on ${pdfjs.baseUrl}`)
    const server = pdfjs
    const url = (viewerName: ViewerName, name: DocumentName) =>
      viewerName === "ours"
        ? `${viewer.baseUrl}/?uuid=${encodeURIComponent(documents[name].id)}`
        : server.pageUrl(documents[name].file)

    // ---- What each measurement does, with each viewer ----------------------------------------
    const browser = harness
    const measure = {
      navigationLarge: (v: ViewerName) => browser.navigation(url(v, "large"), JUMP_TO),
      navigationSmall: (v: ViewerName) => browser.navigation(url(v, "small"), null),
      scroll: (v: ViewerName) => browser.scroll(url(v, "generated"), SCROLL_MAX_STEPS),
      heap: (v: ViewerName) => browser.heap(url(v, "large"))
    } satisfies Record<MeasurementName, (v: ViewerName) => Promise<unknown>>
    const warmUp = {
      navigationLarge: perViewer<RunOf<"navigationLarge">>(),
      navigationSmall: perViewer<RunOf<"navigationSmall">>(),
      scroll: perViewer<RunOf<"scroll">>()
    }
    const runs = {
      navigationLarge: perViewer<RunOf<"navigationLarge">>(),
      navigationSmall: perViewer<RunOf<"navigationSmall">>(),
      scroll: perViewer<RunOf<"scroll">>(),
      heap: perViewer<RunOf<"heap">>()
    }
    const failures: Array<Failure> = []
    const quietWaits: Array<QuietWait> = []

    /** Measures once into `into`; after a viewer's first failure in a measurement, it is not asked again. */
    const attempt = async <K extends MeasurementName>(
      measurement: K,
      v: ViewerName,
      into: Array<RunOf<K>>,
      phase: string
    ) => {
      const label = `${measurement}, ${phase}`
      if (failures.some((f) => f.viewer === v && f.measurement === measurement)) return
      try {
        const result = (await measure[measurement](v)) as RunOf<K>
        into.push(result)
        log(`${label}, ${v}: ${brief(result)}`)
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        failures.push({ viewer: v, measurement, phase, message })
        log(`${label}, ${v} FAILED: ${message}`)
      }
    }

    for (const measurement of ["navigationLarge", "navigationSmall", "scroll"] as const) {
      for (const v of VIEWERS) await attempt(measurement, v, warmUp[measurement][v], "warm-up")
    }
    for (let r = 0; r < options.runs; r++) {
      // The viewers take turns going first, so neither always follows the other.
      const order = r % 2 === 0 ? VIEWERS : [...VIEWERS].reverse()
      for (const measurement of ["navigationLarge", "navigationSmall", "scroll", "heap"] as const) {
        quietWaits.push(await options.waitForQuiet(`${measurement}, run ${r + 1}`, undefined))
        for (const v of order) await attempt(measurement, v, runs[measurement][v], `run ${r + 1}`)
      }
    }

    const results: BrowserBenchResults = {
      machine: { ...options.machine, loadAverageAtEnd: loadavg().map((l) => round(l, 2)) },
      settings: {
        runs: options.runs,
        viewport: VIEWPORT,
        scrollMaxSteps: SCROLL_MAX_STEPS,
        jumpTo: JUMP_TO,
        chromium: browser.version,
        pdfjs: pdfjsVersion(),
        documents
      },
      durationSeconds: Math.round((performance.now() - started) / 1000),
      warmUp,
      runs,
      failures,
      quietWaits
    }
    const { jsonPath, mdPath } = writeSectionReport(options.outDir, "browser", results, renderBrowserMarkdown)
    log(`wrote ${mdPath} and ${jsonPath}`)
    if (failures.length > 0) {
      throw new Error(
        `${failures.length} measurement(s) failed (see ${mdPath}): ${
          failures.map((f) => `${f.viewer} ${f.measurement}: ${f.message}`).join(" | ")
        }`
      )
    }
    return results
  } finally {
    await harness?.close()
    await pdfjs?.close()
    for (const service of services.reverse()) await service.stop()
  }
}

/** One measurement's figures on one log line. */
const brief = (result: object) =>
  Object.entries(result)
    .filter(([, v]) => typeof v === "number" || typeof v === "boolean" || typeof v === "string")
    .map(([k, v]) => `${k} ${typeof v === "number" ? round(v) : v}`)
    .join(", ")
