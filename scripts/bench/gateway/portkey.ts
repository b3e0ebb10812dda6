/**
 * Portkey's open-source gateway (`@portkey-ai/gateway`, a devDependency) in a process of its own,
 * the dedicated gateway the gateway section compares ours with: `node build/start-server.js
 * --port=<free> --headless` (its CLI: a port, and no log console), always the working tree's
 * node_modules, whatever BENCH_REF measures. It keeps no state of its own: which provider to call
 * comes with each request (`portkeyHeaders`), here the fake's OpenAI-compatible endpoint as a
 * custom host (loopback is among the hosts it trusts by default).
 */
import { spawn } from "node:child_process"
import { closeSync, openSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { freePort } from "../lib/service.ts"

/** How long Portkey may take to answer its first request. */
const PORTKEY_READY_TIMEOUT_MS = 30_000
/** How long it may take to exit on SIGTERM before it is killed. */
const PORTKEY_STOP_TIMEOUT_MS = 5_000

/** The headers that route a Chat Completions request through Portkey to an OpenAI-compatible `baseUrl`. */
export const portkeyHeaders = (baseUrl: string) => ({
  "x-portkey-provider": "openai",
  "x-portkey-custom-host": baseUrl,
  // Portkey forwards it as the provider's key; the fake takes any.
  authorization: "Bearer bench"
})

/** Portkey on a free loopback port; resolves once it answers. */
export const startPortkey = async (logFile: string) => {
  const script = createRequire(import.meta.url).resolve("@portkey-ai/gateway/package.json")
  const port = await freePort()
  const log = openSync(logFile, "a")
  const child = spawn(process.execPath, [
    join(script, "..", "build", "start-server.js"),
    `--port=${port}`,
    "--headless"
  ], {
    stdio: ["ignore", log, log]
  })
  closeSync(log)
  let exited: string | undefined
  child.on("exit", (code, signal) => {
    exited = `exit ${code ?? signal}`
  })
  const stop = async () => {
    if (exited !== undefined) return
    const gone = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    if ((await Promise.race([gone, sleep(PORTKEY_STOP_TIMEOUT_MS).then(() => "timeout")])) === "timeout") {
      child.kill("SIGKILL")
    }
  }
  const baseUrl = `http://127.0.0.1:${port}`
  const started = performance.now()
  while (performance.now() - started < PORTKEY_READY_TIMEOUT_MS) {
    if (exited !== undefined) throw new Error(`Portkey stopped before it was ready (${exited}); see ${logFile}`)
    try {
      const response = await fetch(baseUrl, { signal: AbortSignal.timeout(2_000) })
      await response.arrayBuffer()
      return { baseUrl, pid: child.pid!, startupMs: performance.now() - started, stop }
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  await stop()
  throw new Error(`Portkey was not ready within ${PORTKEY_READY_TIMEOUT_MS} ms; see ${logFile}`)
}
export type Portkey = Awaited<ReturnType<typeof startPortkey>>
