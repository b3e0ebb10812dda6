/**
 * Child processes for the benchmark: timing a reference tool as a whole process, and reading
 * memory and CPU of a process tree from /proc (Linux only).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"

export interface TimedRun {
  /** Wall time from spawn to exit, in milliseconds. */
  readonly ms: number
  /** User + system CPU time of the process, when /usr/bin/time is available. */
  readonly cpuMs?: number
  /** Peak resident memory of the process, when /usr/bin/time is available. */
  readonly maxRssKiB?: number
}

const GNU_TIME = "/usr/bin/time"
export const hasGnuTime = existsSync(GNU_TIME)

/**
 * Runs `command args` to completion and returns its wall time. Fails on a non-zero exit
 * (with the tail of stderr), so a broken reference run never passes for a fast one.
 */
export const runTimed = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cpu?: boolean; readonly timeoutMs?: number } = {}
) =>
  new Promise<TimedRun>((resolve, reject) => {
    const withCpu = options.cpu === true && hasGnuTime
    // GNU time writes its figures as the last stderr line; the tool's own stderr comes before it.
    const [cmd, argv] = withCpu ? [GNU_TIME, ["-f", "__cpu__ %U %S %M", command, ...args]] : [command, [...args]]
    const started = performance.now()
    const child = spawn(cmd, argv, { stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000)
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      const elapsed = performance.now() - started
      if (code !== 0) {
        reject(
          new Error(
            `${command} ${args.join(" ")} exited with ${code ?? signal}: ${
              stderr.trim().split("\n").slice(-3).join(" | ")
            }`
          )
        )
        return
      }
      const cpuLine = /__cpu__ ([\d.]+) ([\d.]+) (\d+)/.exec(stderr)
      resolve(
        cpuLine
          ? { ms: elapsed, cpuMs: (Number(cpuLine[1]) + Number(cpuLine[2])) * 1000, maxRssKiB: Number(cpuLine[3]) }
          : { ms: elapsed }
      )
    })
  })

/** Pages of a PDF file, as pdfinfo counts them (0 when it finds none). */
export const pdfPages = (file: string) =>
  Number(/Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [file], { encoding: "utf8" }))?.[1] ?? 0)

/** First line of a tool's version output (mutool and pdftoppm print it on stderr). */
export const toolVersion = (command: string, args: ReadonlyArray<string>) => {
  const result = spawnSync(command, [...args], { encoding: "utf8" })
  return `${result.stdout ?? ""}${result.stderr ?? ""}`.trim().split("\n")[0] ?? "unknown"
}

const readText = (path: string) => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/** The process and all its descendants (through every thread's children list). */
export const processTree = (root: number): Array<number> => {
  const result: Array<number> = []
  const visit = (pid: number) => {
    result.push(pid)
    let tids: Array<string> = []
    try {
      tids = readdirSync(`/proc/${pid}/task`)
    } catch {
      return
    }
    for (const tid of tids) {
      const children = readText(`/proc/${pid}/task/${tid}/children`)
      if (!children) continue
      for (const child of children.trim().split(/\s+/).filter(Boolean)) visit(Number(child))
    }
  }
  visit(root)
  return result
}

export interface ProcessMemory {
  readonly pid: number
  readonly rssKiB: number
  readonly hwmKiB: number
  readonly threads: number
}

export const processMemory = (pid: number): ProcessMemory | undefined => {
  const status = readText(`/proc/${pid}/status`)
  if (!status) return undefined
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? Number.NaN)
  return { pid, rssKiB: field("VmRSS"), hwmKiB: field("VmHWM"), threads: field("Threads") }
}

/** A command line without long absolute paths, for the report. */
export const shortCommand = (command: string) =>
  command.replace(/(?:file:\/\/)?\/[^\s]*\/(node_modules\/[^\s]*)/g, "$1").replace(
    /\/[^\s]*\/bench\/tmp\/[^/\s]+\/(?:checkout\/)?([^\s]*)/g,
    "$1"
  ).slice(0, 160)

