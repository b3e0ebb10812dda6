/**
 * What redaction refuses, saying why: a file that is not a readable PDF, a password, a page tree that
 * cannot be read, a dynamic XFA form, a page out of range, a bad rectangle; and work that takes
 * longer than the timeout, stopped.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import {
  redact,
  RedactionFailed,
  type RedactionRegion,
  type RedactionSettings
} from "../../../src/services/broker/transformations/Redaction.ts"
import { corpus } from "./redaction-support.ts"

// On the real clock, so that the timeout can pass.
layer(NodeContext.layer, { excludeTestServices: true })("redaction", (it) => {
  /** The message of the RedactionFailed a call ends with ("succeeded" if it does not fail). */
  const failure = (pdf: Uint8Array, regions: ReadonlyArray<RedactionRegion>, settings: RedactionSettings = {}) =>
    Effect.flip(redact(pdf, regions, settings).pipe(Effect.as("succeeded"))).pipe(
      Effect.map((error) =>
        error instanceof RedactionFailed ? error.message : `not a RedactionFailed: ${String(error)}`
      )
    )
  const anywhere = [{ page: 0, rect: [10, 10, 100, 100] as const }]

  it.effect("refuses, saying why: an unreadable file, a password, a page out of range, a bad rectangle", () =>
    Effect.gen(function*() {
      expect(yield* failure(new TextEncoder().encode("this is not a PDF at all\n"), anywhere)).toMatch(
        /^The file is not a readable PDF: /
      )
      expect(yield* failure(corpus("bug1020226.pdf"), anywhere)).toMatch(/^The file is not a readable PDF: /)
      expect(yield* failure(corpus("issue6010_1.pdf"), anywhere)).toMatch(/password-protected/)
      expect(yield* failure(corpus("Pages-tree-refs.pdf"), anywhere)).toMatch(/^The PDF's page tree cannot be read/)
      expect(yield* failure(corpus("xfa_filled_imm1344e.pdf"), anywhere)).toMatch(/dynamic XFA form/)
      expect(yield* failure(corpus("rotation.pdf"), [{ page: 5, rect: [10, 10, 100, 100] }])).toBe(
        "Page 6 does not exist: the document has 2 pages"
      )
      expect(yield* failure(corpus("rotation.pdf"), [{ page: 0, rect: [100, 10, 50, 100] }])).toMatch(/x1 <= x2/)
    }))

  it.effect("stops work that takes longer than the timeout", () =>
    Effect.gen(function*() {
      expect(yield* failure(corpus("tracemonkey.pdf"), anywhere, { timeoutMs: 1 })).toMatch(
        /^The redaction took longer than 1ms/
      )
    }))
})
