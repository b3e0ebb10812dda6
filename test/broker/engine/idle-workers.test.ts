/**
 * The engine always holds one worker thread, so the first request after a quiet spell finds it
 * started. Threads beyond it start on demand and end once unused for RENDER_WORKER_IDLE; the one
 * that stays is replaced by a fresh one once it has done real work and then sat unused that long
 * (a used thread holds the memory its documents grew). Health probes are not use.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { PdfEngine } from "../../../src/services/broker/engine/PdfEngine.ts"
import { pngSize } from "../../support/http.ts"
import { pollUntil } from "../../support/polling.ts"
import { sleep } from "../../support/processes.ts"
import { tracemonkeyPage, trapEngineLayer } from "./trap-engine.ts"

const render = Effect.flatMap(PdfEngine, (engine) => engine.run(tracemonkeyPage()))
const probe = Effect.flatMap(PdfEngine, (engine) => engine.probe(tracemonkeyPage()))

/** `rounds` page images drawn by `request` (a request or a probe), `gapMillis` apart. */
const everyGap = (request: typeof render, rounds: number, gapMillis: number) =>
  Effect.gen(function*() {
    for (let round = 0; round < rounds; round++) {
      expect(pngSize(yield* request).width).toBe(200)
      yield* sleep(gapMillis)
    }
  })

/** Threads running and started once `done` holds, or after 10 s of polling. */
const threadsOnce = (done: (running: number, started: number) => boolean) =>
  Effect.flatMap(PdfEngine, (engine) =>
    pollUntil(
      Effect.all({ running: engine.threadsRunning, started: engine.threadsStarted }),
      ({ running, started }) => done(running, started)
    ))

const config = (idle: string) =>
  trapEngineLayer([
    ["RENDER_WORKERS", "2"],
    ["RENDER_CONCURRENCY_PER_WORKER", "1"],
    ["RENDER_WORKER_IDLE", idle]
  ])

// The pool counts idle time on the real clock (no test services in the layer); the test waits on it too.
layer(config("500 millis"), { timeout: 60_000, excludeTestServices: true })("the engine's worker threads", (it) => {
  it.effect("keep one thread at rest, and replace it with a fresh one once used and then idle", () =>
    Effect.gen(function*() {
      expect(yield* threadsOnce((running) => running === 1)).toEqual({ running: 1, started: 1 })
      // Never used: however long it waits, the first thread is the one that stays.
      yield* sleep(1500)
      expect(yield* threadsOnce(() => true)).toEqual({ running: 1, started: 1 })

      expect(pngSize(yield* render).width).toBe(200)
      expect(yield* threadsOnce((_, started) => started === 2)).toEqual({ running: 1, started: 2 })
      // The fresh thread has done no work: it is not replaced in turn.
      yield* sleep(1500)
      expect(yield* threadsOnce(() => true)).toEqual({ running: 1, started: 2 })
      expect(pngSize(yield* render).width).toBe(200)
    }))

  it.effect("end the threads beyond the first once unused, and then stay as they are", () =>
    Effect.gen(function*() {
      const engine = yield* PdfEngine
      const before = yield* threadsOnce((running) => running === 1)
      // One request per thread: the second of two at once starts another thread.
      yield* Effect.all([render, render], { concurrency: 2 })
      expect(yield* engine.threadsStarted).toBeGreaterThan(before.started)
      const after = yield* threadsOnce((running) => running === 1)
      expect(after.running).toBe(1)
      // The one left is fresh, or is replaced by a fresh one: after that, nothing starts or ends.
      yield* sleep(2500)
      const settled = yield* threadsOnce(() => true)
      yield* sleep(1500)
      expect(yield* threadsOnce(() => true)).toEqual(settled)
      expect(settled.running).toBe(1)
    }))
})

layer(config("500 millis"), { timeout: 60_000, excludeTestServices: true })("health probes", (it) => {
  it.effect("do not count as use: a thread that ran only probes is kept", () =>
    Effect.gen(function*() {
      expect(yield* threadsOnce((running) => running === 1)).toEqual({ running: 1, started: 1 })
      yield* everyGap(probe, 4, 500)
      expect(yield* threadsOnce(() => true)).toEqual({ running: 1, started: 1 })
    }))
})

layer(config("1 second"), { timeout: 60_000, excludeTestServices: true })("a used thread", (it) => {
  it.effect("is kept while requests come closer together than RENDER_WORKER_IDLE, and probes do not keep it", () =>
    Effect.gen(function*() {
      expect(yield* threadsOnce((running) => running === 1)).toEqual({ running: 1, started: 1 })
      yield* everyGap(render, 8, 400)
      expect(yield* threadsOnce(() => true)).toEqual({ running: 1, started: 1 })
      // Probes alone from here on: the used thread is replaced all the same.
      yield* everyGap(probe, 10, 400)
      expect(yield* threadsOnce(() => true)).toEqual({ running: 1, started: 2 })
    }))
})
