/**
 * What the sections' reports share: writing a report next to its JSON, Markdown tables, and the
 * tables and figures several sections show (targets, a service's phases, the machine's noise).
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import type { PhaseCpu } from "./proc.ts"
import { mib, ms, round, type Summary } from "./stats.ts"

export interface Target {
  readonly name: string
  readonly figure: string
  readonly met: boolean
}

/**
 * Writes a section's results to `<outDir>/<name>-<date>.json` and its report, which links to them,
 * to `<name>-<date>.md`; answers both paths.
 */
export const writeSectionReport = <R>(
  outDir: string,
  name: string,
  results: R,
  render: (results: R, jsonName: string) => string
) => {
  const day = new Date().toISOString().slice(0, 10)
  mkdirSync(outDir, { recursive: true })
  const jsonPath = join(outDir, `${name}-${day}.json`)
  const mdPath = join(outDir, `${name}-${day}.md`)
  writeFileSync(jsonPath, JSON.stringify(results, null, 2) + "\n")
  writeFileSync(mdPath, render(results, basename(jsonPath)))
  return { jsonPath, mdPath }
}

export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) =>
  [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`)
  ].join("\n")

export const cores = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)} cores` : "n/a")

export const spread = (s: Summary) => `${ms(s.median)} (${round(s.min)}–${round(s.max)})`

export const targetsTable = (targets: ReadonlyArray<Target>) =>
  table(["Target", "Figure", "Status"], targets.map((t) => [t.name, t.figure, t.met ? "met" : "**MISSED**"]))

/** Phase records of one broker, as the sections collect them. */
interface Phases {
  readonly peakByPhase: Readonly<Record<string, { readonly serverRssKiB: number; readonly treeRssKiB: number }>>
  readonly cpuByPhase: Readonly<Record<string, PhaseCpu>>
}

/**
 * A broker's phases: peak sampled RSS and the cores kept busy by the broker, by the benchmark with
 * its reference tools, and by other processes. Phases that only close the one before them (`closes`,
 * under a second) carry no figures of their own and are left out.
 */
export const phaseTable = (broker: Phases, closes: (phase: string) => boolean) => {
  const phases = [...new Set([...Object.keys(broker.peakByPhase), ...Object.keys(broker.cpuByPhase)])]
    .filter((phase) => !(closes(phase) && (broker.cpuByPhase[phase]?.seconds ?? 0) < 1))
  return table(
    ["Phase", "Duration", "Peak RSS server", "Peak RSS tree", "Broker CPU", "Bench + tools CPU", "Other processes CPU"],
    phases.map((phase) => {
      const p = broker.peakByPhase[phase]
      const c = broker.cpuByPhase[phase]
      // CPU shares over a fraction of a second are mostly clock-tick rounding.
      const cpu = c && c.seconds >= 1 ? c : undefined
      return [
        phase,
        c ? `${round(c.seconds)} s` : "",
        p ? mib(p.serverRssKiB) : "",
        p ? mib(p.treeRssKiB) : "",
        cpu ? cores(cpu.brokerCores) : "–",
        cpu ? cores(cpu.benchCores) : "–",
        cpu ? cores(cpu.otherCores) : "–"
      ]
    })
  )
}

/** Cores other processes kept busy on average over the whole run (every broker's phases, weighted by duration). */
export const otherCoresOverall = (
  r: {
    readonly brokers: ReadonlyArray<
      { readonly cpuByPhase: Readonly<Record<string, { readonly seconds: number; readonly otherCores: number }>> }
    >
  }
) => {
  let seconds = 0
  let coreSeconds = 0
  for (const b of r.brokers) {
    for (const c of Object.values(b.cpuByPhase)) {
      seconds += c.seconds
      coreSeconds += c.otherCores * c.seconds
    }
  }
  return seconds > 0 ? coreSeconds / seconds : Number.NaN
}
