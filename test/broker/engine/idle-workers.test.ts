/**
 * The engine's worker threads start with the first request that needs one and end once unused for
 * RENDER_WORKER_IDLE: an idle broker holds none (each is about 60-110 MB), and the next request
 * starts one again. Health probes before the first real request leave no thread behind.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { PdfEngine } from "../../../src/services/broker/engine/PdfEngine.ts"
import { pngSize } from "../../support/http.ts"
import { tracemonkeyPage, trapEngineLayer } from "./trap-engine.ts"

const engineLayer = trapEngineLayer([["RENDER_WORKERS", "2"], ["RENDER_WORKER_IDLE", "500 millis"]])

const render = Effect.flatMap(PdfEngine, (engine) => engine.run(tracemonkeyPage()))
const probe = Effect.flatMap(PdfEngine, (engine) => engine.probe(tracemonkeyPage()))

/** The threads running once they have had up to 10 s to end (the count polled every 100 ms). */
const threadsAfterWaiting = Effect.gen(function*() {
  const engine = yield* PdfEngine
  let running = yield* engine.threadsRunning
  for (let attempt = 0; attempt < 100 && running > 0; attempt++) {
    yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
    running = yield* engine.threadsRunning
  }
  return running
})

// The pool counts idle time on the real clock (no test services in the layer); the test waits on it too.
layer(engineLayer, { timeout: 60_000, excludeTestServices: true })("the engine's worker threads", (it) => {
  it.effect("start on demand and end after RENDER_WORKER_IDLE unused", () =>
    Effect.gen(function*() {
      const engine = yield* PdfEngine
      // The pool starts one thread with the engine (to report a worker that cannot start): it ends too.
      expect(yield* threadsAfterWaiting).toBe(0)
      expect(pngSize(yield* render).width).toBe(200)
      expect(yield* engine.threadsRunning).toBe(1)
      expect(yield* threadsAfterWaiting).toBe(0)
      expect(pngSize(yield* render).width).toBe(200)
      expect(yield* engine.threadsRunning).toBe(1)
    }))
})

// Threads that would stay for ten minutes unused: only the probe's own rule can end them in the test's time.
const longIdleLayer = trapEngineLayer([["RENDER_WORKERS", "2"], ["RENDER_WORKER_IDLE", "10 minutes"]])

layer(longIdleLayer, { timeout: 60_000, excludeTestServices: true })("health probes", (it) => {
  it.effect("end the thread they used until the first real request, and never a warm one after it", () =>
    Effect.gen(function*() {
      const engine = yield* PdfEngine
      expect(pngSize(yield* probe).width).toBe(200)
      expect(yield* threadsAfterWaiting).toBe(0)
      expect(pngSize(yield* render).width).toBe(200)
      expect(pngSize(yield* probe).width).toBe(200)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1000)))
      expect(yield* engine.threadsRunning).toBe(1)
    }))
})
