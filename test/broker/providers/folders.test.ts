/**
 * POST /registry/folders against the reference provider over loopback: a container built from a
 * tree the client gives, its files fetched on first use from the provider or, for a `documentUrl`
 * file, from a loopback HTTP server (ALLOW_PRIVATE_URLS, as for /accessor/load); the assigned ID,
 * 409 on its reuse, 400 on a malformed tree.
 */
import { afterAll, beforeAll, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { renameSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { defaultBackend } from "../../support/backends.ts"
import { corpusFile } from "../../support/http.ts"
import { get, makeProviderRoot, providerAndBroker, sendJson } from "./support.ts"

const root = makeProviderRoot()

let origin = ""
let server: Server
beforeAll(async () => {
  const pdf = corpusFile("pdf/basicapi.pdf")
  server = createServer((req, res) => {
    if (req.url === "/web.pdf") res.writeHead(200, { "content-type": "application/pdf" }).end(pdf)
    else res.writeHead(404).end("no such file")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const file = (name: string, parameters: Record<string, string>) => ({ type: "file", name, parameters })

/** 0 contract, 1 letters/, 2 reply, 3 trace. */
const tree = {
  type: "folder",
  name: "Dossier 7",
  parameters: {},
  contents: [
    file("Contract", { id: "case-42/1 contract.pdf" }),
    {
      type: "folder",
      name: "letters",
      parameters: {},
      contents: [file("Reply", { nodeRef: "workspace://SpacesStore/case-42/letters/reply.pdf" })]
    },
    file("Trace", { id: "tracemonkey.pdf" })
  ]
}

const pageCount = (id: string) =>
  get(`/documents/${id.replaceAll("/", "@")}/layout`).pipe(
    Effect.map((reply) => (reply.json?.pageDimensionsList as Array<unknown> | undefined)?.length)
  )

layer(providerAndBroker(root, { ...defaultBackend.config, ALLOW_PRIVATE_URLS: "true" }), { timeout: 300_000 })(
  "registry folders",
  (it) => {
    it.effect("a tree: a container of its files, fetched when first used, its layout the tree", () =>
      Effect.gen(function*() {
        const created = yield* sendJson("POST", "/registry/folders", tree)
        expect(created.status).toBe(200)
        const id = created.json.id as string
        expect(id).toMatch(/^b64_[\w-]+$/)

        // Nothing fetched yet: a file gone from the provider before its first use is a 404 then.
        const trace = path.join(root, "tracemonkey.pdf")
        renameSync(trace, `${trace}.away`)
        const layout = yield* get(`/documents/${id}/layout`)
        expect(layout.status).toBe(200)
        expect(layout.json.type).toMatch(/DocumentContainer$/)
        expect(layout.json.documentTitle).toBe("Dossier 7")
        const children = layout.json.children as Array<any>
        expect(children.map((c) => [c.documentId, c.documentTitle, c.type.split(".").pop()])).toEqual([
          [`${id}/0`, "Contract", "DocumentReference"],
          [`${id}/1`, "letters", "DocumentContainer"],
          [`${id}/3`, "Trace", "DocumentReference"]
        ])
        expect(children[1].children.map((c: any) => [c.documentId, c.documentTitle])).toEqual([[`${id}/2`, "Reply"]])
        expect((yield* get(`/documents/${id}@3/layout`)).status).toBe(404)
        renameSync(`${trace}.away`, trace)

        expect(yield* pageCount(`${id}/0`)).toBe(3)
        expect(yield* pageCount(`${id}/2`)).toBe(5)
        expect(yield* pageCount(`${id}/3`)).toBe(14)
        const image = yield* get(`/documents/${id}@2/pages/0/image?pageImageDescription=IM_300_0`)
        expect(image.status).toBe(200)
        expect(image.contentType).toBe("image/png")
      }))

    it.effect("an assigned ID, refused (409) once taken; a malformed tree is a 400", () =>
      Effect.gen(function*() {
        const created = yield* sendJson("POST", "/registry/folders?documentId=case-7-view&user=alice", tree)
        expect(created.status).toBe(200)
        expect(created.json).toEqual({ id: "case-7-view" })
        expect(yield* pageCount("case-7-view/0")).toBe(3)

        const again = yield* sendJson("POST", "/registry/folders?documentId=case-7-view", tree)
        expect(again.status).toBe(409)
        expect(again.json._tag).toBe("DocumentAlreadyExists")
        // The first one is untouched.
        expect((yield* get("/documents/case-7-view/layout")).json.documentTitle).toBe("Dossier 7")

        const badId = yield* sendJson("POST", "/registry/folders?documentId=a%2Fb", tree)
        expect(badId.status).toBe(400)
        for (
          const body of [
            { type: "file", name: "x", parameters: {} },
            { type: "folder", name: "x", parameters: {}, contents: [{ type: "file", name: "y" }] },
            { type: "folder", name: "x", parameters: {}, contents: [file("y", { id: "a" as any }), 7] },
            { type: "folder", name: "x", contents: [] }
          ]
        ) {
          const reply = yield* sendJson("POST", "/registry/folders", body)
          expect(reply.status, JSON.stringify(body)).toBe(400)
        }
        const unknownProvider = yield* get("/registry/folders", {
          method: "POST",
          headers: { "content-type": "application/json", "x-provider-id": "filenet" },
          body: JSON.stringify(tree)
        })
        expect(unknownProvider.status).toBe(400)
        expect(unknownProvider.json.message).toContain("No provider is named 'filenet'")
      }))

    it.effect("a documentUrl file is fetched by the broker from its URL, beside the provider's files", () =>
      Effect.gen(function*() {
        const mixed = {
          type: "folder",
          name: "mixed",
          parameters: {},
          contents: [
            file("From the web", { documentUrl: `${origin}/web.pdf` }),
            file("Trace", { id: "tracemonkey.pdf" })
          ]
        }
        const created = yield* sendJson("POST", "/registry/folders", mixed)
        expect(created.status).toBe(200)
        const id = created.json.id as string
        expect(yield* pageCount(`${id}/0`)).toBe(3)
        expect(yield* pageCount(`${id}/1`)).toBe(14)
        expect((yield* get(`/documents/${id}@0/pages/0/image`)).contentType).toBe("image/png")

        const missing = yield* sendJson("POST", "/registry/folders", {
          ...mixed,
          contents: [file("Gone", { documentUrl: `${origin}/gone.pdf` })]
        })
        const gone = yield* get(`/documents/${missing.json.id}@0/layout`)
        expect(gone.status).toBe(500)
        expect(gone.json.message).toContain("answered 404")
      }))
  }
)
