/**
 * The fake LLM provider in a process of its own (gateway/fake-llm-server.ts), driven over IPC by
 * the gateway section: the script it answers with, and its own time on each tagged request.
 */
import { fork } from "node:child_process"
import { closeSync, openSync } from "node:fs"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"
import type { FakeScript } from "../../../test/support/fake-llm.ts"
import type { FakeTiming, FromParent, ToParent } from "./fake-llm-server.ts"

const here = fileURLToPath(new URL(".", import.meta.url))
/** The working tree's root: the fake is always the working tree's, whatever BENCH_REF measures. */
const workingTree = join(here, "..", "..", "..")

/** The fake in its own process, driven over IPC (a script to answer with, its timings). */
export const startFake = async (logFile: string) => {
  const log = openSync(logFile, "a")
  const child = fork(join(here, "fake-llm-server.ts"), [], {
    cwd: workingTree,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", log, log, "ipc"]
  })
  closeSync(log)
  // Each answer takes its listeners off again: a run asks the fake many times.
  const next = (what: string) =>
    new Promise<ToParent>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer)
        child.off("message", onMessage)
        child.off("exit", onExit)
      }
      const onMessage = (message: unknown) => {
        settle()
        resolve(message as ToParent)
      }
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        settle()
        reject(new Error(`The fake LLM exited (${code ?? signal}); see ${logFile}`))
      }
      const timer = setTimeout(() => {
        settle()
        reject(new Error(`The fake LLM did not answer (${what}) within 30 s; see ${logFile}`))
      }, 30_000)
      child.on("message", onMessage)
      child.on("exit", onExit)
    })
  const ask = (message: FromParent) => {
    const answer = next(Object.keys(message)[0]!)
    child.send(message)
    return answer
  }
  const { url } = (await next("start")) as { url: string }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    if ((await Promise.race([exited, sleep(5_000).then(() => "timeout")])) === "timeout") child.kill("SIGKILL")
  }
  return {
    url,
    pid: child.pid!,
    stop,
    script: async (script: Partial<FakeScript>) => void (await ask({ script })),
    timings: async () => ((await ask({ timings: true })) as { timings: Record<string, FakeTiming> }).timings
  }
}
export type Fake = Awaited<ReturnType<typeof startFake>>
