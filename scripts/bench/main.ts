/**
 * `npm run bench [-- <section>…]`: runs the named sections, all of them without a name, one after
 * another. Each runs in a fresh bench/tmp/<run>-<section>/ directory on the working tree or on a
 * BENCH_REF copy, writes its report and prints its summary. The sections, what each measures, the
 * settings, smoke runs and BENCH_REF are documented in bench/README.md.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, rmSync, symlinkSync } from "node:fs"
import { availableParallelism, cpus, loadavg, totalmem } from "node:os"
import { basename, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { runBrokerBench } from "./broker.ts"
import { renderBrokerSummary } from "./broker/report.ts"
import { runBrowserBench } from "./browser.ts"
import { renderBrowserSummary } from "./browser/report.ts"
import { runConversionsBench } from "./conversions.ts"
import { renderConversionsSummary } from "./conversions/report.ts"
import { runGatewayBench } from "./gateway.ts"
import { renderGatewaySummary } from "./gateway/report.ts"
import { toolVersion } from "./lib/proc.ts"
import { quietWaiter } from "./lib/quiet.ts"
import type { MachineFacts, SectionOptions } from "./lib/section.ts"
import { renderOfficeSummary, runOfficeBench } from "./office.ts"
import { renderOrdersSummary, runOrdersBench } from "./orders.ts"
import { runViewerBench } from "./viewer.ts"
import { renderViewerSummary } from "./viewer/report.ts"

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)))

/** An integer setting from the environment, clamped to [min, max]; the fallback when it is not an integer. */
const intEnv = (name: string, fallback: number, min: number, max: number) => {
  const value = Number(process.env[name] ?? fallback)
  return Number.isInteger(value) ? Math.min(max, Math.max(min, value)) : fallback
}

// ---- Settings (bench/README.md) --------------------------------------------------------------
const RUNS = intEnv("BENCH_RUNS", 7, 1, 9)
const KEEP_TMP = process.env.BENCH_KEEP_TMP === "1"
const REF = process.env.BENCH_REF?.trim() || undefined
const QUIET_BUDGET_MS = intEnv("BENCH_QUIET_BUDGET", 150, 0, 600) * 1000
const THROUGHPUT_PAGES = intEnv("BENCH_THROUGHPUT_PAGES", 400, 2, 400)
/** Pages of each file in the broker's memory soak; unset: all of them (fewer only in a smoke run). */
const SOAK_PAGES = process.env.BENCH_SOAK_PAGES ? intEnv("BENCH_SOAK_PAGES", 1000, 1, 1000) : Number.POSITIVE_INFINITY
/** A smoke run measures for 3 s unless told otherwise. */
const GATEWAY_SECONDS = intEnv("BENCH_GATEWAY_SECONDS", RUNS < 3 ? 3 : 20, 1, 300)
const VIEWER_SECONDS = intEnv("BENCH_VIEWER_SECONDS", RUNS < 3 ? 2 : 5, 1, 120)

