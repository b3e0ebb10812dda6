/**
 * POST /registry/documents against the reference provider over loopback: a file and a folder
 * opened by their parameters, the same document for the same parameters, the provider asked on
 * every opening, and the cached copy fetched again after its time.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { copyFileSync, renameSync, rmSync } from "node:fs"
import * as path from "node:path"
import { CORPUS, defaultBackend } from "../../support/backends.ts"
import { get, makeProviderRoot, NON_ASCII_TITLE, openDocument, openOk, providerAndBroker } from "./support.ts"

const root = makeProviderRoot()

const pageCount = (id: string) =>
  get(`/documents/${id.replaceAll("/", "@")}/layout`).pipe(
    Effect.map((reply) => (reply.json?.pageDimensionsList as Array<unknown> | undefined)?.length)
  )

const providers = { filesystem: {}, idOnly: { parameters: ["id"] } }

layer(providerAndBroker(root, { ...defaultBackend.config, PROVIDER_CACHE_TTL: "2 seconds" }, providers), {
  timeout: 300_000
})(
  "registry documents",
  (it) => {
    it.effect("a file: opened by id or nodeRef, titled from filename*, the same ID every time", () =>
      Effect.gen(function*() {
        const id = yield* openOk({ id: "tracemonkey.pdf" })
        expect(id).toMatch(/^b64_[\w-]{32}$/)
        expect(yield* pageCount(id)).toBe(14)
        expect(yield* openOk({ id: "tracemonkey.pdf" })).toBe(id)
        // A parameter the provider does not take is dropped, so it changes nothing.
        expect(yield* openOk({ id: "tracemonkey.pdf", color: "blue" })).toBe(id)

        const byNodeRef = yield* openOk({ nodeRef: "workspace://SpacesStore/tracemonkey.pdf" })
        expect(yield* pageCount(byNodeRef)).toBe(14)

        const titled = yield* openOk({ id: NON_ASCII_TITLE }, { contentType: "application/pdf" })
        const metadata = yield* get(`/documents/${titled}`)
        expect(metadata.json.documentTitle).toBe(NON_ASCII_TITLE)
        expect(metadata.json.mimeType).toBe("application/pdf")
        const image = yield* get(`/documents/${titled}/pages/0/image?pageImageDescription=IM_300_0`)
        expect(image.status).toBe(200)
        expect(image.contentType).toBe("image/png")
      }))

    it.effect("only the provider's whitelisted parameters are forwarded", () =>
      Effect.gen(function*() {
        const inStore = { objectStoreName: "case-42", id: "1 contract.pdf" }
        const both = yield* openOk(inStore)
        expect(yield* pageCount(both)).toBe(3)
        // idOnly takes `id` alone: without objectStoreName the provider looks at the root, where there is no such file.
        const idOnly = yield* openDocument(inStore, { provider: "idOnly" })
        expect(idOnly.status).toBe(404)
        expect(idOnly.json.message).toContain("Provider idOnly has no such document")
        expect(yield* openOk({ id: "tracemonkey.pdf", objectStoreName: "ignored" }, { provider: "idOnly" }))
          .toBe(yield* openOk({ id: "tracemonkey.pdf" }, { provider: "idOnly" }))
      }))

    it.effect("who asks is not part of the ID, and the provider is asked on every opening", () =>
      Effect.gen(function*() {
        const denied = yield* openDocument({ id: "private/plan.pdf", user: "mallory" })
        expect(denied.status).toBe(403)
        expect(denied.json._tag).toBe("ProviderAccessDenied")
        expect(denied.json.message).toContain("filesystem")

        const forAlice = yield* openOk({ id: "private/plan.pdf", user: "alice" })
        expect(yield* openOk({ id: "private/plan.pdf", alf_ticket: "TICKET_alice" })).toBe(forAlice)
        expect(yield* pageCount(forAlice)).toBe(3)
        // Alice's copy is cached; Mallory is still refused.
        expect((yield* openDocument({ id: "private/plan.pdf", user: "mallory" })).status).toBe(403)
      }))

    it.effect("the provider's 404 is a 404; a request that names nothing or no provider is a 400", () =>
      Effect.gen(function*() {
        const missing = yield* openDocument({ id: "no-such.pdf" })
        expect(missing.status).toBe(404)
        expect(missing.json._tag).toBe("ProviderDocumentNotFound")

        const nothing = yield* openDocument({ color: "blue" })
        expect(nothing.status).toBe(400)
        expect(nothing.json.message).toContain("No parameter names a document")
        const twice = yield* get("/registry/documents", {
          method: "POST",
          headers: { "content-type": "application/octet-stream" },
          body: "id=a.pdf&id=b.pdf"
        })
        expect(twice.status).toBe(400)
        expect(twice.json.message).toBe("The parameter id is given twice")

        const unknownProvider = yield* openDocument({ id: "tracemonkey.pdf" }, { provider: "filenet" })
        expect(unknownProvider.status).toBe(400)
        expect(unknownProvider.json.message).toBe(
          "No provider is named 'filenet' (X-Provider-ID); providers: filesystem, idOnly"
        )

        // Bytes, not a string: fetch would label a string text/plain.
        const noType = yield* get("/registry/documents", {
          method: "POST",
          body: new TextEncoder().encode("id=tracemonkey.pdf")
        })
        expect(noType.status).toBe(400)
        expect(noType.json.message).toContain("Content-Type")

        const long = yield* get("/registry/documents", {
          method: "POST",
          headers: { "content-type": "application/octet-stream" },
          body: `id=${"a".repeat(70_000)}`
        })
        expect(long.status).toBe(400)
        expect(long.json.message).toContain("REGISTRY_PARAMETERS_MAX_BYTES")
      }))

    it.effect("a folder: a container of its files, fetched when first opened, subfolders expanded in place", () =>
      Effect.gen(function*() {
        const id = yield* openOk({ id: "case-42" }, { contentType: "application/json" })
        const layout = yield* get(`/documents/${id}/layout`)
        expect(layout.status).toBe(200)
        expect(layout.json.type).toMatch(/DocumentContainer$/)
        expect(layout.json.documentTitle).toBe("case-42")
        const children = layout.json.children as Array<any>
        expect(children.map((c) => [c.documentId, c.documentTitle, c.type.split(".").pop()])).toEqual([
          [`${id}/0`, "1 contract.pdf", "DocumentReference"],
          [`${id}/1`, "2 letter.docx", "DocumentReference"],
          [`${id}/2`, "letters", "DocumentContainer"],
          [`${id}/4`, "mail.eml", "DocumentReference"]
        ])
        expect(children[2].children.map((c: any) => [c.documentId, c.documentTitle])).toEqual([
          [`${id}/3`, "reply.pdf"]
        ])

        // A file is fetched when first asked for, and kept: the provider losing it afterwards changes nothing.
        const contract = path.join(root, "case-42/1 contract.pdf")
        expect(yield* pageCount(`${id}/0`)).toBe(3)
        renameSync(contract, `${contract}.away`)
        expect(yield* pageCount(`${id}/0`)).toBe(3)
        // One not asked for yet is not fetched yet: gone from the provider, it is a 404 on first use.
        const reply = path.join(root, "case-42/letters/reply.pdf")
        renameSync(reply, `${reply}.away`)
        const gone = yield* get(`/documents/${id}@3/layout`)
        expect(gone.status).toBe(404)
        expect(gone.json.message).toContain("Provider filesystem has no such document")
        renameSync(`${reply}.away`, reply)
        renameSync(`${contract}.away`, contract)

        // A file in a subfolder, an office file (converted on first use), an email inside the folder.
        expect(yield* pageCount(`${id}/3`)).toBe(5)
        expect(yield* pageCount(`${id}/1`)).toBeGreaterThan(0)
        const mail = yield* get(`/documents/${id}@4/layout`)
        expect(mail.json.type).toMatch(/DocumentContainer$/)
        expect(yield* pageCount(`${id}/4/0`)).toBeGreaterThan(0)
        expect((yield* get(`/documents/${id}@0/pages/0/image`)).contentType).toBe("image/png")

        // All its files as one PDF, in layout order.
        const merged = yield* get(`/documents/${id}/file?format=pdf`)
        expect(merged.status).toBe(200)
        expect(merged.bytes.subarray(0, 5).toString()).toBe("%PDF-")

        // Deleting the folder deletes its files' documents; opening it again brings it back.
        expect((yield* get(`/documents/${id}`, { method: "DELETE" })).status).toBe(200)
        expect((yield* get(`/documents/${id}@0/layout`)).status).toBe(404)
        expect((yield* get(`/documents/${id}/layout`)).status).toBe(404)
        expect(yield* openOk({ id: "case-42" }, { contentType: "application/json" })).toBe(id)
        expect(yield* pageCount(`${id}/0`)).toBe(3)
      }))

    it.effect("the content is used for PROVIDER_CACHE_TTL, then fetched again", () =>
      Effect.gen(function*() {
        const file = path.join(root, "changing.pdf")
        copyFileSync(`${CORPUS}pdf/basicapi.pdf`, file)
        const id = yield* openOk({ id: "changing.pdf" })
        expect(yield* pageCount(id)).toBe(3)
        copyFileSync(`${CORPUS}pdf/tracemonkey.pdf`, file)
        // Within its time: the cached copy.
        expect(yield* openOk({ id: "changing.pdf" })).toBe(id)
        expect(yield* pageCount(id)).toBe(3)
        yield* Effect.sleep("2100 millis")
        expect(yield* openOk({ id: "changing.pdf" })).toBe(id)
        expect(yield* pageCount(id)).toBe(14)
        // Gone from the provider: 404, even while cached.
        rmSync(file)
        expect((yield* openDocument({ id: "changing.pdf" })).status).toBe(404)
      }))
  }
)
