/**
 * IMAGE_THREADS_PER_OPERATION reaches libvips: a worker thread that draws a page sets the threads
 * libvips gives one operation, for the whole process (sharp's setting is libvips', shared by every
 * thread of the process), to what the configuration says.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import sharp from "sharp"
import { PdfEngineLive } from "../../../src/layers/Broker.ts"
import { PdfEngine } from "../../../src/services/broker/engine/PdfEngine.ts"
import { pngSize } from "../../support/http.ts"
import { tracemonkeyPage } from "./trap-engine.ts"

const render = Effect.flatMap(PdfEngine, (engine) => engine.run(tracemonkeyPage()))

/** The broker's own engine, its threads handed the settings the configuration gives. */
const engine = PdfEngineLive.pipe(
  Layer.provide(NodeContext.layer),
  Layer.provide(
    Layer.setConfigProvider(
      ConfigProvider.fromMap(new Map([["RENDER_WORKERS", "1"], ["IMAGE_THREADS_PER_OPERATION", "3"]]))
    )
  )
)

layer(engine, { timeout: 60_000 })(
  "libvips' threads an operation",
  (it) => {
    it.effect("are what IMAGE_THREADS_PER_OPERATION says once a worker has drawn a page", () =>
      Effect.gen(function*() {
        sharp.concurrency(0)
        expect(pngSize(yield* render).width).toBe(200)
        expect(sharp.concurrency()).toBe(3)
      }))
  }
)
