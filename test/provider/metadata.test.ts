/**
 * The reference provider's metadata as the broker calls it: properties merged into what is stored
 * (null removes one), read back, kept in a hidden file beside the file; the contract's 400, 403
 * and 404.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { providerTestLayer, ProviderUrl } from "../../src/layers/Test.ts"
import { call } from "../support/http.ts"
import { makeRoot, query } from "./support.ts"

const { root } = makeRoot()

const metadataCall = (parameters: Readonly<Record<string, string>>, body?: unknown) =>
  ProviderUrl.pipe(
    Effect.flatMap((base) =>
      call(`${base}/documents/metadata?${query(parameters)}`, {
        method: body === undefined ? "GET" : "POST",
        ...(body === undefined ? {} : {
          headers: { "content-type": "application/json" },
          body: typeof body === "string" ? body : JSON.stringify(body)
        })
      })
    )
  )

layer(providerTestLayer({ PROVIDER_ROOT: root }), { timeout: 120_000 })("reference provider: metadata", (it) => {
  it.effect("merges properties into the stored ones, a null removing one, and answers them all", () =>
    Effect.gen(function*() {
      const doc = { id: "reports/file2.pdf" }
      expect((yield* metadataCall(doc)).json).toEqual({})
      const first = yield* metadataCall(doc, { status: "draft", pages: 3, signed: false, note: null })
      expect(first.status).toBe(200)
      expect(first.json).toEqual({ status: "draft", pages: 3, signed: false })
      const second = yield* metadataCall(doc, { status: "final", pages: null, reviewer: "alice" })
      expect(second.json).toEqual({ status: "final", signed: false, reviewer: "alice" })
      // The same file by nodeRef, and what is on disk beside it.
      expect((yield* metadataCall({ nodeRef: "workspace://SpacesStore/reports/file2.pdf" })).json).toEqual(second.json)
      const file = path.join(root, "reports/.metadata/file2.pdf.json")
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(second.json)
      // Hidden: not listed, not reachable by name.
      const listing = yield* ProviderUrl.pipe(Effect.flatMap((base) => call(`${base}/documents?id=reports`)))
      expect(JSON.stringify(listing.json)).not.toContain(".metadata")
      expect((yield* metadataCall({ id: "reports/.metadata/file2.pdf.json" })).status).toBe(404)
    }))

  it.effect("concurrent updates of different properties all stay", () =>
    Effect.gen(function*() {
      const doc = { id: "store1/basicapi.pdf" }
      yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) => metadataCall(doc, { [`p${i}`]: i }),
        { concurrency: "unbounded" }
      )
      const stored = (yield* metadataCall(doc)).json
      expect(Object.keys(stored)).toHaveLength(20)
    }))

  it.effect("400 for a body that is not an object of values, 404 for no file, 403 as for documents", () =>
    Effect.gen(function*() {
      const doc = { id: "tracemonkey.pdf" }
      for (const body of ["[1,2]", `{"a":{"b":1}}`, `{"a":[1]}`, "not json", `"text"`]) {
        expect((yield* metadataCall(doc, body)).status, body).toBe(400)
      }
      expect((yield* metadataCall({ id: "no-such.pdf" }, { a: 1 })).status).toBe(404)
      expect((yield* metadataCall({ id: "reports" }, { a: 1 })).json.message).toContain("only files have metadata")
      expect((yield* metadataCall({ id: "private/plan.pdf", user: "mallory" }, { a: 1 })).status).toBe(403)
      expect((yield* metadataCall({ id: "private/plan.pdf", user: "alice" }, { a: 1 })).status).toBe(200)

      // A file that is not what the provider writes is refused, not overwritten.
      const file = path.join(root, ".metadata/notes.txt.json")
      yield* metadataCall({ id: "notes.txt" }, { a: 1 })
      writeFileSync(file, "[broken")
      const broken = yield* metadataCall({ id: "notes.txt" }, { b: 2 })
      expect(broken.status).toBe(500)
      expect(broken.json.message).toContain(".metadata/notes.txt.json")
      expect(readFileSync(file, "utf8")).toBe("[broken")
    }))
})
