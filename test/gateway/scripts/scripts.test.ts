/**
 * Scripts as an admin and a page see them: every endpoint and state of the spec (create with 409 on
 * a name that exists, draft, scan, publish only a certified draft, force-publish, discard, delete),
 * the deployed script as application/javascript with its ETag and 304, 401 while never deployed,
 * the draft's preview, SCRIPT_MAX_BYTES, and tenants kept apart. On PGlite and PostgreSQL.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { gatewayTestLayer } from "../../../src/layers/Test.ts"
import { backends } from "../../support/backends.ts"
import { FakeLlmServer } from "../../support/fake-llm.ts"
import { as, expectErrorBody, json } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"
import { SCANNER, scriptsOf, verdict } from "./client.ts"

for (const backend of backends) {
  const gateway = Layer.provideMerge(
    gatewayTestLayer({ ...backend.config, SCRIPT_SCAN_PROVIDER: SCANNER, SCRIPT_MAX_BYTES: "4096" }),
    FakeLlmServer.layer
  )
  describe(`scripts (${backend.name})`, () => {
    layer(gateway, { timeout: 120_000 })("admin and pages", (it) => {
      it.effect("create, draft, scan, publish, serve with ETag and 304, discard, delete, with every status", () =>
        Effect.gen(function*() {
          const { admin, fake, page, post, read, scripts, served, setDraft } = yield* scriptsOf("lifecycle")
          const created = yield* call(scripts, json(admin, { name: " Banner " }))
          expect(created.status).toBe(201)
          expect(created.json).toMatchObject({
            name: "Banner",
            hasDraft: false,
            draftContent: null,
            deployedContent: null,
            scan: null,
            scanOutcome: null,
            deployedAt: null,
            deployedCertified: null
          })
          const id = created.json.id as string
          expect(id).toMatch(/^[0-9a-f-]{36}$/)

          // 409 on a name the tenant has, whatever its case; 400 on a body that is not a script.
          expectErrorBody(yield* call(scripts, json(admin, { name: "BANNER" })), 409, "CONFLICT")
          expectErrorBody(yield* call(scripts, json(admin, { name: " " })), 400, "BAD_REQUEST")
          expectErrorBody(yield* call(scripts, json(admin, {})), 400, "BAD_REQUEST")

          // Never deployed: pages get 401; there is no draft to preview, scan, publish or discard.
          expectErrorBody(yield* call(`${served}/${id}`, { headers: page }), 401, "UNAUTHORIZED")
          expectErrorBody(yield* call(`${served}/${id}/draft`, { headers: page }), 404, "NOT_FOUND")
          for (const action of ["scan", "publish", "force-publish"] as const) {
            const refused = yield* post(id, action)
            expectErrorBody(refused, 409, "CONFLICT")
            expect(refused.json.message).toContain("no draft")
          }
          expectErrorBody(yield* call(`${scripts}/${id}/draft`, { method: "DELETE", headers: admin }), 409, "CONFLICT")

          // A draft: previewed as JavaScript, not publishable before a scan.
          const v1 = "document.title = 'Welcome' // case SAFE-1\n"
          const drafted = yield* setDraft(id, v1)
          expect(drafted.status).toBe(200)
          expect(drafted.json).toMatchObject({ hasDraft: true, draftContent: v1, scan: null, deployedContent: null })
          expectErrorBody(yield* setDraft(id, 42 as unknown as string), 400, "BAD_REQUEST")
          const preview = yield* call(`${served}/${id}/draft`, { headers: page })
          expect(preview.status).toBe(200)
          expect(preview.contentType).toBe("application/javascript; charset=utf-8")
          expect(preview.headers.get("cache-control")).toBe("no-store")
          expect(preview.text).toBe(v1)
          const unscanned = yield* post(id, "publish")
          expectErrorBody(unscanned, 409, "CONFLICT")
          expect(unscanned.json.message).toContain("scan it first")

          // Scanned: the model, asked once with the script, certifies it; then it can be published.
          fake.scriptWhen("SAFE-1", { text: verdict("SAFE", "only sets the title") })
          const scanned = yield* post(id, "scan")
          expect(scanned.status, scanned.text).toBe(200)
          expect(scanned.json.scan).toMatchObject({
            outcome: "CERTIFIED",
            decidedBy: "llm",
            reasons: ["only sets the title"],
            providerId: SCANNER,
            model: "reviewer"
          })
          expect(scanned.json.scanOutcome).toBe("CERTIFIED")
          const asked = fake.requests.filter((r) => JSON.stringify(r.body).includes("SAFE-1"))
          expect(asked).toHaveLength(1)
          expect(asked[0]!.body.messages[1].content).toContain(v1)

          const published = yield* post(id, "publish")
          expect(published.status).toBe(200)
          expect(published.json).toMatchObject({
            hasDraft: false,
            draftContent: null,
            deployedContent: v1,
            scan: null,
            deployedCertified: true
          })
          expect(published.json.deployedAt).toMatch(/^\d{4}-\d\d-\d\dT/)

          // Served to pages with its ETag; 304 when the page holds it (weakly compared, or *).
          const loaded = yield* call(`${served}/${id}`, { headers: page })
          expect(loaded.status).toBe(200)
          expect(loaded.contentType).toBe("application/javascript; charset=utf-8")
          expect(loaded.headers.get("cache-control")).toBe("no-cache")
          expect(loaded.text).toBe(v1)
          const etag = loaded.headers.get("etag")!
          expect(etag).toMatch(/^"[0-9a-f]{64}"$/)
          for (const held of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
            const again = yield* call(`${served}/${id}`, { headers: { ...page, "if-none-match": held } })
            expect(again.status, held).toBe(304)
            expect(again.bytes.length).toBe(0)
            expect(again.headers.get("etag")).toBe(etag)
          }
          const stale = yield* call(`${served}/${id}`, { headers: { ...page, "if-none-match": "\"other\"" } })
          expect(stale.status).toBe(200)
          expect(stale.text).toBe(v1)

          // A new draft the model rejects: not publishable; the deployed script is untouched.
          const v2 = "document.body.innerHTML = location.hash // case UNSAFE-2\n"
          yield* setDraft(id, v2)
          fake.scriptWhen("UNSAFE-2", { text: verdict("UNSAFE", "writes the URL's fragment into the page as HTML") })
          expect((yield* post(id, "scan")).json.scan).toMatchObject({ outcome: "REJECTED", decidedBy: "llm" })
          const rejected = yield* post(id, "publish")
          expectErrorBody(rejected, 409, "CONFLICT")
          expect(rejected.json.message).toContain("REJECTED")
          expect((yield* call(`${served}/${id}`, { headers: { ...page, "if-none-match": etag } })).status).toBe(304)

          // Discarding the draft drops it and its scan, and keeps what is deployed.
          expect((yield* call(`${scripts}/${id}/draft`, { method: "DELETE", headers: admin })).status).toBe(204)
          expect(yield* read(id)).toMatchObject({
            hasDraft: false,
            draftContent: null,
            scan: null,
            deployedContent: v1
          })
          expectErrorBody(yield* call(`${served}/${id}/draft`, { headers: page }), 404, "NOT_FOUND")

          // The list: summaries by name, without contents.
          const list = yield* call(scripts, { headers: admin })
          expect(list.status).toBe(200)
          expect(list.json).toEqual([{
            id,
            name: "Banner",
            hasDraft: false,
            scanOutcome: null,
            deployedAt: published.json.deployedAt,
            deployedCertified: true,
            createdAt: created.json.createdAt,
            updatedAt: expect.any(String)
          }])

          // Deleted: gone for admins and pages.
          expect((yield* call(`${scripts}/${id}`, { method: "DELETE", headers: admin })).status).toBe(204)
          expectErrorBody(yield* call(`${scripts}/${id}`, { headers: admin }), 404, "NOT_FOUND")
          expectErrorBody(yield* call(`${served}/${id}`, { headers: page }), 404, "NOT_FOUND")
          expectErrorBody(yield* call(`${scripts}/${id}`, { method: "DELETE", headers: admin }), 404, "NOT_FOUND")
        }))

      it.effect("an unknown script is 404 on every endpoint", () =>
        Effect.gen(function*() {
          const { admin, page, post, scripts, served, setDraft } = yield* scriptsOf("unknown", { scanner: false })
          expectErrorBody(yield* call(`${scripts}/nowhere`, { headers: admin }), 404, "NOT_FOUND")
          expectErrorBody(yield* setDraft("nowhere", "1"), 404, "NOT_FOUND")
          for (const action of ["scan", "publish", "force-publish"] as const) {
            expectErrorBody(yield* post("nowhere", action), 404, "NOT_FOUND")
          }
          expectErrorBody(
            yield* call(`${scripts}/nowhere/draft`, { method: "DELETE", headers: admin }),
            404,
            "NOT_FOUND"
          )
          expectErrorBody(yield* call(`${served}/nowhere`, { headers: page }), 404, "NOT_FOUND")
          expectErrorBody(yield* call(`${served}/nowhere/draft`, { headers: page }), 404, "NOT_FOUND")
        }))

      it.effect("force-publish deploys an unscanned draft and says it was not certified; a new content, a new ETag", () =>
        Effect.gen(function*() {
          const { create, fake, page, post, served, setDraft } = yield* scriptsOf("forced")
          const before = fake.requests.length
          const id = yield* create("Tracker", "console.log('one')")
          const forced = yield* post(id, "force-publish")
          expect(forced.status).toBe(200)
          expect(forced.json).toMatchObject({ deployedContent: "console.log('one')", deployedCertified: false })
          const first = yield* call(`${served}/${id}`, { headers: page })
          expect(first.text).toBe("console.log('one')")

          yield* setDraft(id, "console.log('two')")
          yield* post(id, "force-publish")
          const second = yield* call(`${served}/${id}`, {
            headers: { ...page, "if-none-match": first.headers.get("etag")! }
          })
          expect(second.status).toBe(200)
          expect(second.text).toBe("console.log('two')")
          expect(second.headers.get("etag")).not.toBe(first.headers.get("etag"))
          // No scan was run.
          expect(fake.requests.length).toBe(before)
        }))

      it.effect("a draft over SCRIPT_MAX_BYTES is refused and the earlier draft kept", () =>
        Effect.gen(function*() {
          const { create, read, setDraft } = yield* scriptsOf("large", { scanner: false })
          const id = yield* create("Large", "let a = 1")
          const refused = yield* setDraft(id, `// ${"é".repeat(2100)}`)
          expectErrorBody(refused, 400, "BAD_REQUEST")
          expect(refused.json.message).toContain("SCRIPT_MAX_BYTES")
          expect((yield* read(id)).draftContent).toBe("let a = 1")
          expect((yield* setDraft(id, "x".repeat(4096))).status).toBe(200)
        }))

      it.effect("tenants are apart: another tenant's script is not found, its names are its own", () =>
        Effect.gen(function*() {
          const { create, post, served } = yield* scriptsOf("tenant-a", { scanner: false })
          const id = yield* create("Shared name", "void 0")
          yield* post(id, "force-publish")
          const other = yield* scriptsOf("tenant-b", { scanner: false })
          expectErrorBody(yield* call(`${other.scripts}/${id}`, { headers: other.admin }), 404, "NOT_FOUND")
          expectErrorBody(yield* other.post(id, "publish"), 404, "NOT_FOUND")
          expectErrorBody(yield* call(`${served}/${id}`, { headers: as("tenant-b", "bob") }), 404, "NOT_FOUND")
          expect((yield* call(other.scripts, json(other.admin, { name: "Shared name" }))).status).toBe(201)
          // A page of the tenant still loads it.
          expect((yield* call(`${served}/${id}`, { headers: as("tenant-a", "bob") })).status).toBe(200)
        }))

      it.effect("the OpenAPI description has the script and temporary-file endpoints, their 304 and 422, and the identity", () =>
        Effect.gen(function*() {
          const { base } = yield* scriptsOf("openapi", { scanner: false })
          const api = (yield* call(`${base}/v3/api-docs`)).json
          expect(Object.keys(api.paths["/api/v1/scripts/{id}"].get.responses)).toEqual(
            expect.arrayContaining(["200", "304", "401", "404"])
          )
          expect(Object.keys(api.paths["/api/v1/admin/scripts/{id}/scan"].post.responses)).toContain("422")
          expect(api.paths["/temp-files/{fileKey}"].get.security).toContainEqual({ tenant: [], user: [] })
        }))

      it.effect("creates racing for one name: one 201, the others 409", () =>
        Effect.gen(function*() {
          const { admin, scripts } = yield* scriptsOf("racing", { scanner: false })
          const replies = yield* Effect.all(
            Array.from({ length: 6 }, () => call(scripts, json(admin, { name: "Same" }))),
            { concurrency: "unbounded" }
          )
          expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409])
        }))
    })
  })
}
