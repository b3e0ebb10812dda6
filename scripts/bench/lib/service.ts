/**
 * A service of the stack in a child process (`node scripts/start.mjs broker`, `… gateway` or `… viewer`, as `npm start` runs it), on a
 * free loopback port with its own data directory and the embedded database (unless the caller
 * passes DATABASE_URL), with its memory and CPU sampled while it runs.
 */
import { spawn } from "node:child_process"
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { commandLine, MemorySampler, processMemory, processTree } from "./proc.ts"

/** Each service's environment prefix (`<PREFIX>_PORT`, `<PREFIX>_HOST`) and the path that answers 200 once it is ready. */
const SERVICES = {
  broker: { prefix: "BROKER", readiness: "/health/readiness" },
  gateway: { prefix: "GATEWAY", readiness: "/actuator/health" },
  // The OpenAPI document answers once the viewer's port is open, which it is only when every service is built.
  viewer: { prefix: "VIEWER", readiness: "/v3/api-docs" }
} as const
export type ServiceName = keyof typeof SERVICES

export interface RunningService {
  readonly baseUrl: string
  readonly port: number
  readonly dataDir: string
  readonly logFile: string
  /** npx, the root of the process tree (its own process group). */
  readonly rootPid: number
  /** From spawn to the first 200 of the service's readiness path. */
  readonly startupMs: number
  readonly sampler: MemorySampler
  /** The node process running src/main.ts (worker threads included). */
  serverPid(): number | undefined
  /** Stops the whole process group; returns the server's own high-water mark (VmHWM) read just before. */
  stop(): Promise<{ serverHwmKiB: number }>
}

export interface ServiceOptions {
  readonly cwd: string
  readonly dataDir: string
  readonly logFile: string
  /** Added to (and overriding) this process's environment, from which DATABASE_URL is removed. */
  readonly env?: Readonly<Record<string, string>>
  /** Node options for the server process, passed on by tsx (e.g. `--cpu-prof`, which NODE_OPTIONS may not carry). */
  readonly nodeArgs?: ReadonlyArray<string>
  readonly readyTimeoutMs?: number
  readonly sampleIntervalMs?: number
}

/** A loopback port nobody listens on (for a service, or a comparison's process). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * The server itself: the node process running scripts/start.mjs (`npm start`), or, for a ref from
 * before it (BENCH_REF), the one tsx started with its loader (`--import …loader.mjs src/main.ts`),
 * not npx nor the tsx CLI (whose command lines also name src/main.ts).
 */
const findServer = (rootPid: number) => {
  const tree = processTree(rootPid).map((pid) => ({ pid, cmd: commandLine(pid) }))
  const server = tree.filter((p) =>
    p.cmd.includes("scripts/start.mjs") || (p.cmd.includes("src/main.ts") && p.cmd.includes("loader"))
  )
  return server.at(-1)?.pid
}

/** How `npm start` runs a service in the code at `cwd`: node and scripts/start.mjs, or tsx before it existed. */
const serviceCommand = (cwd: string, service: ServiceName, nodeArgs: ReadonlyArray<string>) =>
  existsSync(join(cwd, "scripts", "start.mjs"))
    ? { command: process.execPath, args: [...nodeArgs, "scripts/start.mjs", service] }
    : { command: "npx", args: ["tsx", ...nodeArgs, "src/main.ts", service] }

export const startService = async (service: ServiceName, options: ServiceOptions): Promise<RunningService> => {
  const { prefix, readiness } = SERVICES[service]
  mkdirSync(options.dataDir, { recursive: true })
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== "DATABASE_URL") env[key] = value
  }
  Object.assign(
    env,
    // As `npm start` runs it (package.json): two malloc arenas, and blocks of 1 MiB and more
    // mapped on their own, unless the environment says otherwise.
    {
      MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2",
      MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? "1048576"
    },
    { [`${prefix}_PORT`]: String(port), [`${prefix}_HOST`]: "127.0.0.1", DATA_DIR: options.dataDir },
    options.env ?? {}
  )

  const log = openSync(options.logFile, "a")
  const started = performance.now()
  // detached: its own process group, so stopping it reaches the server and, through tsx, npx and the tsx CLI alike.
  const { args, command } = serviceCommand(options.cwd, service, options.nodeArgs ?? [])
  const child = spawn(command, args, {
    cwd: options.cwd,
    env,
    detached: true,
    stdio: ["ignore", log, log]
  })
  closeSync(log)
  const rootPid = child.pid
  if (rootPid === undefined) throw new Error(`The ${service} could not be spawned`)
  let exited: string | undefined
  child.on("exit", (code, signal) => {
    exited = `exit ${code ?? signal}`
  })

  // Looked up again until found: through tsx, for a moment after spawn the tree holds only npx and the tsx CLI.
  let serverPid: number | undefined
  const server = () => {
    if (serverPid === undefined || !isAlive(serverPid)) serverPid = findServer(rootPid)
    return serverPid
  }
  const sampler = new MemorySampler(rootPid, server, options.sampleIntervalMs ?? 100)
  sampler.start()

  const stop = async () => {
    sampler.stop()
    const pid = server()
    const serverHwmKiB = pid === undefined ? Number.NaN : processMemory(pid)?.hwmKiB ?? Number.NaN
    const signal = (target: number, sig: NodeJS.Signals) => {
      try {
        process.kill(target, sig)
      } catch {
        // already gone
      }
    }
    const waitWhile = async (condition: () => boolean) => {
      for (let i = 0; i < 100 && condition(); i++) await sleep(100)
    }
    // The server alone first: a second SIGTERM, relayed by tsx, would cut its shutdown short (and
    // lose a --cpu-prof profile written as it exits); npx and tsx end with it. A graceful shutdown
    // waits for open connections: after 10 s each step gives up, and the group is killed.
    if (pid !== undefined && isAlive(pid)) {
      signal(pid, "SIGTERM")
      await waitWhile(() => isAlive(pid))
    }
    signal(-rootPid, "SIGTERM")
    await waitWhile(() => isAlive(rootPid) && exited === undefined)
    if (processTree(rootPid).some(isAlive) || (pid !== undefined && isAlive(pid))) signal(-rootPid, "SIGKILL")
    child.unref()
    return { serverHwmKiB }
  }

  // Requests sent before the layers are built wait rather than fail, so each probe has its own timeout.
  const deadline = started + (options.readyTimeoutMs ?? 120_000)
  while (performance.now() < deadline) {
    if (exited !== undefined) {
      sampler.stop()
      throw new Error(`The ${service} stopped before it was ready (${exited}); see ${options.logFile}`)
    }
    try {
      const response = await fetch(`${baseUrl}${readiness}`, { signal: AbortSignal.timeout(2_000) })
      await response.arrayBuffer()
      if (response.status === 200) {
        const startupMs = performance.now() - started
        return {
          baseUrl,
          port,
          dataDir: options.dataDir,
          logFile: options.logFile,
          rootPid,
          startupMs,
          sampler,
          serverPid: server,
          stop
        }
      }
    } catch {
      // not listening yet, or still starting
    }
    await sleep(200)
  }
  await stop()
  throw new Error(`The ${service} was not ready within ${options.readyTimeoutMs ?? 120_000} ms; see ${options.logFile}`)
}

export const startBroker = (options: ServiceOptions) => startService("broker", options)
export const startGateway = (options: ServiceOptions) => startService("gateway", options)
export const startViewer = (options: ServiceOptions) => startService("viewer", options)
