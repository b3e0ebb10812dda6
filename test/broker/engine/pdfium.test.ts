/**
 * PDFium in the engine's worker threads, through a real pool (PdfEngine) whose threads run the
 * broker's page handlers plus one request no broker has (trap-worker.ts): a WebAssembly trap ends
 * only the thread it happened in, files PDFium will not open fail as pdf.js's did (password or
 * damaged), and the documents a thread keeps open are bounded by their bytes.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { PdfEngine } from "../../../src/services/broker/engine/PdfEngine.ts"
import { RenderPage } from "../../../src/services/broker/pages/PageRequests.ts"
import { CORPUS } from "../../support/backends.ts"
import { pngSize } from "../../support/http.ts"
import { trapEngineLayer } from "./trap-engine.ts"
import { TrapPdfium } from "./trap-request.ts"

/** Two threads taking one request each, so that a request waiting while one is busy goes to the other. */
const engineLayer = trapEngineLayer([["RENDER_WORKERS", "2"], ["RENDER_CONCURRENCY_PER_WORKER", "1"]])

const render = (file: string, page: number, width: number, maxPixels = 60_000_000) =>
  Effect.flatMap(PdfEngine, (engine) =>
    engine.run(
      new RenderPage({ hash: file, path: `${CORPUS}pdf/${file}`, page, width, rotation: 0, filters: [], maxPixels })
    ))

layer(engineLayer, { timeout: 180_000 })("PDFium in the engine's worker threads", (it) => {
  it.effect("a trap ends its own thread only: its request fails (500), the other thread's goes on, and both draw again", () =>
    Effect.gen(function*() {
      const engine = yield* PdfEngine
      // A long drawing on one thread, so that the trap lands on the other.
      const long = yield* Effect.fork(render("issue12810.pdf", 0, 3000))
      // On the real clock (it.effect's own clock stands still).
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
      const trapped = yield* Effect.flip(engine.run(new TrapPdfium()))
      expect(trapped._tag).toBe("PdfOperationFailed")
      expect(trapped.message).toBe(
        "The PDF engine's worker stopped on this request: PDFium failed inside its WebAssembly (RuntimeError: memory access out of bounds); its thread ends and another takes its place"
      )
      expect(pngSize(yield* Fiber.join(long)).width).toBe(3000)
      // Both threads draw again: two requests at once take one each.
      const pages = yield* Effect.all([render("tracemonkey.pdf", 0, 200), render("tracemonkey.pdf", 1, 200)], {
        concurrency: 2
      })
      expect(pages.map((png) => pngSize(png).width)).toEqual([200, 200])
    }))

  it.effect("files PDFium will not open fail as before: a password, a damaged file; a page outside the file; a pixel bomb", () =>
    Effect.gen(function*() {
      const password = yield* Effect.flip(render("password.pdf", 0, 200))
      expect(password).toMatchObject({ _tag: "PdfOpenFailed", reason: "password" })
      const damaged = yield* Effect.flip(render("bug1020226.pdf", 0, 200))
      expect(damaged).toMatchObject({ _tag: "PdfOpenFailed", reason: "damaged" })
      expect(damaged.message).toMatch(/^The PDF cannot be read: /)
      const outside = yield* Effect.flip(render("tracemonkey.pdf", 14, 200))
      expect(outside).toMatchObject({
        _tag: "PdfOperationFailed",
        message: "Rendering page 14 failed: Page 14 is outside 0..13"
      })
      // Checked before a pixel is drawn: 20,000 px wide is 20000 x 25887 for this page.
      const bomb = yield* Effect.flip(render("tracemonkey.pdf", 0, 20_000, 1_000_000))
      expect(bomb.message).toMatch(/more than the limit of 1000000/)
      // An empty user password opens the file, as in pdf.js.
      expect(pngSize(yield* render("empty_protected.pdf", 0, 100)).width).toBe(100)
    }))

  it.effect("documents pushed out of a thread's open documents (by bytes) are drawn the same when opened again", () =>
    Effect.gen(function*() {
      const first = yield* render("tracemonkey.pdf", 2, 300)
      // Two at a time, so both threads draw some: whichever kept tracemonkey.pdf closes it. The
      // 3,597,121-byte file is larger than all a thread keeps: opened for its request, closed after.
      const others = ["cmykjpeg.pdf", "issue12810.pdf", "basicapi.pdf", "pdf2image-memory-error-test-400p.pdf"]
      const drawn = yield* Effect.forEach(others, (file) => render(file, 0, 100), { concurrency: 2 })
      expect(drawn.map((png) => pngSize(png).width)).toEqual([100, 100, 100, 100])
      const again = yield* render("tracemonkey.pdf", 2, 300)
      expect(Buffer.from(again).equals(Buffer.from(first))).toBe(true)
    }))
})
