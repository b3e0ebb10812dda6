/**
 * pdf.js's legacy build replaces JSON.stringify for its whole thread (core-js, for a JSON.rawJSON
 * Node 20 lacks), which made every JSON.stringify of a worker thread that had read with pdf.js
 * several times slower, a page's text positions among them (engine/PdfJsSetup.ts). The engine's
 * threads load pdf.js through `loadPdfjs`, which gives the thread its own JSON back.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { loadPdfjs } from "../../../src/services/broker/engine/PdfJsSetup.ts"
import { open } from "../../../src/services/broker/engine/WorkerDocuments.ts"
import { CORPUS } from "../../support/backends.ts"

it.effect("a thread that has read a document with pdf.js keeps its own JSON.stringify and JSON.parse", () =>
  Effect.gen(function*() {
    // Taken before pdf.js is loaded: this file's imports do not load it (WorkerDocuments.ts loads it on first use).
    const { stringify, parse } = JSON
    const path = `${CORPUS}pdf/nested_outline.pdf`
    const doc = yield* open({ hash: "nested_outline.pdf", path })
    // Read through pdf.js's worker code, loaded into this thread by then.
    const outline = yield* Effect.promise(() => doc.getOutline())
    expect(outline.map((item) => item.title)).toHaveLength(3)
    expect((yield* Effect.promise(loadPdfjs)).version).toMatch(/^5\.6\./)
    expect(JSON.stringify).toBe(stringify)
    expect(JSON.parse).toBe(parse)
    expect(JSON.stringify({ a: [1, "b"] })).toBe("{\"a\":[1,\"b\"]}")
  }))
