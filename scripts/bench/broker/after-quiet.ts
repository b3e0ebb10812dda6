/**
 * The first requests after a quiet spell (issue 19), part of the "broker" section: a business
 * application's viewer is opened now and then, so most of its first pages come to a broker that
 * has had nothing to do for longer than RENDER_WORKER_IDLE. On a broker of its own, with
 * RENDER_WORKER_IDLE at AFTER_QUIET_IDLE so that a round takes seconds rather than minutes, each
 * round leaves it alone for QUIET_MS (past the idle time, so its used worker thread has been
 * replaced), then asks for one page image never asked before and, as soon as it has come, for that
 * page's text positions (the viewer's order: the broker reads them ahead once it has drawn the
 * page, TEXT_AHEAD_MIN_WIDTH); after another quiet spell, for the text positions of a page never
 * drawn nor asked before. The references are whole processes started cold too: `mutool draw` of
 * the same page at the same width, `pdftotext -bbox` of the same page.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { getJson, getPageImage, type PageTextResult, upload } from "../lib/http.ts"
import { processMemory, runTimed } from "../lib/proc.ts"
import type { SectionOptions } from "../lib/section.ts"
import { startBroker } from "../lib/service.ts"
import { fmtRatio, median, mib, ms, ratio, summarize, type Summary } from "../lib/stats.ts"

const FILE = "tracemonkey.pdf"
const PAGES = 14
const WIDTH = 1240
const AFTER_QUIET_IDLE = "3 seconds"
const QUIET_MS = 10_000

export interface AfterQuietResults {
  readonly file: string
  readonly idle: string
  readonly quietMs: number
  readonly pageImage: Summary
  readonly mutool: Summary
  /** The text positions of the page just drawn, asked for as soon as its image came. */
  readonly textAfterImage: Summary
  readonly pdftotextAfterImage: Summary
  /** The text positions of a page neither drawn nor asked before. */
  readonly textPositions: Summary
  readonly pdftotext: Summary
  /** The server's VmRSS just before each round's page image, once the broker had been quiet. */
  readonly rssBeforeKiB: ReadonlyArray<number>
  readonly threadsBefore: ReadonlyArray<number>
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

export const measureAfterQuiet = async (options: SectionOptions, rounds: number): Promise<AfterQuietResults> => {
  const file = join(options.corpus, "pdf", FILE)
  options.log(`after a quiet spell: ${rounds} rounds, RENDER_WORKER_IDLE ${AFTER_QUIET_IDLE}`)
  await options.waitForQuiet("after a quiet spell", undefined)
  const broker = await startBroker({
    cwd: options.codeRoot,
    dataDir: join(options.tmp, "data-after-quiet"),
    logFile: join(options.tmp, "broker-after-quiet.log"),
    env: { RENDER_WORKER_IDLE: AFTER_QUIET_IDLE }
  })
  try {
    const id = (await upload(broker.baseUrl, readFileSync(file), { documentTitle: FILE })).value
    // The document opened and a page drawn once: what follows is the thread, not the file's first opening.
    await getPageImage(broker.baseUrl, id, 0, `IM_${WIDTH}_0`, WIDTH)
    const textOf = async (page: number) =>
      (await getJson<PageTextResult>(
        broker.baseUrl,
        `/documents/${encodeURIComponent(id)}/pages/${page}/text/position`
      ))
        .ms
    const png = join(options.tmp, "mutool-after-quiet.png")
    const mutoolOf = async (page: number, width: number) =>
      (await runTimed("mutool", ["draw", "-q", "-o", png, "-w", String(width), file, String(page + 1)])).ms
    const html = join(options.tmp, "pdftotext-after-quiet.html")
    const pdftotextOf = async (page: number) =>
      (await runTimed("pdftotext", ["-bbox", "-f", String(page + 1), "-l", String(page + 1), file, html])).ms

    const runs = {
      image: [] as Array<number>,
      mutool: [] as Array<number>,
      textAfterImage: [] as Array<number>,
      pdftotextAfterImage: [] as Array<number>,
      text: [] as Array<number>,
      pdftotext: [] as Array<number>
    }
    const rssBeforeKiB: Array<number> = []
    const threadsBefore: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      const width = WIDTH + 1 + round
      const drawn = (round + 1) % PAGES
      await sleep(QUIET_MS)
      const before = processMemory(broker.serverPid() ?? -1)
      rssBeforeKiB.push(before?.rssKiB ?? Number.NaN)
      threadsBefore.push(before?.threads ?? Number.NaN)
      runs.image.push((await getPageImage(broker.baseUrl, id, drawn, `IM_${width}_0`, width)).ms)
      runs.textAfterImage.push(await textOf(drawn))
      runs.mutool.push(await mutoolOf(drawn, width))
      runs.pdftotextAfterImage.push(await pdftotextOf(drawn))

      const neverDrawn = (round + 1 + Math.floor(PAGES / 2)) % PAGES
      await sleep(QUIET_MS)
      runs.text.push(await textOf(neverDrawn))
      runs.pdftotext.push(await pdftotextOf(neverDrawn))
    }
    return {
      file: FILE,
      idle: AFTER_QUIET_IDLE,
      quietMs: QUIET_MS,
      pageImage: summarize(runs.image),
      mutool: summarize(runs.mutool),
      textAfterImage: summarize(runs.textAfterImage),
      pdftotextAfterImage: summarize(runs.pdftotextAfterImage),
      textPositions: summarize(runs.text),
      pdftotext: summarize(runs.pdftotext),
      rssBeforeKiB,
      threadsBefore
    }
  } finally {
    await broker.stop()
  }
}

const row = (label: string, broker: Summary, reference: Summary) =>
  `| ${label} | ${ms(broker.median)} | ${ms(reference.median)} | ${fmtRatio(ratio(broker.median, reference.median))} |`

export const renderAfterQuietMarkdown = (r: AfterQuietResults) =>
  [
    "## After a quiet spell",
    "",
    `A broker of its own with RENDER_WORKER_IDLE ${r.idle}, ${r.file}; before each page image, and before each text request for a page not drawn, it is left alone for ${
      r.quietMs / 1000
    } s, past the idle time. Each request is for a page (or a width) never asked before; each reference is a whole process, started cold as well. Medians of ${r.pageImage.n} rounds.`,
    "",
    "| Request | Broker | Reference | Ratio |",
    "|---|---:|---:|---:|",
    row(`Page image after the quiet spell, ${WIDTH + 1}+ px (\`mutool draw\`)`, r.pageImage, r.mutool),
    row(
      "Text positions of that page, asked as soon as its image came (`pdftotext -bbox`)",
      r.textAfterImage,
      r.pdftotextAfterImage
    ),
    row(
      "Text positions of a page neither drawn nor asked before, after the quiet spell (`pdftotext -bbox`)",
      r.textPositions,
      r.pdftotext
    ),
    "",
    `Server VmRSS before each page image: ${r.rssBeforeKiB.map(mib).join(", ")} (median ${
      mib(median(r.rssBeforeKiB))
    }); threads ${r.threadsBefore.join(", ")}.`,
    ""
  ].join("\n")
