/**
 * The annotations routes against a real broker: a PDF's own annotations and the broker's listed,
 * created (with the viewer's IDs or the browser's), changed, deleted and answered as kept; the
 * session's user as the author when validateToken recorded one; the broker's 400s and 404s (the
 * policy's 403: editing-read-only.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SignJWT } from "jose"
import { BrokerUrl } from "../../src/layers/Test.ts"
import { corpusFile, uploadOk } from "../support/http.ts"
import { annotationsCall, listed, square } from "./editing-support.ts"
import { servlet, viewerAndBroker } from "./support.ts"

const SECRET = "a test secret of enough length for HS256"

/** The session cookie of a browser whose token names `user`. */
const sessionOf = (user: string) =>
  Effect.gen(function*() {
    const token = yield* Effect.promise(() =>
      new SignJWT({ sub: user }).setProtectedHeader({ alg: "HS256" }).setExpirationTime("5m").sign(
        new TextEncoder().encode(SECRET)
      )
    )
    const reply = yield* servlet("validateToken", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token }).toString()
    })
    expect(reply.status, reply.text).toBe(200)
    return reply.headers.get("set-cookie")!.split(";")[0]!
  })

const note = { type: "Text", page: 0, position: { x: 300, y: 200, w: 20, h: 20 }, contents: "Check this" }

