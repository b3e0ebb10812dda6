/**
 * The static pre-screen a scan runs before asking the model: the draft is parsed and its syntax
 * tree checked against fixed rules (prescreen-worker.mjs; docs/gateway-scripts.md). It runs on a
 * thread of its own per scan, a few at a time, with a time and a heap limit, so that a large or
 * hostile draft holds up neither the event loop nor the process. It fails closed: a thread that
 * dies, overruns or answers nothing is a finding like a broken rule.
 */
import { Config, Duration, Effect } from "effect"
import { Worker } from "node:worker_threads"
import { durationConfig } from "../../common/DurationConfig.ts"

export const PreScreenConfig = Config.all({
  /** Pre-screens running at once in this process; more wait their turn. */
  threads: Config.integer("SCRIPT_PRESCREEN_THREADS").pipe(Config.withDefault(2)),
  timeout: durationConfig("SCRIPT_PRESCREEN_TIMEOUT", "10 seconds"),
  /** The JavaScript heap of one pre-screen's thread: a draft that needs more is refused, the process unharmed. */
  heapMb: Config.integer("SCRIPT_PRESCREEN_HEAP_MB").pipe(Config.withDefault(256))
})

const WORKER = new URL("./prescreen-worker.mjs", import.meta.url)

export class PreScreen extends Effect.Service<PreScreen>()("gateway/PreScreen", {
  effect: Effect.gen(function*() {
    const settings = yield* PreScreenConfig
    const turns = yield* Effect.makeSemaphore(Math.max(1, settings.threads))

    /** One thread's findings; its failure to answer is a finding too. The thread ends when interrupted. */
    const inThread = (source: string) =>
      Effect.async<ReadonlyArray<string>>((resume) => {
        const worker = new Worker(WORKER, {
          workerData: source,
          // Plain JavaScript: the TypeScript loader the process may run with is not needed there.
          execArgv: [],
          resourceLimits: { maxOldGenerationSizeMb: settings.heapMb }
        })
        let answered = false
        const answer = (findings: ReadonlyArray<string>) => {
          if (answered) return
          answered = true
          resume(Effect.succeed(findings))
        }
        worker.on("message", (message: { readonly findings: ReadonlyArray<string> }) => answer(message.findings))
        worker.on("error", (error) => answer([`The pre-screen could not read the script: ${error.message}`]))
        worker.on("exit", (code) => answer([`The pre-screen could not read the script: its thread ended (${code})`]))
        return Effect.promise(() => worker.terminate())
      })

    return {
      /** What the script must not do, one finding a line; empty when it passes. */
      screen: Effect.fn("PreScreen.screen")(function*(source: string) {
        return yield* inThread(source).pipe(
          Effect.timeoutTo({
            duration: settings.timeout,
            onSuccess: (findings) => findings,
            onTimeout: () => [
              `The pre-screen did not finish within ${Duration.format(settings.timeout)} (SCRIPT_PRESCREEN_TIMEOUT)`
            ]
          }),
          turns.withPermits(1)
        )
      })
    }
  })
}) {}
