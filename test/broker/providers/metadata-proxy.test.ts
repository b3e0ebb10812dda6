/**
 * POST /documents/{id}/metadata through the broker against the reference provider over loopback:
 * the properties reach the provider, which keeps them on disk beside the file (read back here),
 * for a provider file and for a provider folder's file; a document with no provider, and the
 * provider's 404 and 403. And the other way: GET /documents/{id} names a document's provider.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { copyFileSync, readFileSync, rmSync } from "node:fs"
import * as path from "node:path"
import { BrokerUrl } from "../../../src/layers/Test.ts"
import { CORPUS, defaultBackend } from "../../support/backends.ts"
import { corpusFile, uploadOk } from "../../support/http.ts"
import { get, makeProviderRoot, openOk, providerAndBroker, sendJson } from "./support.ts"

const root = makeProviderRoot()

/** What the provider keeps for a file: its metadata file beside it. */
const stored = (file: string) =>
  JSON.parse(readFileSync(path.join(root, path.dirname(file), ".metadata", `${path.basename(file)}.json`), "utf8"))

const providers = { filesystem: {}, archive: {} }

layer(providerAndBroker(root, defaultBackend.config, providers), { timeout: 300_000 })("metadata proxy", (it) => {
  it.effect("GET /documents/{id} names the provider of a document and of its parts; an upload has none", () =>
    Effect.gen(function*() {
      const providerOf = (id: string) =>
        get(`/documents/${id}`).pipe(Effect.map((reply) => JSON.parse(reply.json.documentMetadata).provider))
      const file = yield* openOk({ id: "tracemonkey.pdf" }, { provider: "archive" })
      expect(yield* providerOf(file)).toBe("archive")
      const folder = yield* openOk({ id: "case-42" }, { contentType: "application/json" })
      // The folder, a file of it, a subfolder and an attachment inside its email.
      for (const part of [folder, `${folder}@0`, `${folder}@2`, `${folder}@4`, `${folder}@4@1`]) {
        expect(yield* providerOf(part), part).toBe("filesystem")
      }
      const tree = {
        type: "folder",
        name: "View",
        parameters: {},
        contents: [{ type: "file", name: "Contract", parameters: { id: "case-42/1 contract.pdf" } }]
      }
      const built = (yield* sendJson("POST", "/registry/folders?documentId=metadata-view", tree)).json.id
      expect(yield* providerOf(built)).toBe("filesystem")
      expect(yield* providerOf(`${built}@0`)).toBe("filesystem")

      const uploaded = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/basicapi.pdf"))
      expect(yield* providerOf(uploaded)).toBeUndefined()
    }))

  it.effect("a provider file's metadata: sent to its provider, merged, stored there", () =>
    Effect.gen(function*() {
      const id = yield* openOk({ id: "tracemonkey.pdf" })
      const first = yield* sendJson("POST", `/documents/${id}/metadata`, { status: "review", pages: 14 })
      expect(first.status).toBe(200)
      expect(first.json).toEqual({ status: "review", pages: 14 })
      const second = yield* sendJson("POST", `/documents/${id}/metadata`, { status: null, approved: true })
      expect(second.json).toEqual({ pages: 14, approved: true })
      expect(stored("tracemonkey.pdf")).toEqual({ pages: 14, approved: true })

      const bad = yield* sendJson("POST", `/documents/${id}/metadata`, { nested: { a: 1 } })
      expect(bad.status).toBe(400)
    }))

  it.effect("a provider folder's file: sent with that file's own parameters", () =>
    Effect.gen(function*() {
      const folder = yield* openOk({ id: "case-42" }, { contentType: "application/json" })
      const reply = yield* sendJson("POST", `/documents/${folder}@3/metadata`, { subject: "Reply" })
      expect(reply.status).toBe(200)
      expect(stored("case-42/letters/reply.pdf")).toEqual({ subject: "Reply" })

      // The folder itself, a subfolder and an attachment inside a file are no provider's files.
      for (const part of [folder, `${folder}@2`, `${folder}@4@0`]) {
        const none = yield* sendJson("POST", `/documents/${part}/metadata`, { a: 1 })
        expect(none.status, part).toBe(404)
        expect(none.json._tag, part).toBe("DocumentHasNoProvider")
      }
    }))

  it.effect("no provider: 404 saying so; the provider's 404 and 403 passed on", () =>
    Effect.gen(function*() {
      const uploaded = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/basicapi.pdf"))
      const none = yield* sendJson("POST", `/documents/${uploaded}/metadata`, { a: 1 })
      expect(none.status).toBe(404)
      expect(none.json._tag).toBe("DocumentHasNoProvider")
      expect(none.json.message).toContain("has no provider")
      const unknown = yield* sendJson("POST", "/documents/no-such-document/metadata", { a: 1 })
      expect(unknown.status).toBe(404)
      expect(unknown.json._tag).toBe("DocumentNotFound")

      const file = path.join(root, "leaving.pdf")
      copyFileSync(`${CORPUS}pdf/basicapi.pdf`, file)
      const leaving = yield* openOk({ id: "leaving.pdf" })
      rmSync(file)
      const gone = yield* sendJson("POST", `/documents/${leaving}/metadata`, { a: 1 })
      expect(gone.status).toBe(404)
      expect(gone.json._tag).toBe("ProviderDocumentNotFound")

      const plan = yield* openOk({ id: "private/plan.pdf", user: "alice" })
      const refused = yield* sendJson("POST", `/documents/${plan}/metadata?user=mallory`, { a: 1 })
      expect(refused.status).toBe(403)
      expect(refused.json._tag).toBe("ProviderAccessDenied")
      expect((yield* sendJson("POST", `/documents/${plan}/metadata`, { a: 1 })).status).toBe(200)
    }))
})
