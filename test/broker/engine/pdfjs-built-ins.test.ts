/**
 * pdf.js's legacy build replaces some of its thread's built-in functions (core-js polyfills for
 * corner cases pdf.js never meets), among them JSON.stringify, which made every JSON.stringify of
 * a worker thread that had read with pdf.js several times slower, a page's text positions among
 * them (engine/PdfJsSetup.ts). The engine's threads load pdf.js through `loadPdfjs`, which gives
 * the thread its own functions back and keeps what the polyfills add.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { loadPdfjs } from "../../../src/services/broker/engine/PdfJsSetup.ts"
import { open } from "../../../src/services/broker/engine/WorkerDocuments.ts"
import { CORPUS } from "../../support/backends.ts"

/** The functions the legacy build's polyfills replaced in Node 20, by name. */
const replacedByPolyfills = (): Record<string, unknown> => ({
  "JSON.stringify": JSON.stringify,
  "JSON.parse": JSON.parse,
  "Array.prototype.push": Array.prototype.push,
  "Function.prototype.toString": Function.prototype.toString
})

it.effect("a thread that has read a document with pdf.js keeps its own built-in functions", () =>
  Effect.gen(function*() {
    // Taken before pdf.js is loaded: this file's imports do not load it (WorkerDocuments.ts loads it on first use).
    const own = replacedByPolyfills()
    const path = `${CORPUS}pdf/nested_outline.pdf`
    const doc = yield* open({ hash: "nested_outline.pdf", path })
    // Read through pdf.js's worker code, loaded into this thread by then.
    const outline = yield* Effect.promise(() => doc.getOutline())
    expect(outline.map((item) => item.title)).toHaveLength(3)
    expect((yield* Effect.promise(loadPdfjs)).version).toMatch(/^5\.6\./)
    const now = replacedByPolyfills()
    expect(Object.keys(own).filter((name) => now[name] !== own[name])).toEqual([])
    // What the polyfills add for pdf.js stays: Node 20 has no Promise.withResolvers.
    expect(typeof (Promise as { withResolvers?: unknown }).withResolvers).toBe("function")
  }))
