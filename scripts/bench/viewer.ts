/**
 * Section "viewer" of `npm run bench`: what the viewer adds to a page image and to pageContent
 * over calling the broker directly, and how it spreads documents over two brokers.
 *
 * Two real brokers (`node scripts/start.mjs broker`) on one PostgreSQL schema (BENCH_DATABASE_URL, a
 * fresh schema dropped after) and one blob directory, as docs/viewer.md says to run them; viewers
 * (`node scripts/start.mjs viewer`) each on a schema of their own; the load generator is this process
 * (node:http, a keep-alive agent of BENCH_VIEWER_CONCURRENCY sockets per target).
 *
 *  1. added latency: a viewer whose only target is the first broker. The corpus's 14-page
 *     tracemonkey.pdf, each page drawn once at 600 px through both (the broker's cache then
 *     answers: a warm page image). Then BENCH_VIEWER_CONCURRENCY (16) clients, each sending its
 *     next request when the last is answered, for BENCH_VIEWER_SECONDS per run, walking the pages:
 *     the page image straight from the broker (`/documents/{id}/pages/{p}/image`) and through the
 *     viewer (`/viewergwt/imageServlet`), then the page's text (`/text/position`, `pageContent`).
 *     Direct and viewer runs alternate, three rounds of each (one in a smoke run), their samples
 *     pooled; "added" is the viewer's percentile minus the broker's. Also each process's CPU time
 *     per request.
 *  2. spread: a viewer with both brokers as targets, once round-robin and once weighted (the
 *     default). 32 documents uploaded to the brokers in turn, then opened through the viewer by 16
 *     clients at once (pageContent of page 0: the first call chooses the document's target); the
 *     share of documents each target got, read from the viewer's table viewer_documents, and the
 *     brokers' /weather scores at that moment.
 *
 * The requests are in viewer/requests.ts, the report in viewer/report.ts; settings and where the
 * report goes: bench/README.md.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { closedLoop, keepAliveAgent, latencies, type Send } from "./gateway/load.ts"
import { processCpuMs } from "./lib/proc.ts"
import type { QuietWait } from "./lib/quiet.ts"
import { writeSectionReport } from "./lib/report.ts"
import type { SectionOptions } from "./lib/section.ts"
import { type RunningService, startBroker, startViewer } from "./lib/service.ts"
import { round } from "./lib/stats.ts"
import { renderViewerMarkdown, type Round, type Spread, type ViewerBenchResults } from "./viewer/report.ts"
import { checkAnswer, get, type Kind, pageRequests, pageUrl } from "./viewer/requests.ts"

export interface ViewerBenchOptions extends SectionOptions {
  readonly seconds: number
  readonly concurrency: number
  /** PostgreSQL the brokers share (a fresh schema in it). */
  readonly databaseUrl: string
  /** Directory for `--cpu-prof` profiles of the viewer process, when profiling. */
  readonly profileDir: string | undefined
}

const WIDTH = 600
const PAGES = 14
const SPREAD_DOCUMENTS = 32

const psql = (url: string, statement: string) =>
  execFileSync("psql", [url, "-v", "ON_ERROR_STOP=1", "-qAtc", statement], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  })

/** A fresh schema in the PostgreSQL at `base` and a URL whose sessions use it. */
const freshSchema = (base: string, name: string) => {
  const schema = `bench_viewer_${name}_${Date.now().toString(36)}`
  psql(base, `CREATE SCHEMA ${schema}`)
  const url = new URL(base)
  url.searchParams.set("options", `-c search_path=${schema}`)
  return { schema, url: url.href, drop: () => psql(base, `DROP SCHEMA IF EXISTS ${schema} CASCADE`) }
}

const uploadTo = async (broker: string, body: Buffer) => {
  const response = await fetch(`${broker}/documents`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: new Uint8Array(body)
  })
  if (response.status !== 200) {
    throw new Error(`upload to ${broker} answered ${response.status}: ${await response.text()}`)
  }
  return ((await response.json()) as { id: string }).id
}

