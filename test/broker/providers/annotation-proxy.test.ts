/**
 * The annotation proxy against the reference provider over loopback: annotations made through the
 * broker are kept by the provider (read back from its files here), on a single document and on a
 * folder, whose pages are moved to each file's own pages and back.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { BrokerUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { corpusFile, uploadOk } from "../../support/http.ts"
import { get, makeProviderRoot, openOk, providerAndBroker, sendJson } from "./support.ts"

const root = makeProviderRoot()

/** What the provider keeps for a file: its annotation file beside it. */
const stored = (file: string): Array<any> =>
  JSON.parse(readFileSync(path.join(root, path.dirname(file), ".annotations", `${path.basename(file)}.json`), "utf8"))

const pageCount = (id: string) =>
  get(`/documents/${id}/layout`).pipe(Effect.map((reply) => reply.json.pageDimensionsList.length as number))

const highlight = (page: number, content: string) => ({
  type: "Highlight",
  page,
  content,
  position: { x: 72, y: 100, w: 200, h: 14 },
  color: { r: 255, g: 230, b: 0 }
})

layer(providerAndBroker(root, defaultBackend.config), { timeout: 300_000 })("annotation proxy", (it) => {
  it.effect("a document's annotations: created, listed, read, changed and deleted at its provider", () =>
    Effect.gen(function*() {
      const id = yield* openOk({ id: "tracemonkey.pdf" })
      const created = yield* sendJson("POST", `/documents/${id}/annotations`, highlight(2, "Check this"))
      expect(created.status).toBe(200)
      expect(created.json).toMatchObject({ ...highlight(2, "Check this"), id: expect.any(String) })
      const annotationId = created.json.id as string
      expect(stored("tracemonkey.pdf")).toEqual([{ ...highlight(2, "Check this"), id: annotationId }])

      expect((yield* get(`/documents/${id}/annotations/ids`)).json).toEqual([{ id: annotationId }])
      expect((yield* get(`/documents/${id}/annotations/${annotationId}`)).json).toEqual(created.json)

      const changed = yield* sendJson("PUT", `/documents/${id}/annotations/${annotationId}`, highlight(3, "Moved"))
      expect(changed.status).toBe(200)
      expect(changed.json).toEqual({ ...highlight(3, "Moved"), id: annotationId })
      expect(stored("tracemonkey.pdf")).toEqual([{ ...highlight(3, "Moved"), id: annotationId }])

      const pastTheEnd = yield* sendJson("POST", `/documents/${id}/annotations`, highlight(14, "x"))
      expect(pastTheEnd.status).toBe(400)
      expect(pastTheEnd.json.message).toBe("Page 14 does not exist: the document has pages 0 to 13")
      const noType = yield* sendJson("POST", `/documents/${id}/annotations`, { page: 0 })
      expect(noType.status).toBe(400)
      expect(noType.json.message).toContain("type")

      expect((yield* get(`/documents/${id}/annotations/${annotationId}`, { method: "DELETE" })).status).toBe(200)
      expect((yield* get(`/documents/${id}/annotations/${annotationId}`)).status).toBe(404)
      expect((yield* get(`/documents/${id}/annotations/ids`)).json).toEqual([])
      expect(stored("tracemonkey.pdf")).toEqual([])
    }))

  it.effect("who asks is forwarded: the provider's refusal is a 403", () =>
    Effect.gen(function*() {
      const id = yield* openOk({ id: "private/plan.pdf", user: "alice" })
      // The latest opening's user, unless the request names one.
      const made = yield* sendJson("POST", `/documents/${id}/annotations`, highlight(0, "Alice's"))
      expect(made.status).toBe(200)
      const refused = yield* get(`/documents/${id}/annotations/ids?user=mallory`)
      expect(refused.status).toBe(403)
      expect(refused.json._tag).toBe("ProviderAccessDenied")
      expect((yield* get(`/documents/${id}/annotations/ids?alf_ticket=TICKET_alice`)).json).toEqual([{
        id: made.json.id
      }])
    }))

  it.effect("a folder: one page sequence over its files; each annotation kept with its file, on the file's page", () =>
    Effect.gen(function*() {
      const id = yield* openOk({ id: "case-42" }, { contentType: "application/json" })
      const contract = yield* pageCount(`${id}@0`)
      const letter = yield* pageCount(`${id}@1`)
      const mailBody = yield* pageCount(`${id}@4@0`)
      expect(contract).toBe(3)

      // Page `contract` of the folder is the letter's first page; two further on, the reply's page 1… (reply has 5).
      const onLetter = yield* sendJson("POST", `/documents/${id}/annotations`, highlight(contract, "letter"))
      expect(onLetter.status).toBe(200)
      expect(onLetter.json.page).toBe(contract)
      expect(onLetter.json.id).toMatch(/^1:/)
      expect(stored("case-42/2 letter.docx")).toMatchObject([{ page: 0, content: "letter" }])

      const replyPage1 = contract + letter + 1
      const onReply = yield* sendJson("POST", `/documents/${id}/annotations`, highlight(replyPage1, "reply"))
      expect(onReply.json.id).toMatch(/^3:/)
      expect(stored("case-42/letters/reply.pdf")).toMatchObject([{ page: 1, content: "reply" }])
      expect(stored("case-42/letters/reply.pdf")[0].position).toEqual(highlight(0, "").position)

      const listed = (yield* get(`/documents/${id}/annotations/ids`)).json.map((a: { id: string }) => a.id)
      expect(listed.sort()).toEqual([onLetter.json.id, onReply.json.id].sort())
      expect((yield* get(`/documents/${id}/annotations/${onReply.json.id}`)).json.page).toBe(replyPage1)

      // The reply as a document of its own: the provider's IDs and the file's pages.
      const replyId = onReply.json.id.slice(2)
      expect((yield* get(`/documents/${id}@3/annotations/ids`)).json).toEqual([{ id: replyId }])
      expect((yield* get(`/documents/${id}@3/annotations/${replyId}`)).json).toMatchObject({ page: 1 })

      // A part of an email in the folder: kept with the email, counted over the email's parts.
      const onAttachment = yield* sendJson("POST", `/documents/${id}@4@1/annotations`, highlight(0, "attachment"))
      expect(onAttachment.status).toBe(200)
      expect(onAttachment.json.page).toBe(0)
      expect(stored("case-42/mail.eml")).toMatchObject([{ page: mailBody, content: "attachment" }])
      expect((yield* get(`/documents/${id}@4@0/annotations/ids`)).json).toEqual([])
      expect((yield* get(`/documents/${id}@4@0/annotations/${onAttachment.json.id}`)).status).toBe(404)
      expect((yield* get(`/documents/${id}@4/annotations/ids`)).json).toEqual([{ id: onAttachment.json.id }])

      // An annotation stays with its file: moving it to another file's page is refused.
      const moved = yield* sendJson("PUT", `/documents/${id}/annotations/${onLetter.json.id}`, highlight(0, "x"))
      expect(moved.status).toBe(400)
      expect(moved.json.message).toContain("cannot move between files")
      const unknown = yield* get(`/documents/${id}/annotations/9:nothing`)
      expect(unknown.status).toBe(404)

      expect((yield* get(`/documents/${id}/annotations/${onLetter.json.id}`, { method: "DELETE" })).status).toBe(200)
      expect(stored("case-42/2 letter.docx")).toEqual([])
    }))

  it.effect("a document uploaded to the broker has its annotations at /annotation: 404 here, saying so", () =>
    Effect.gen(function*() {
      const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/basicapi.pdf"))
      const reply = yield* get(`/documents/${id}/annotations/ids`)
      expect(reply.status).toBe(404)
      expect(reply.json.message).toContain("/annotation?documentId=")
    }))
})
