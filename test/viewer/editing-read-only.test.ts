/**
 * The annotations routes in front of a broker whose policy file says canCreateAnnotations false:
 * listed, but every change refused with 403 AnnotationsReadOnly and nothing written.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { BrokerUrl } from "../../src/layers/Test.ts"
import { corpusFile, uploadOk } from "../support/http.ts"
import { annotationsCall, listed } from "./editing-support.ts"
import { servlet, viewerAndBroker } from "./support.ts"

const note = { type: "Text", page: 0, position: { x: 300, y: 200, w: 20, h: 20 }, contents: "Check this" }

const readOnlyPolicy = path.join(tmpdir(), `docstack-read-only-policy-${process.pid}.json`)
writeFileSync(readOnlyPolicy, JSON.stringify({ canCreateAnnotations: false }))

describe("annotations routes under a policy that allows no annotations", () => {
  it.layer(viewerAndBroker({}, { ANNOTATION_POLICY_FILE: readOnlyPolicy }), { timeout: 300_000 })((it) => {
    it.effect("lists, but refuses to create, change or delete: 403 AnnotationsReadOnly, nothing written", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/annotation-highlight.pdf"))
        const before = yield* listed(id)
        expect(before.annotations.length).toBeGreaterThan(0)
        const policy = yield* servlet(`annotationPolicy?uuid=${id}`)
        expect(policy.json.canCreateAnnotations).toBe(false)

        const existing = before.annotations[0]!
        for (
          const [method, body] of [
            ["POST", { annotations: [note] }],
            ["PUT", { annotations: [{ ...existing, contents: "changed" }] }],
            ["DELETE", { ids: [existing.id] }]
          ] as const
        ) {
          const refused = yield* annotationsCall(method, id, body)
          expect(refused.status, method).toBe(403)
          expect(refused.json._tag).toBe("AnnotationsReadOnly")
          expect(refused.json.message).toContain("canCreateAnnotations")
        }
        expect((yield* listed(id)).annotations).toEqual(before.annotations)
      }))
  })
})