describe("annotations routes, the broker's store", () => {
  it.layer(viewerAndBroker({ VIEWER_TOKEN_VALIDATOR: "jwt", VIEWER_JWT_SECRET: SECRET }), { timeout: 300_000 })(
    (it) => {
      it.effect("lists the file's annotations; creates, changes and deletes, each answered as the broker keeps it", () =>
        Effect.gen(function*() {
          const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/annotation-highlight.pdf"))
          const first = yield* listed(id)
          expect(first.store).toBe("broker")
          expect(first.skipped).toBe(0)
          expect(first.annotations.length).toBeGreaterThan(0)
          for (const a of first.annotations) {
            expect(a).toMatchObject({ type: "Highlight", page: 0, origin: "file" })
            expect(typeof a.id).toBe("string")
            expect(a).not.toHaveProperty("documentId")
          }

          const created = yield* annotationsCall("POST", id, {
            annotations: [
              square(0, { x: 50, y: 60, w: 100, h: 40 }, { creator: "Alice" }),
              { ...note, id: "browser-note-1", replies: [{ contents: "Agreed", creator: "Bob" }] }
            ]
          })
          expect(created.status, created.text).toBe(200)
          const [made, named] = created.json.annotations
          expect(created.json.annotations).toHaveLength(2)
          // The viewer names one without an ID; the browser's own ID is kept; both dated by the broker.
          expect(made.id).toMatch(/^v[A-Za-z0-9_-]{16}$/)
          expect(made).toMatchObject({ type: "Square", creator: "Alice", origin: "store", position: { x: 50, y: 60 } })
          expect(named).toMatchObject({ id: "browser-note-1", type: "Text", contents: "Check this", origin: "store" })
          expect(named.replies).toMatchObject([{ contents: "Agreed", creator: "Bob" }])
          for (const a of [made, named]) {
            expect(Date.parse(a.date)).not.toBeNaN()
            expect(Date.parse(a.creationDate)).not.toBeNaN()
            expect(a).not.toHaveProperty("documentId")
          }
          const all = yield* listed(id)
          expect(all.annotations.map((a) => a.id)).toEqual([...first.annotations.map((a) => a.id), made.id, named.id])

          const changed = yield* annotationsCall("PUT", id, {
            annotations: [{ ...made, color: { r: 0, g: 0, b: 255 }, contents: "Blue now" }]
          })
          expect(changed.status, changed.text).toBe(200)
          expect(changed.json.annotations).toHaveLength(1)
          expect(changed.json.annotations[0]).toMatchObject({
            id: made.id,
            color: { r: 0, g: 0, b: 255 },
            contents: "Blue now",
            creationDate: made.creationDate
          })
          // A file's own annotation changes too, and stays the file's.
          const fileOne = first.annotations[0]!
          const moved = yield* annotationsCall("PUT", id, { annotations: [{ ...fileOne, contents: "Edited" }] })
          expect(moved.json.annotations[0]).toMatchObject({ id: fileOne.id, contents: "Edited", origin: "file" })

          const removed = yield* annotationsCall("DELETE", id, { ids: [made.id, fileOne.id] })
          expect(removed.status, removed.text).toBe(200)
          expect(removed.json).toEqual({ ids: [made.id, fileOne.id] })
          const left = (yield* listed(id)).annotations.map((a) => a.id)
          expect(left).not.toContain(made.id)
          expect(left).not.toContain(fileOne.id)
          expect(left).toContain(named.id)

          // Undo of a delete: the file's annotation comes back under its ID.
          const restored = yield* annotationsCall("POST", id, { annotations: [fileOne] })
          expect(restored.status, restored.text).toBe(200)
          expect(restored.json.annotations[0]).toMatchObject({ id: fileOne.id, origin: "file" })

          const policy = yield* servlet(`annotationPolicy?uuid=${id}`)
          expect(policy.status).toBe(200)
          expect(policy.json.canCreateAnnotations).toBe(true)
          expect(policy.json.availableRedactReasons.length).toBeGreaterThan(0)
        }))

      it.effect("with a session user: what a request adds is the user's, what it changes keeps its author", () =>
        Effect.gen(function*() {
          const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/basicapi.pdf"))
          const alice = yield* sessionOf("alice")
          const created = yield* annotationsCall("POST", id, {
            annotations: [
              square(0, { x: 10, y: 10, w: 50, h: 50 }, { creator: "mallory" }),
              { ...note, id: "named-by-browser", creator: "mallory", replies: [{ contents: "Me", creator: "mallory" }] }
            ]
          }, alice)
          expect(created.status, created.text).toBe(200)
          expect(created.json.annotations.map((a: any) => a.creator)).toEqual(["alice", "alice"])
          expect(created.json.annotations[1].replies[0].creator).toBe("alice")
          const thread = created.json.annotations[1]

          // Bob answers alice's note and tries to rename its author: the note stays alice's, the reply is his.
          const bob = yield* sessionOf("bob")
          const answered = yield* annotationsCall("PUT", id, {
            annotations: [{
              ...thread,
              creator: "bob",
              replies: [...thread.replies, { contents: "Done", creator: "alice" }]
            }]
          }, bob)
          expect(answered.status, answered.text).toBe(200)
          const after = answered.json.annotations[0]
          expect(after.creator).toBe("alice")
          expect(after.replies.map((r: any) => [r.contents, r.creator])).toEqual([["Me", "alice"], ["Done", "bob"]])

          // Without a session the body says who wrote it.
          const anonymous = yield* annotationsCall("POST", id, { annotations: [{ ...note, creator: "Carol" }] })
          expect(anonymous.json.annotations[0].creator).toBe("Carol")
        }))

      it.effect("400 and 404 as the broker answers them, and for the viewer's own checks", () =>
        Effect.gen(function*() {
          const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/basicapi.pdf"))
          const pastEnd = yield* annotationsCall("POST", id, { annotations: [square(9, { x: 1, y: 1, w: 5, h: 5 })] })
          expect(pastEnd.status).toBe(400)
          expect(pastEnd.json._tag).toBe("InvalidRequest")
          expect(pastEnd.json.message).toContain("page 9")

          const noType = yield* annotationsCall("POST", id, { annotations: [{ page: 0, position: {} }] })
          expect(noType.status).toBe(400)

          const kept = yield* annotationsCall("POST", id, { annotations: [{ ...note, id: "taken-id-1" }] })
          expect(kept.status).toBe(200)
          const taken = yield* annotationsCall("POST", id, { annotations: [{ ...note, id: "taken-id-1" }] })
          expect(taken.status).toBe(400)
          const badId = yield* annotationsCall("POST", id, { annotations: [{ ...note, id: "a b" }] })
          expect(badId.status).toBe(400)

          const unnamed = yield* annotationsCall("PUT", id, { annotations: [note] })
          expect(unnamed.status).toBe(400)
          expect(unnamed.json.message).toContain("needs the id")
          const unknown = yield* annotationsCall("PUT", id, { annotations: [{ ...note, id: "nothing-here" }] })
          expect(unknown.status).toBe(404)
          expect(unknown.json._tag).toBe("AnnotationNotFound")
          const gone = yield* annotationsCall("DELETE", id, { ids: ["nothing-here"] })
          expect(gone.status).toBe(404)
          expect(gone.json._tag).toBe("AnnotationNotFound")

          expect((yield* servlet("annotations")).status).toBe(400)
          const none = yield* servlet("annotations?uuid=b64_nothing")
          expect(none.status).toBe(404)
          expect(none.json._tag).toBe("DocumentNotFound")
          expect((yield* annotationsCall("POST", "b64_nothing", { annotations: [note] })).status).toBe(404)
          expect((yield* servlet("annotationPolicy?uuid=b64_nothing")).status).toBe(404)
          // A composite document has no pages to annotate: the broker's answer as it is.
          const archive = yield* uploadOk(yield* BrokerUrl, corpusFile("office/nested.zip"))
          const composite = yield* servlet(`annotations?uuid=${archive}`)
          expect(composite.status).toBe(500)
          expect(composite.json._tag).toBe("DocumentProcessingFailed")
        }))
    }
  )
})