export const commandLine = (pid: number) =>
  (readText(`/proc/${pid}/cmdline`) ?? "").split("\0").filter(Boolean).join(" ")

const CLOCK_TICKS = 100

const cpuOfStat = (stat: string | undefined) => {
  if (!stat) return Number.NaN
  // The command name may hold spaces; fields after it are fixed.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
}

/** User + system CPU time of one process (all its threads), in milliseconds. */
export const processCpuMs = (pid: number) => cpuOfStat(readText(`/proc/${pid}/stat`))

/** User + system CPU time of one thread (the main thread's id is the process id), in milliseconds. */
export const threadCpuMs = (pid: number, tid: number) => cpuOfStat(readText(`/proc/${pid}/task/${tid}/stat`))

/** Busy CPU time of the whole machine (all cores), from /proc/stat, in milliseconds. */
const systemBusyMs = () => {
  const f = (readText("/proc/stat")?.split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number)
  // user nice system idle iowait irq softirq steal
  return ((f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0)) * 1000 / CLOCK_TICKS
}

/** This process plus its children already reaped (the reference tools), in milliseconds. */
const benchCpuMs = () => {
  const stat = readText("/proc/self/stat")
  if (!stat) return 0
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS
}

/** User + system CPU time of the live processes of a tree, in milliseconds. */
export const treeCpuMs = (root: number) =>
  processTree(root).reduce((sum, pid) => {
    const cpu = processCpuMs(pid)
    return sum + (Number.isFinite(cpu) ? cpu : 0)
  }, 0)

/**
 * Cores kept busy over the next `windowMs` by processes other than this benchmark (and its
 * reaped tools) and the broker tree rooted at `excludeRoot`.
 */
export const otherProcessesCores = async (excludeRoot: number | undefined, windowMs: number) => {
  const snap = () => ({
    system: systemBusyMs(),
    bench: benchCpuMs(),
    broker: excludeRoot === undefined ? 0 : treeCpuMs(excludeRoot)
  })
  const a = snap()
  await new Promise((resolve) => setTimeout(resolve, windowMs))
  const b = snap()
  return Math.max(0, b.system - a.system - (b.bench - a.bench) - (b.broker - a.broker)) / windowMs
}

/** CPU time of this process's children that have exited and been reaped (the reference tools), in milliseconds. */
export const reapedChildrenCpuMs = () => {
  const stat = readText("/proc/self/stat")
  if (!stat) return Number.NaN
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS
}

interface CpuSnapshot {
  readonly at: number
  readonly systemMs: number
  readonly benchMs: number
  readonly brokerMs: number
}

/** Average cores busy during a phase: the broker tree, the benchmark with its tools, and everything else on the machine. */
export interface PhaseCpu {
  readonly seconds: number
  readonly brokerCores: number
  readonly benchCores: number
  /** Other processes on the machine: noise the measurements had to share the cores with. */
  readonly otherCores: number
}

export interface MemorySample {
  /** Seconds since the sampler started. */
  readonly t: number
  readonly phase: string
  readonly serverRssKiB: number
  readonly treeRssKiB: number
}

/**
 * Samples the resident memory of a process tree every `intervalMs`: the server process alone
 * (worker threads included, they share its address space) and the whole tree (npx, tsx, server).
 * Per phase it also accounts CPU: the broker's, the benchmark's (reference tools included) and
 * that of every other process on the machine.
 */
