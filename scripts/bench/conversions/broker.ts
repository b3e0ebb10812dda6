/**
 * The conversions section's brokers: each started on a fresh DATA_DIR and warmed by one untimed
 * conversion, its memory record (LibreOffice included) kept when it stops; and what the section
 * reads from a broker between measurements (its tree gone idle, a document's conversion order).
 */
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { getJson, type LayoutResult, upload } from "../lib/http.ts"
import { commandLine, processCpuMs, processMemory, processTree, shortCommand, treeCpuMs } from "../lib/proc.ts"
import type { SectionOptions } from "../lib/section.ts"
import { type RunningService, startBroker } from "../lib/service.ts"
import type { BrokerRecord } from "./report.ts"

/** Below this many cores the broker's own tree counts as idle (health checks only). */
export const BROKER_IDLE_CORES = 0.2

const isLibreOffice = (command: string) => /soffice|office-driver/.test(command)

/** User + system CPU of the tree's LibreOffice processes alone (the Python driver and soffice.bin), in milliseconds. */
export const libreOfficeCpuMs = (root: number) =>
  processTree(root).reduce((sum, pid) => {
    const cpu = isLibreOffice(commandLine(pid)) ? processCpuMs(pid) : 0
    return sum + (Number.isFinite(cpu) ? cpu : 0)
  }, 0)

/**
 * Waits (up to `maxMs`) until the broker's tree is idle, so the background work an upload leaves
 * behind (analysis, warm-up renders) does not share the cores with the next measurement.
 */
export const waitForBrokerIdle = async (broker: RunningService, maxMs = 60_000) => {
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
export const conversionOrder = async (broker: RunningService, documentId: string) => {
  const metadata = await getJson<DocumentMetadata>(broker.baseUrl, `/documents/${encodeURIComponent(documentId)}`)
  const ref = metadata.value.conversionOrderIds.pdf ?? Object.values(metadata.value.conversionOrderIds)[0]
  if (!ref) throw new Error(`Document ${documentId} has no conversion order`)
  const order =
    (await getJson<ConversionOrderRecord>(broker.baseUrl, `/conversions/${encodeURIComponent(ref.id)}`)).value
  if (order.currentState !== "PROCESSED") {
    throw new Error(`Conversion order ${ref.id} of ${documentId} is ${order.currentState}: ${order.errorMessage ?? ""}`)
  }
  return order
}

/**
 * Starts the section's brokers, with `env` added to their environment; `finish` stops one and adds
 * its record to `records`.
 */
export const brokerLauncher = (options: SectionOptions, env: Readonly<Record<string, string>>) => {
  const { log } = options
  const records: Array<BrokerRecord> = []
  let warmUps = 0
  const launch = async (label: string, dir: string) => {
    log(`starting ${label} (fresh DATA_DIR, embedded PGlite)`)
    const broker = await startBroker({
      cwd: options.codeRoot,
      dataDir: join(options.tmp, `data-${dir}`),
      logFile: join(options.tmp, `broker-${dir}.log`),
      env
    })
    const ready = processMemory(broker.serverPid() ?? -1)
    // An untimed first conversion (a tiny text nobody else uploads): the LibreOffice pool starts with the broker.
    broker.sampler.setPhase("warm-up conversion")
    const t = performance.now()
    try {
      const { value: id } = await upload(
        broker.baseUrl,
        Buffer.from(`Warm-up ${warmUps++} ${new Date().toISOString()}\n`),
        { documentTitle: "bench warm-up" }
      )
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
      records.push({
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
  return { launch, records }
}
