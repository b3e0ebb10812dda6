/**
 * PDFium is compiled once, by the broker, and every worker thread instantiates that module
 * (engine/PdfiumModule.ts): a new thread runs the code earlier threads compiled and optimized
 * instead of compiling its own. A thread handed a module uses it, not a fresh one of its own.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { PdfWorkerSetupLive } from "../../../src/layers/Broker.ts"
import { PdfEngine, PdfWorkerSetup } from "../../../src/services/broker/engine/PdfEngine.ts"
import { compilePdfium, PDFIUM_MODULE_SETTING } from "../../../src/services/broker/engine/PdfiumModule.ts"
import { pngSize } from "../../support/http.ts"
import { tracemonkeyPage, trapEngineLayer } from "./trap-engine.ts"

const render = Effect.flatMap(PdfEngine, (engine) => engine.run(tracemonkeyPage()))

/** The smallest valid WebAssembly module: no imports, no exports, so nothing PDFium could run on. */
const EMPTY_MODULE = new WebAssembly.Module(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]))

layer(PdfWorkerSetupLive)("the broker's worker threads", (it) => {
  it.effect("are handed PDFium compiled", () =>
    Effect.gen(function*() {
      const { settings } = yield* PdfWorkerSetup
      const compiled = settings[PDFIUM_MODULE_SETTING]
      expect(compiled).toBeInstanceOf(WebAssembly.Module)
      expect(WebAssembly.Module.exports(compiled as WebAssembly.Module).map((e) => e.name)).toContain("FPDF_LoadPage")
    }))
})

layer(trapEngineLayer([["RENDER_WORKERS", "1"]], { [PDFIUM_MODULE_SETTING]: EMPTY_MODULE }), { timeout: 60_000 })(
  "a thread handed a module that is not PDFium",
  (it) => {
    it.effect("draws nothing with it: the request fails, the thread does not compile PDFium itself", () =>
      Effect.gen(function*() {
        // Matched to words: a page image (a success) must not be what the assertion prints.
        const outcome = yield* render.pipe(
          Effect.match({ onFailure: (e) => `${e._tag}: ${e.message}`, onSuccess: () => "a page image" })
        )
        expect(outcome).toMatch(/^PdfOperationFailed: Rendering page 0 failed/)
      }))
  }
)

layer(trapEngineLayer([["RENDER_WORKERS", "1"]], { [PDFIUM_MODULE_SETTING]: await compilePdfium() }), {
  timeout: 60_000
})("a thread handed PDFium compiled", (it) => {
  it.effect("draws the page with it", () =>
    Effect.gen(function*() {
      expect(pngSize(yield* render).width).toBe(200)
    }))
})