export class MemorySampler {
  readonly samples: Array<MemorySample> = []
  readonly cpuByPhase = new Map<string, PhaseCpu>()
  private lastCpu: CpuSnapshot | undefined
  readonly peakByPhase = new Map<string, { serverRssKiB: number; treeRssKiB: number }>()
  peakServerRssKiB = 0
  peakTreeRssKiB = 0
  maxThreads = 0
  /** The processes of the tree and their RSS when the tree was at its peak, and at the last sample. */
  peakTree: Array<{ readonly command: string; readonly rssKiB: number }> = []
  lastTree: Array<{ readonly command: string; readonly rssKiB: number }> = []
  /** The same at the tree's peak during startup (the embedded database may be initialised by a child then). */
  startupPeakTree: Array<{ readonly command: string; readonly rssKiB: number }> = []
  private phase = "startup"
  /** Other processes of the benchmark (a load target it started, say), counted as the benchmark's CPU, not as other work. */
  private readonly benchRoots: Array<number> = []
  private readonly started = performance.now()
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly rootPid: number,
    private readonly serverPid: () => number | undefined,
    private readonly intervalMs = 100
  ) {}

  start() {
    this.lastCpu = this.cpuSnapshot()
    this.sample()
    this.timer = setInterval(() => this.sample(), this.intervalMs)
    this.timer.unref()
  }

  /** Counts the tree rooted at `root` (alive, not yet reaped) as the benchmark's own. */
  countAsBench(root: number) {
    this.accountCpu()
    this.benchRoots.push(root)
    this.lastCpu = this.cpuSnapshot()
  }

  setPhase(phase: string) {
    this.sample()
    this.accountCpu()
    this.phase = phase
  }

  stop() {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.sample()
    this.accountCpu()
  }

  private cpuSnapshot(): CpuSnapshot {
    const benchMs = this.benchRoots.reduce((sum, root) => sum + treeCpuMs(root), benchCpuMs())
    return { at: performance.now(), systemMs: systemBusyMs(), benchMs, brokerMs: treeCpuMs(this.rootPid) }
  }

  private accountCpu() {
    const now = this.cpuSnapshot()
    const last = this.lastCpu
    this.lastCpu = now
    if (!last) return
    const seconds = (now.at - last.at) / 1000
    if (seconds <= 0) return
    const broker = Math.max(0, now.brokerMs - last.brokerMs) / 1000
    const bench = Math.max(0, now.benchMs - last.benchMs) / 1000
    const other = Math.max(0, (now.systemMs - last.systemMs) / 1000 - broker - bench)
    const previous = this.cpuByPhase.get(this.phase)
    const total = (previous?.seconds ?? 0) + seconds
    const merge = (prev: number | undefined, value: number) => ((prev ?? 0) * (previous?.seconds ?? 0) + value) / total
    this.cpuByPhase.set(this.phase, {
      seconds: total,
      brokerCores: merge(previous?.brokerCores, broker),
      benchCores: merge(previous?.benchCores, bench),
      otherCores: merge(previous?.otherCores, other)
    })
  }

  sample() {
    const tree = processTree(this.rootPid).map(processMemory).filter((m): m is ProcessMemory => m !== undefined)
    if (tree.length === 0) return
    const serverPid = this.serverPid()
    const server = tree.find((m) => m.pid === serverPid)
    const treeRss = tree.reduce((sum, m) => sum + (Number.isFinite(m.rssKiB) ? m.rssKiB : 0), 0)
    const serverRss = server?.rssKiB ?? 0
    const breakdown = () => tree.map((m) => ({ command: shortCommand(commandLine(m.pid)), rssKiB: m.rssKiB }))
    this.lastTree = breakdown()
    if (treeRss > this.peakTreeRssKiB) this.peakTree = this.lastTree
    if (this.phase === "startup" && treeRss > (this.peakByPhase.get("startup")?.treeRssKiB ?? 0)) {
      this.startupPeakTree = this.lastTree
    }
    this.peakServerRssKiB = Math.max(this.peakServerRssKiB, serverRss)
    this.peakTreeRssKiB = Math.max(this.peakTreeRssKiB, treeRss)
    this.maxThreads = Math.max(this.maxThreads, server?.threads ?? 0)
    const peak = this.peakByPhase.get(this.phase) ?? { serverRssKiB: 0, treeRssKiB: 0 }
    this.peakByPhase.set(this.phase, {
      serverRssKiB: Math.max(peak.serverRssKiB, serverRss),
      treeRssKiB: Math.max(peak.treeRssKiB, treeRss)
    })
    this.samples.push({
      t: Math.round(performance.now() - this.started) / 1000,
      phase: this.phase,
      serverRssKiB: serverRss,
      treeRssKiB: treeRss
    })
  }
}