export const runViewerBench = async (options: ViewerBenchOptions): Promise<ViewerBenchResults> => {
  const { log, seconds, concurrency } = options
  const started = performance.now()
  const rounds = options.runs < 3 ? 1 : 3
  const quietWaits: Array<QuietWait> = []
  const schemas: Array<ReturnType<typeof freshSchema>> = []
  const services: Array<RunningService> = []
  const schema = (name: string) => {
    const created = freshSchema(options.databaseUrl, name)
    schemas.push(created)
    return created
  }
  const brokerEnv = { DATABASE_URL: schema("brokers").url }
  const blobDir = join(options.tmp, "shared-data")
  const start = async (what: "broker" | "viewer", name: string, env: Record<string, string>, profile = false) => {
    const service = await (what === "broker" ? startBroker : startViewer)({
      cwd: options.codeRoot,
      dataDir: what === "broker" ? blobDir : join(options.tmp, `data-${name}`),
      logFile: join(options.tmp, `${name}.log`),
      env,
      ...(profile && options.profileDir !== undefined
        ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${options.profileDir}`] }
        : {})
    })
    services.push(service)
    log(`${name} ready in ${Math.round(service.startupMs)} ms on ${service.baseUrl}`)
    return service
  }

  try {
    const a = await start("broker", "broker-a", brokerEnv)
    const b = await start("broker", "broker-b", brokerEnv)
    const viewer = await start(
      "viewer",
      "viewer-one-target",
      { DATABASE_URL: schema("one").url, RENDITION_TARGETS: a.baseUrl },
      true
    )

    // ---- 1. added latency ------------------------------------------------------------------
    const id = await uploadTo(a.baseUrl, readFileSync(join(options.corpus, "pdf", "tracemonkey.pdf")))
    const agents = { broker: keepAliveAgent(concurrency), viewer: keepAliveAgent(concurrency) }
    const bases = { broker: a.baseUrl, viewer: viewer.baseUrl }
    for (const via of ["broker", "viewer"] as const) {
      for (const kind of ["image", "text"] as const) {
        for (let page = 0; page < PAGES; page++) {
          const url = pageUrl(bases[via], via, kind, id, page, WIDTH)
          checkAnswer(await get(agents[via], url), kind, WIDTH, url)
        }
      }
    }
    log(`tracemonkey.pdf (${id}): ${PAGES} pages drawn at ${WIDTH} px and their text read, through both`)
    const warmUp = (send: Send) => closedLoop(concurrency, Math.max(1, Math.round(seconds / 4)), send)
    const runs: Array<Round> = []
    /** Every request's time, by kind and target, pooled over the rounds. */
    const samples = new Map<string, Array<number>>()
    const recorded = (send: Send, into: Array<number>): Send => async (client, startedAt) => {
      const timing = await send(client, startedAt)
      into.push(timing.ms)
      return timing
    }
    for (const kind of ["image", "text"] as const satisfies ReadonlyArray<Kind>) {
      const sends = {
        broker: pageRequests(agents.broker, a.baseUrl, "broker", kind, id, PAGES, WIDTH),
        viewer: pageRequests(agents.viewer, viewer.baseUrl, "viewer", kind, id, PAGES, WIDTH)
      }
      await warmUp(sends.broker)
      await warmUp(sends.viewer)
      for (let r = 0; r < rounds; r++) {
        quietWaits.push(await options.waitForQuiet(`${kind}, round ${r + 1}`, undefined))
        for (const via of ["broker", "viewer"] as const) {
          const cpuBefore = {
            broker: processCpuMs(a.serverPid() ?? -1),
            viewer: processCpuMs(viewer.serverPid() ?? -1)
          }
          const into = samples.get(`${kind} ${via}`) ?? []
          samples.set(`${kind} ${via}`, into)
          const result = await closedLoop(concurrency, seconds, recorded(sends[via], into))
          const per = (before: number, pid: number | undefined) =>
            (processCpuMs(pid ?? -1) - before) / Math.max(1, result.completed)
          runs.push({
            kind,
            via,
            round: r + 1,
            load: result,
            cpuPerRequestMs: {
              broker: per(cpuBefore.broker, a.serverPid()),
              viewer: per(cpuBefore.viewer, viewer.serverPid())
            },
            loadAverage1m: round(loadavg()[0]!, 2)
          })
          log(
            `${kind} via ${via}, round ${r + 1}: ${result.completed} requests, ${Math.round(result.perSecond)}/s, ` +
              `p50 ${round(result.total.p50, 2)} ms, p99 ${round(result.total.p99, 2)} ms` +
              (result.errors > 0 ? `, ${result.errors} errors (${result.errorSamples[0]})` : "")
          )
          if (result.errors > 0) throw new Error(`${kind} via ${via}: ${result.errorSamples.join(" | ")}`)
        }
      }
    }
    for (const agent of Object.values(agents)) agent.destroy()
    const pooled = (kind: Kind, via: "broker" | "viewer") => latencies(samples.get(`${kind} ${via}`) ?? [])

    // ---- 2. spread over two targets --------------------------------------------------------
    const spreads: Array<Spread> = []
    const small = readFileSync(join(options.corpus, "pdf", "basicapi.pdf"))
    for (const choice of ["round-robin", "weighted"] as const) {
      const viewerSchema = schema(choice.replace("-", "_"))
      const two = await start("viewer", `viewer-${choice}`, {
        DATABASE_URL: viewerSchema.url,
        RENDITION_TARGETS: `${a.baseUrl},${b.baseUrl}`,
        VIEWER_TARGET_CHOICE: choice
      })
      const ids: Array<string> = []
      for (let i = 0; i < SPREAD_DOCUMENTS; i++) ids.push(await uploadTo(i % 2 === 0 ? a.baseUrl : b.baseUrl, small))
      const scores = await Promise.all([a, b].map(async (broker) => (await fetch(`${broker.baseUrl}/weather`)).text()))
      const agent = keepAliveAgent(concurrency)
      const queue = [...ids]
      await Promise.all(Array.from({ length: concurrency }, async () => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          const url = pageUrl(two.baseUrl, "viewer", "text", next, 0, WIDTH)
          checkAnswer(await get(agent, url), "text", WIDTH, url)
        }
      }))
      agent.destroy()
      // Named with its schema: psql does not read the URL's options as the services' client does.
      const rows = psql(
        options.databaseUrl,
        `SELECT target, count(*) FROM ${viewerSchema.schema}.viewer_documents GROUP BY target`
      )
      const counts = Object.fromEntries(
        rows.trim().split("\n").map((line) => line.split("|")).map(([t, n]) => [t!, Number(n)])
      )
      spreads.push({
        choice,
        documents: ids.length,
        targets: [a, b].map((broker, i) => ({
          url: broker.baseUrl,
          documents: counts[broker.baseUrl] ?? 0,
          weather: Number.parseFloat(scores[i]!)
        }))
      })
      log(
        `spread, ${choice}: ${
          spreads.at(-1)!.targets.map((t) => `${t.documents}`).join(" and ")
        } of ${ids.length} documents`
      )
    }

    const added = (kind: Kind) => {
      const via = pooled(kind, "viewer")
      const direct = pooled(kind, "broker")
      return { viewer: via, broker: direct, p50: via.p50 - direct.p50, p99: via.p99 - direct.p99 }
    }
    const results: ViewerBenchResults = {
      machine: { ...options.machine, loadAverageAtEnd: loadavg().map((l) => round(l, 2)) },
      settings: { seconds, concurrency, rounds, width: WIDTH, pages: PAGES, spreadDocuments: SPREAD_DOCUMENTS },
      durationSeconds: Math.round((performance.now() - started) / 1000),
      added: { image: added("image"), text: added("text") },
      runs,
      spreads,
      quietWaits,
      profiled: options.profileDir !== undefined
    }
    const { jsonPath, mdPath } = writeSectionReport(options.outDir, "viewer", results, renderViewerMarkdown)
    log(`wrote ${mdPath} and ${jsonPath}`)
    return results
  } finally {
    for (const service of services.reverse()) await service.stop()
    for (const created of schemas) created.drop()
  }
}
