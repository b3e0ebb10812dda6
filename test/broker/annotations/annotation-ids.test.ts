/**
 * PUT /annotation keeps an ID its client gives (docs/annotations.md, "IDs"): listed under it; a
 * taken one, one of another form or one given twice refused with nothing written; a deleted
 * annotation of the PDF file brought back by naming it, as the file's again.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { brokerTestLayer } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, uploadOk } from "../../support/http.ts"
import { annotatedDocument, json } from "./annotation-http-support.ts"

const square = (id?: string) => ({
  ...(id === undefined ? {} : { id: { id } }),
  type: "Square",
  page: 0,
  position: { x: 100, y: 200, w: 80, h: 40 },
  color: { r: 0, g: 0, b: 255 }
})

layer(brokerTestLayer(defaultBackend.config), { timeout: 120_000 })("annotation IDs given by clients", (it) => {
  it.effect("a new ID is kept; a taken one, another form or one given twice is 400 and nothing is written", () =>
    Effect.gen(function*() {
      const { list, url } = yield* annotatedDocument("pdf/tracemonkey.pdf")

      const put = yield* call(url, json("PUT", { annotations: [square("client_made-1"), square()] }))
      expect(put.status).toBe(200)
      expect(put.text).toBe("")
      const [kept, assigned] = yield* list
      expect(kept).toMatchObject({ ...square("client_made-1"), origin: "store" })
      expect(assigned.id.id).toMatch(/^a_/)
      // The kept ID names the annotation from then on, as an assigned one does.
      const changed = { ...square("client_made-1"), contents: "Moved" }
      expect((yield* call(url, json("POST", { annotations: [changed] }))).status).toBe(200)
      expect((yield* list).find((a) => a.id.id === "client_made-1").contents).toBe("Moved")

      const refusals = [
        [
          [square("client_made-1")],
          "id 'client_made-1' is taken by an annotation the document shows: change that one with POST"
        ],
        [[square(assigned.id.id)], `id '${assigned.id.id}' is taken`],
        [[square("short")], "annotations[1] (Square): an id a client gives is 8 to 64 letters, digits, '_' or '-'"],
        [[square("has a space")], "8 to 64 letters"],
        [[square("x".repeat(65))], "8 to 64 letters"],
        [
          [square("twice-given"), square("twice-given")],
          "annotations[1] (Square): id 'twice-given' is given to more than one annotation of the body"
        ]
      ] as const
      for (const [annotations, message] of refusals) {
        const refused = yield* call(url, json("PUT", { annotations: [square("would-be-new"), ...annotations] }))
        expect(refused.status, message).toBe(400)
        expect(refused.json._tag).toBe("InvalidRequest")
        expect(refused.json.message).toContain(message)
        // All or nothing: the valid annotation of the body was not written either.
        expect((yield* list).map((a) => a.id.id)).toEqual(["client_made-1", assigned.id.id])
      }
      // Reported with the body's other problems.
      const both = yield* call(url, json("PUT", { annotations: [{ ...square("short"), page: 99 }] }))
      expect(both.json.message).toMatch(/8 to 64 letters.*page 99 does not exist/)
    }))

  it.effect("naming a deleted annotation of the file brings it back as the file's, with its creation date", () =>
    Effect.gen(function*() {
      const { base, id, list, url } = yield* annotatedDocument("pdf/annotation-highlight.pdf")
      const [original] = yield* list
      expect(original).toMatchObject({ type: "Highlight", origin: "file" })

      // Shown: its ID is taken.
      const taken = yield* call(url, json("PUT", { annotations: [original] }))
      expect(taken.status).toBe(400)
      expect(taken.json.message).toContain("change that one with POST")

      expect((yield* call(url, json("DELETE", { annotations: [{ id: original.id }] }))).status).toBe(200)
      expect(yield* list).toEqual([])
      // Undo: the deleted annotation PUT back (here with a change), under its own ID.
      const { origin: _origin, date: _date, ...restored } = { ...original, contents: "Back again" }
      expect((yield* call(url, json("PUT", { annotations: [restored] }))).status).toBe(200)
      const [back, ...others] = yield* list
      expect(others).toEqual([])
      expect(back).toMatchObject({ ...restored, origin: "file", creationDate: original.creationDate })
      // It is the file's again: deleting it hides it, and it can be brought back once more.
      expect((yield* call(url, json("DELETE", { annotations: [{ id: original.id }] }))).status).toBe(200)
      expect((yield* call(url, json("PUT", { annotations: [restored] }))).status).toBe(200)
      expect((yield* list).map((a) => [a.id.id, a.origin])).toEqual([[original.id.id, "file"]])
      // An annotated download holds it once.
      const embedded = yield* call(`${base}/documents/${id}/file?format=pdf&annotations=embed`)
      const copy = yield* uploadOk(base, embedded.bytes)
      expect(
        ((yield* call(`${base}/annotation?documentId=${copy}`)).json.annotations as Array<any>).map((a) => a.contents)
      )
        .toEqual(["Back again"])
    }))
})
