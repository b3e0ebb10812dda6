/**
 * A service of the stack as its own process, started as `npm start` starts it (`node scripts/start.mjs <service>`), for the
 * tests that kill or restart one: started on a free port, ready when its health endpoint answers,
 * killed when the scope closes.
 */
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"

export const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

export const freePort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
)

const SERVICES = {
  broker: { prefix: "BROKER", ready: "/health/readiness" },
  gateway: { prefix: "GATEWAY", ready: "/actuator/health" }
} as const

/** Starts the service as its own process and waits until it is ready (60 s at most). */
export const startService = (service: keyof typeof SERVICES, env: Record<string, string>, port: number) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const { prefix, ready } = SERVICES[service]
      const child = spawn(process.execPath, ["scripts/start.mjs", service], {
        env: { ...process.env, ...env, [`${prefix}_PORT`]: String(port), [`${prefix}_HOST`]: "127.0.0.1" },
        stdio: ["ignore", "ignore", "inherit"]
      })
      const base = `http://127.0.0.1:${port}`
      for (let i = 0; i < 600; i++) {
        if (child.exitCode !== null) throw new Error(`the ${service} exited with ${child.exitCode}`)
        const status = yield* Effect.promise(() => fetch(`${base}${ready}`).then((r) => r.status, () => 0))
        if (status === 200) return { child, base }
        yield* sleep(100)
      }
      throw new Error(`the ${service} did not get ready within 60 s`)
    }),
    ({ child }) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
  )

export const awaitExit = (child: ChildProcess) =>
  Effect.promise(() =>
    new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", () => resolve())))
  )
