/**
 * The reference provider's annotations as the broker calls them: create (201, with a new id),
 * read, list, list ids, replace and delete, every field kept; the contract's 400 and 404; many
 * concurrent writes all kept; where they are stored; a stored file that cannot be read refused.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { providerTestLayer } from "../../src/layers/Test.ts"
import { annotationsCall, fetchDocument, makeRoot } from "./support.ts"

const { root } = makeRoot()

const highlight = {
  type: "highlight",
  page: 2,
  content: { text: "tracing JIT", color: "#ffee00" },
  position: { x: 72, y: 100, w: 200, h: 12 },
  author: "alice"
}

describe("reference provider: annotations", () => {
  const limits = { PROVIDER_ROOT: root, PROVIDER_MAX_JSON_BODY_BYTES: String(64 * 1024) }
  layer(providerTestLayer(limits), { timeout: 120_000 })("annotations of files", (it) => {
    it.effect("creates (201, new id), reads, lists, replaces and deletes an annotation, every field kept", () =>
      Effect.gen(function*() {
        const doc = { id: "tracemonkey.pdf" }
        expect((yield* annotationsCall("GET", "", doc)).json).toEqual([])
        const created = yield* annotationsCall("POST", "", doc, { ...highlight, id: "mine" })
        expect(created.status).toBe(201)
        const id: string = created.json.id
        // The provider assigns the id, whatever the body says.
        expect(id).toMatch(/^an_[A-Za-z0-9_-]{12}$/)
        expect(created.json).toEqual({ ...highlight, id })

        const second = yield* annotationsCall("POST", "", doc, { type: "note", page: 0 })
        expect(second.status).toBe(201)
        // The same file by nodeRef has the same annotations, in creation order.
        const byNode = { nodeRef: "workspace://SpacesStore/tracemonkey.pdf" }
        const listed = yield* annotationsCall("GET", "", byNode)
        expect(listed.status).toBe(200)
        expect(listed.json).toEqual([{ ...highlight, id }, { type: "note", page: 0, id: second.json.id }])
        expect((yield* annotationsCall("GET", "/ids", doc)).json).toEqual([{ id }, { id: second.json.id }])
        expect((yield* annotationsCall("GET", `/${id}`, doc)).json).toEqual({ ...highlight, id })

        // PUT replaces it whole; the path's id wins over the body's.
        const replacement = { type: "highlight", page: 3, content: "moved", extra: [1, 2, 3], id: "other" }
        const updated = yield* annotationsCall("PUT", `/${id}`, doc, replacement)
        expect(updated.status).toBe(200)
        expect(updated.json).toEqual({ ...replacement, id })
        expect((yield* annotationsCall("GET", `/${id}`, doc)).json).toEqual({ ...replacement, id })
        expect((yield* annotationsCall("GET", "/ids", doc)).json).toEqual([{ id }, { id: second.json.id }])

        const removed = yield* annotationsCall("DELETE", `/${id}`, doc)
        expect(removed.status).toBe(200)
        expect(removed.text).toBe("")
        expect((yield* annotationsCall("GET", "/ids", doc)).json).toEqual([{ id: second.json.id }])
        expect((yield* annotationsCall("GET", `/${id}`, doc)).status).toBe(404)
      }))

    it.effect("keeps them in a hidden folder beside the file, out of every listing", () =>
      Effect.gen(function*() {
        const doc = { id: "reports/file2.pdf" }
        const created = yield* annotationsCall("POST", "", doc, { type: "note", page: 1 })
        expect(created.status).toBe(201)
        const stored = path.join(root, "reports", ".annotations", "file2.pdf.json")
        expect(JSON.parse(readFileSync(stored, "utf8"))).toEqual([{ id: created.json.id, type: "note", page: 1 }])
        // No temporary file is left behind.
        expect(readdirSync(path.dirname(stored))).toEqual(["file2.pdf.json"])
        const listing = yield* fetchDocument({ id: "reports" })
        expect(JSON.stringify(listing.json)).not.toContain(".annotations")
        expect((yield* fetchDocument({ id: "reports/.annotations/file2.pdf.json" })).status).toBe(404)
        // Another file of the same folder has its own.
        expect((yield* annotationsCall("GET", "", { id: "reports/file10.pdf" })).json).toEqual([])
      }))

    it.effect("answers 400 to a body that is not an annotation", () =>
      Effect.gen(function*() {
        const doc = { id: "notes.txt" }
        const refused: ReadonlyArray<unknown> = [
          { page: 0 },
          { type: "", page: 0 },
          { type: "note" },
          { type: "note", page: -1 },
          { type: "note", page: 1.5 },
          { type: "note", page: "1" },
          { type: 3, page: 0 },
          [],
          "null",
          "\"text\"",
          "{not json"
        ]
        for (const body of refused) {
          const post = yield* annotationsCall("POST", "", doc, body)
          expect([body, post.status]).toEqual([body, 400])
          expect(typeof post.json.message).toBe("string")
        }
        const created = yield* annotationsCall("POST", "", doc, { type: "note", page: 0 })
        const put = yield* annotationsCall("PUT", `/${created.json.id}`, doc, { type: "note", page: -2 })
        expect(put.status).toBe(400)
        expect((yield* annotationsCall("GET", "", doc)).json).toEqual([created.json])
        // No parameter naming a document: 400 too.
        expect((yield* annotationsCall("GET", "", {})).status).toBe(400)
        // A body past PROVIDER_MAX_JSON_BODY_BYTES (64 KiB here).
        const large = yield* annotationsCall("POST", "", doc, { type: "note", page: 0, content: "x".repeat(70_000) })
        expect(large.status).toBe(400)
        expect(large.json.message).toContain("PROVIDER_MAX_JSON_BODY_BYTES")
        expect((yield* annotationsCall("POST", "", doc, { type: "note", page: 0, content: "x".repeat(60_000) })).status)
          .toBe(201)
      }))

    it.effect("answers 404 for an unknown document or annotation, and for a folder", () =>
      Effect.gen(function*() {
        expect((yield* annotationsCall("GET", "", { id: "missing.pdf" })).status).toBe(404)
        expect((yield* annotationsCall("POST", "", { id: "missing.pdf" }, { type: "note", page: 0 })).status).toBe(404)
        expect((yield* annotationsCall("GET", "", { id: "../outside/secret.pdf" })).status).toBe(404)
        expect((yield* annotationsCall("GET", "", { id: "link-out.pdf" })).status).toBe(404)
        const doc = { id: "notes.txt" }
        expect((yield* annotationsCall("GET", "/an_nothing", doc)).status).toBe(404)
        expect((yield* annotationsCall("PUT", "/an_nothing", doc, { type: "note", page: 0 })).status).toBe(404)
        const removed = yield* annotationsCall("DELETE", "/an_nothing", doc)
        expect(removed.status).toBe(404)
        expect(removed.json._tag).toBe("AnnotationNotFound")
        for (const folder of [{ id: "reports" }, { id: "/" }, { nodeRef: "workspace://SpacesStore/store1" }]) {
          const reply = yield* annotationsCall("GET", "", folder)
          expect(reply.status).toBe(404)
          expect(reply.json.message).toContain("only files have annotations")
          expect((yield* annotationsCall("POST", "", folder, { type: "note", page: 0 })).status).toBe(404)
        }
        // Nothing was written for a folder, least of all beside the root (outside it).
        expect(existsSync(path.join(root, ".annotations", "reports.json"))).toBe(false)
        expect(existsSync(path.join(path.dirname(root), ".annotations"))).toBe(false)
      }))

    it.effect("keeps every one of 20 annotations created at once", () =>
      Effect.gen(function*() {
        const doc = { id: "store1/basicapi.pdf" }
        const created = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) => annotationsCall("POST", "", doc, { type: "note", page: 0, content: `note ${i}` }),
          { concurrency: "unbounded" }
        )
        expect(created.map(({ status }) => status)).toEqual(Array(20).fill(201))
        const ids = created.map(({ json }) => json.id as string)
        expect(new Set(ids).size).toBe(20)
        const listed = yield* annotationsCall("GET", "", doc)
        expect(listed.json.map((a: { id: string }) => a.id).sort()).toEqual([...ids].sort())
        expect(listed.json.map((a: { content: string }) => a.content).sort()).toEqual(
          Array.from({ length: 20 }, (_, i) => `note ${i}`).sort()
        )
        // And 10 deletions at once with 10 more creations.
        const mixed = yield* Effect.all([
          ...ids.slice(0, 10).map((id) => annotationsCall("DELETE", `/${id}`, doc)),
          ...Array.from({ length: 10 }, () => annotationsCall("POST", "", doc, { type: "note", page: 1 }))
        ], { concurrency: "unbounded" })
        expect(mixed.map(({ status }) => status)).toEqual([...Array(10).fill(200), ...Array(10).fill(201)])
        expect((yield* annotationsCall("GET", "/ids", doc)).json).toHaveLength(20)
      }))

    it.effect("refuses a stored file it cannot read with a 500 naming it, and changes nothing", () =>
      Effect.gen(function*() {
        const doc = { id: "reports/2024/q1.docx" }
        expect((yield* annotationsCall("POST", "", doc, { type: "note", page: 0 })).status).toBe(201)
        const stored = path.join(root, "reports", "2024", ".annotations", "q1.docx.json")
        for (const broken of ["[{\"type\": \"note\", \"page\": 0", "[{\"type\": \"note\", \"page\": 0}]", "{}"]) {
          writeFileSync(stored, broken)
          const list = yield* annotationsCall("GET", "", doc)
          expect(list.status).toBe(500)
          expect(list.json._tag).toBe("AnnotationsUnreadable")
          expect(list.json.message).toContain(path.join("reports", "2024", ".annotations", "q1.docx.json"))
          expect(list.json.message).not.toContain(root)
          const post = yield* annotationsCall("POST", "", doc, { type: "note", page: 0 })
          expect(post.status).toBe(500)
          expect(readFileSync(stored, "utf8")).toBe(broken)
        }
      }))
  })
})