const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`)

/** One quiet-wait budget for the whole run: a busy machine delays the run by at most BENCH_QUIET_BUDGET. */
const waitForQuiet = quietWaiter(QUIET_BUDGET_MS, log)

interface Section {
  /**
   * Settings shortened below a full run: a smoke test of the script, whose report goes to
   * bench/tmp/smoke-results/ and never replaces one in bench/results/.
   */
  readonly smoke: boolean
  /** Measures, writes the report and answers the summary to print. */
  readonly measure: (options: SectionOptions) => Promise<string>
}

/** The sections in the order `npm run bench` runs them. */
const SECTIONS = {
  broker: {
    smoke: RUNS < 3 || THROUGHPUT_PAGES < 400 || Number.isFinite(SOAK_PAGES),
    measure: async (options) =>
      renderBrokerSummary(
        await runBrokerBench({
          ...options,
          concurrency: intEnv("BENCH_CONCURRENCY", 4, 1, 16),
          freshRepeats: intEnv("BENCH_FRESH_REPEATS", 5, 1, 8),
          throughputPages: THROUGHPUT_PAGES,
          quietBudgetMs: QUIET_BUDGET_MS,
          soak: process.env.BENCH_SOAK !== "0",
          soakPages: SOAK_PAGES
        })
      )
  },
  office: {
    smoke: RUNS < 3,
    // A budget of its own, at most a minute, outside the shared one.
    measure: async (options) =>
      renderOfficeSummary(
        await runOfficeBench({ ...options, waitForQuiet: quietWaiter(Math.min(QUIET_BUDGET_MS, 60_000), log) })
      )
  },
  conversions: {
    smoke: RUNS < 3,
    measure: async (options) => renderConversionsSummary(await runConversionsBench(options))
  },
  gateway: {
    // Shorter runs than the requirement's 20 s are smoke tests of the script too.
    smoke: RUNS < 3 || GATEWAY_SECONDS < 20,
    measure: async (options) =>
      renderGatewaySummary(
        await runGatewayBench({
          ...options,
          seconds: GATEWAY_SECONDS,
          concurrency: intEnv("BENCH_GATEWAY_CONCURRENCY", 50, 1, 500),
          databaseUrl: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
          profileDir: process.env.BENCH_GATEWAY_PROFILE === "1"
            ? join(root, "bench", "tmp", "gateway-profiles", basename(options.tmp))
            : undefined
        })
      )
  },
  orders: {
    smoke: RUNS < 3,
    measure: async (options) => renderOrdersSummary(await runOrdersBench(options))
  },
  viewer: {
    smoke: RUNS < 3 || VIEWER_SECONDS < 5,
    measure: async (options) =>
      renderViewerSummary(
        await runViewerBench({
          ...options,
          seconds: VIEWER_SECONDS,
          concurrency: intEnv("BENCH_VIEWER_CONCURRENCY", 16, 1, 256),
          databaseUrl: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
          profileDir: process.env.BENCH_VIEWER_PROFILE === "1"
            ? join(root, "bench", "tmp", "viewer-profiles", basename(options.tmp))
            : undefined
        })
      )
  },
  browser: {
    smoke: RUNS < 3,
    measure: async (options) => renderBrowserSummary(await runBrowserBench(options))
  }
} satisfies Record<string, Section>
type SectionName = keyof typeof SECTIONS

const askedSections = (): Array<SectionName> => {
  const known = Object.keys(SECTIONS) as Array<SectionName>
  const asked = process.argv.slice(2).filter((a) => !a.startsWith("-"))
  const unknown = asked.filter((a) => !(known as Array<string>).includes(a))
  if (unknown.length > 0) throw new Error(`Unknown bench section(s) ${unknown.join(", ")}; known: ${known.join(", ")}`)
  return known.filter((name) => asked.length === 0 || asked.includes(name))
}

const machineFacts = (): MachineFacts => {
  const git = (...args: Array<string>) => {
    try {
      return execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim()
    } catch {
      return "unknown"
    }
  }
  return {
    date: new Date().toISOString(),
    nproc: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? "unknown",
    totalMemoryMiB: Math.round(totalmem() / 1024 / 1024),
    node: process.version,
    mutool: toolVersion("mutool", ["-v"]),
    pdftoppm: toolVersion("pdftoppm", ["-v"]),
    pdftotext: toolVersion("pdftotext", ["-v"]),
    gitHead: git("rev-parse", "--short", "HEAD"),
    measuredRef: REF ? `${REF} (${git("rev-parse", "--short", `${REF}^{commit}`)}), clean copy` : null,
    srcChanges: git("status", "--porcelain", "--", "src").split("\n").filter(Boolean),
    loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100)
  }
}

/** The working tree, or with BENCH_REF a clean copy of that commit under `tmp` (with this checkout's node_modules). */
const codeToMeasure = (tmp: string) => {
  if (!REF) return root
  const checkout = join(tmp, "checkout")
  mkdirSync(checkout, { recursive: true })
  execFileSync("sh", ["-c", `git archive --format=tar "$1" | tar -x -C "$2"`, "sh", REF, checkout], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"]
  })
  symlinkSync(join(root, "node_modules"), join(checkout, "node_modules"))
  return checkout
}

/**
 * Runs one section in a fresh bench/tmp/<run>-<name>/ directory and prints its summary. The
 * directory is removed after a success unless BENCH_KEEP_TMP=1; a failed run keeps its logs and
 * data directories for a look.
 */
const runSection = async (name: SectionName) => {
  const section: Section = SECTIONS[name]
  const runId = `${new Date().toISOString().replace(/[:.]/g, "-")}-${name}`
  const tmp = join(root, "bench", "tmp", runId)
  mkdirSync(tmp, { recursive: true })
  const machine = machineFacts()
  let succeeded = false
  try {
    const codeRoot = codeToMeasure(tmp)
    log(
      `${name} section: ${RUNS} runs per median${REF ? `, measuring ${machine.measuredRef}` : ""}${
        section.smoke ? " (smoke run: results go to bench/tmp/smoke-results/)" : ""
      }`
    )
    if (!REF && machine.srcChanges.length > 0) {
      log(
        `note: src/ has uncommitted changes (${machine.srcChanges.length} files); the working tree is what is measured (BENCH_REF=HEAD measures the last commit)`
      )
    }
    const summary = await section.measure({
      codeRoot,
      corpus: join(root, "test", "corpus"),
      tmp,
      outDir: section.smoke ? join(root, "bench", "tmp", "smoke-results") : join(root, "bench", "results"),
      runs: RUNS,
      machine,
      log,
      waitForQuiet
    })
    console.log("\n" + summary + "\n")
    succeeded = true
  } finally {
    if (succeeded && !KEEP_TMP) rmSync(tmp, { recursive: true, force: true })
    else log(`kept ${tmp}`)
  }
}

const run = async () => {
  for (const name of askedSections()) await runSection(name)
}

run().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
