/**
 * Who may view what on the reference provider: `.access.json` files from the root down, the user
 * named by `user` or by an `alf_ticket` (through `.tickets.json`), folder answers that leave out
 * what the user may not view, and files an administrator edits while the provider runs.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { providerTestLayer } from "../../src/layers/Test.ts"
import { annotationsCall, fetchDocument, makeRoot } from "./support.ts"

const { root } = makeRoot()

const names = (folder: { readonly contents?: ReadonlyArray<{ readonly name: string }> }) =>
  (folder.contents ?? []).map(({ name }) => name)

describe("reference provider: access", () => {
  layer(providerTestLayer({ PROVIDER_ROOT: root }), { timeout: 120_000 })("access files and tickets", (it) => {
    it.effect("lets a listed user view a restricted folder's files, and denies everyone else", () =>
      Effect.gen(function*() {
        expect((yield* fetchDocument({ id: "private/plan.pdf", user: "alice" })).status).toBe(200)
        expect((yield* fetchDocument({ id: "private/plan.pdf", user: "bob" })).status).toBe(200)
        const carol = yield* fetchDocument({ id: "private/plan.pdf", user: "carol" })
        expect(carol.status).toBe(403)
        expect(carol.json).toEqual({ _tag: "AccessDenied", message: expect.stringContaining("carol") })
        const nobody = yield* fetchDocument({ id: "private/plan.pdf" })
        expect(nobody.status).toBe(403)
        expect(nobody.json.message).toContain("needs a user")
        // The folder itself too, by either style.
        expect((yield* fetchDocument({ nodeRef: "workspace://SpacesStore/private", user: "carol" })).status).toBe(403)
      }))

    it.effect("requires every access file from the root down to list the user", () =>
      Effect.gen(function*() {
        expect((yield* fetchDocument({ id: "private/bobonly/b.pdf", user: "bob" })).status).toBe(200)
        expect((yield* fetchDocument({ id: "private/bobonly/b.pdf", user: "alice" })).status).toBe(403)
        expect((yield* fetchDocument({ id: "private/bobonly", user: "alice" })).status).toBe(403)
      }))

    it.effect("answers 403, not 404, for a missing file inside a folder the user may not view", () =>
      Effect.gen(function*() {
        expect((yield* fetchDocument({ id: "private/nothing.pdf", user: "carol" })).status).toBe(403)
        expect((yield* fetchDocument({ id: "private/nothing.pdf", user: "alice" })).status).toBe(404)
      }))

    it.effect("takes the user an alf_ticket stands for; an unknown ticket or another user is 403", () =>
      Effect.gen(function*() {
        const byTicket = yield* fetchDocument({
          nodeRef: "workspace://SpacesStore/private/plan.pdf",
          alf_ticket: "TICKET_abc123"
        })
        expect(byTicket.status).toBe(200)
        expect((yield* fetchDocument({ id: "private/bobonly/b.pdf", alf_ticket: "TICKET_abc123" })).status).toBe(403)
        expect((yield* fetchDocument({ id: "private/bobonly/b.pdf", alf_ticket: "TICKET_bob" })).status).toBe(200)
        // An unknown ticket is refused even where no access file restricts.
        const unknown = yield* fetchDocument({ id: "notes.txt", alf_ticket: "TICKET_nope" })
        expect(unknown.status).toBe(403)
        expect(unknown.json._tag).toBe("AccessDenied")
        for (const ticket of ["constructor", "__proto__", "toString"]) {
          expect((yield* fetchDocument({ id: "notes.txt", alf_ticket: ticket })).status).toBe(403)
        }
        // Both given: they must agree.
        expect((yield* fetchDocument({ id: "private/plan.pdf", alf_ticket: "TICKET_abc123", user: "alice" })).status)
          .toBe(200)
        const disagree = yield* fetchDocument({ id: "private/plan.pdf", alf_ticket: "TICKET_abc123", user: "bob" })
        expect(disagree.status).toBe(403)
      }))

    it.effect("leaves out of a folder answer what the user may not view", () =>
      Effect.gen(function*() {
        const anonymous = yield* fetchDocument({ id: "/" })
        expect(names(anonymous.json)).not.toContain("private")
        const alice = yield* fetchDocument({ id: "/", user: "alice" })
        const privateOfAlice = alice.json.contents.find((entry: { name: string }) => entry.name === "private")
        expect(names(privateOfAlice)).toEqual(["plan.pdf"])
        const bob = yield* fetchDocument({ id: "private", alf_ticket: "TICKET_bob" })
        expect(names(bob.json)).toEqual(["bobonly", "plan.pdf"])
        expect(bob.json.contents[0].contents).toEqual([
          { type: "file", name: "b.pdf", parameters: { id: "private/bobonly/b.pdf" } }
        ])
      }))

    it.effect("denies everything under an access file that cannot be read (fail closed)", () =>
      Effect.gen(function*() {
        for (const user of ["alice", "bob", "carol"]) {
          expect((yield* fetchDocument({ id: "broken/x.pdf", user })).status).toBe(403)
        }
        const listing = yield* fetchDocument({ id: "/", user: "alice" })
        expect(names(listing.json)).not.toContain("broken")
      }))

    it.effect("checks annotation requests the same way", () =>
      Effect.gen(function*() {
        expect((yield* annotationsCall("GET", "", { id: "private/plan.pdf", user: "carol" })).status).toBe(403)
        expect((yield* annotationsCall("GET", "", { id: "private/plan.pdf", user: "alice" })).status).toBe(200)
        const created = yield* annotationsCall("POST", "", { id: "private/plan.pdf", user: "carol" }, {
          type: "note",
          page: 0
        })
        expect(created.status).toBe(403)
        expect((yield* annotationsCall("GET", "/ids", { id: "private/plan.pdf", alf_ticket: "nope" })).status).toBe(403)
      }))

    it.effect("reads access files and tickets again on every request", () =>
      Effect.gen(function*() {
        const carol = { id: "store1/basicapi.pdf", user: "carol" }
        expect((yield* fetchDocument(carol)).status).toBe(200)
        writeFileSync(path.join(root, "store1", ".access.json"), JSON.stringify({ users: ["alice"] }))
        expect((yield* fetchDocument(carol)).status).toBe(403)
        writeFileSync(path.join(root, "store1", ".access.json"), JSON.stringify({ users: ["alice", "carol"] }))
        expect((yield* fetchDocument(carol)).status).toBe(200)
        // A new ticket works at once; a tickets file that cannot be read refuses every ticket.
        const byTicket = { id: "store1/basicapi.pdf", alf_ticket: "TICKET_carol" }
        expect((yield* fetchDocument(byTicket)).status).toBe(403)
        writeFileSync(path.join(root, ".tickets.json"), JSON.stringify({ TICKET_carol: "carol" }))
        expect((yield* fetchDocument(byTicket)).status).toBe(200)
        writeFileSync(path.join(root, ".tickets.json"), "not json")
        expect((yield* fetchDocument(byTicket)).status).toBe(403)
        // A request with no ticket does not need the tickets file.
        expect((yield* fetchDocument(carol)).status).toBe(200)
      }))
  })
})
