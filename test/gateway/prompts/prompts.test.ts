/**
 * Prompts as a client sees them: the version lifecycle with every 409 of the spec's state table,
 * rendering (active, a chosen version, variables from a GET body or the query, syntax errors),
 * deletion and usage, categories, statistics, the user views that never show a template, the
 * templating completion, and tenant isolation.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as http from "node:http"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { CurrentPrincipal, Principal } from "../../../src/schemas/gateway/Tenancy.ts"
import { Prompts } from "../../../src/services/gateway/prompts/Prompts.ts"
import { preciseNow, RequestRecorder } from "../../../src/services/gateway/records/RequestRecorder.ts"
import { defaultBackend } from "../../support/backends.ts"
import { as, expectErrorBody, json } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"

/** A GET with a JSON body (fetch refuses to send one). */
const getWithBody = (url: string, headers: Record<string, string>, body: unknown) =>
  Effect.async<{ status: number; json: any }>((resume) => {
    const payload = Buffer.from(JSON.stringify(body))
    const request = http.request(url, {
      method: "GET",
      headers: { ...headers, "content-type": "application/json", "content-length": payload.length }
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on(
        "end",
        () =>
          resume(
            Effect.succeed({
              status: response.statusCode ?? 0,
              json: JSON.parse(Buffer.concat(chunks).toString("utf8"))
            })
          )
      )
    })
    request.on("error", (error) => resume(Effect.die(error)))
    request.end(payload)
  })

const SECRET_TEMPLATE = "Summarise for {{user.id}}: {{upper topic}} in {{default payload.language \"English\"}}."

describe("gateway prompts", () => {
  layer(gatewayTestLayer(defaultBackend.config), { timeout: 120_000 })("admin and user", (it) => {
    it.effect("version lifecycle: v0 published, one draft, edit, publish archives the previous, every 409", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const admin = as("acme", "alice")
        const prompts = `${base}/api/v1/admin/prompts`

        const created = yield* call(
          prompts,
          json(admin, {
            id: "summary",
            name: "Summary",
            category: "Writing",
            template: "v0 {{topic}}",
            llm: { model: "gpt-4o-mini", temperature: 0.2 }
          })
        )
        expect(created.status).toBe(201)
        expect(created.json).toMatchObject({
          id: "summary",
          base: false,
          name: "Summary",
          category: "Writing",
          activeVersion: 0,
          draftVersion: null
        })
        expect(created.json.versions).toHaveLength(1)
        expect(created.json.versions[0]).toMatchObject({
          version: 0,
          draft: false,
          state: "published",
          template: "v0 {{topic}}",
          llm: { model: "gpt-4o-mini", temperature: 0.2 }
        })
        expect(created.json.versions[0].publishedAt).toMatch(/^\d{4}-\d\d-\d\dT/)
        expectErrorBody(yield* call(prompts, json(admin, { id: "summary", template: "again" })), 409, "CONFLICT")

        // A draft: the next number, content copied from the active version except what the body gives.
        const draft = yield* call(`${prompts}/summary/versions`, json(admin, { template: "v1 {{topic}}" }))
        expect(draft.status).toBe(201)
        expect(draft.json).toMatchObject({
          version: 1,
          draft: true,
          state: "draft",
          template: "v1 {{topic}}",
          name: "Summary",
          llm: { model: "gpt-4o-mini" },
          publishedAt: null
        })
        expectErrorBody(yield* call(`${prompts}/summary/versions`, json(admin, {})), 409, "CONFLICT")

        // Edit the draft; a published version cannot be edited, published or discarded.
        const edited = yield* call(
          `${prompts}/summary/versions/1`,
          json(admin, { draft: true, template: "v1 edited {{topic}}", category: "Docs" }, "PUT")
        )
        expect(edited.status).toBe(200)
        expect(edited.json).toMatchObject({
          version: 1,
          draft: true,
          template: "v1 edited {{topic}}",
          category: "Docs"
        })
        expectErrorBody(
          yield* call(`${prompts}/summary/versions/0`, json(admin, { draft: true, template: "x" }, "PUT")),
          409,
          "CONFLICT"
        )
        expectErrorBody(
          yield* call(`${prompts}/summary/versions/0`, json(admin, { draft: false }, "PUT")),
          409,
          "CONFLICT"
        )
        expectErrorBody(
          yield* call(`${prompts}/summary/versions/0`, { method: "DELETE", headers: admin }),
          409,
          "CONFLICT"
        )
        expectErrorBody(
          yield* call(`${prompts}/summary/versions/7`, json(admin, { draft: true }, "PUT")),
          404,
          "NOT_FOUND"
        )
        expect((yield* call(`${prompts}/summary`, { headers: admin })).json).toMatchObject({
          activeVersion: 0,
          draftVersion: 1,
          category: "Writing"
        })

        // Render: the active version by default, the draft when asked for.
        expect(
          (yield* call(`${prompts}/summary/render?variables=${encodeURIComponent(JSON.stringify({ topic: "tax" }))}`, {
            headers: admin
          })).json
        )
          .toEqual({ promptId: "summary", version: 0, text: "v0 tax" })
        expect((yield* getWithBody(`${prompts}/summary/render?version=1`, admin, { topic: "tax" })).json).toEqual({
          promptId: "summary",
          version: 1,
          text: "v1 edited tax"
        })

        // Publish: v1 published, v0 archived; no draft left.
        const published = yield* call(`${prompts}/summary/versions/1`, json(admin, { draft: false }, "PUT"))
        expect(published.status).toBe(200)
        expect(published.json).toMatchObject({ version: 1, draft: false, state: "published" })
        const versions = (yield* call(`${prompts}/summary/versions`, { headers: admin })).json
        expect(versions.map((v: { version: number; state: string }) => [v.version, v.state])).toEqual([
          [0, "archived"],
          [1, "published"]
        ])
        expect((yield* call(`${prompts}/summary`, { headers: admin })).json).toMatchObject({
          activeVersion: 1,
          draftVersion: null,
          category: "Docs"
        })
        expect((yield* call(`${prompts}/summary/versions/0`, { headers: admin })).json).toMatchObject({
          version: 0,
          state: "archived",
          template: "v0 {{topic}}"
        })

        // An archived version is read-only too.
        expectErrorBody(
          yield* call(`${prompts}/summary/versions/0`, json(admin, { draft: true, template: "x" }, "PUT")),
          409,
          "CONFLICT"
        )
        expectErrorBody(
          yield* call(`${prompts}/summary/versions/0`, json(admin, { draft: false }, "PUT")),
          409,
          "CONFLICT"
        )
        expectErrorBody(
          yield* call(`${prompts}/summary/versions/0`, { method: "DELETE", headers: admin }),
          409,
          "CONFLICT"
        )
        expectErrorBody(
          yield* call(`${prompts}/summary/versions/1`, { method: "DELETE", headers: admin }),
          409,
          "CONFLICT"
        )

        // Discard a draft: 204, the published versions kept; its number is given to the next draft.
        expect((yield* call(`${prompts}/summary/versions`, json(admin, {}))).json).toMatchObject({
          version: 2,
          template: "v1 edited {{topic}}"
        })
        expect((yield* call(`${prompts}/summary/versions/2`, { method: "DELETE", headers: admin })).status).toBe(204)
        expectErrorBody(yield* call(`${prompts}/summary/versions/2`, { headers: admin }), 404, "NOT_FOUND")
        expect((yield* call(`${prompts}/summary/versions`, { headers: admin })).json).toHaveLength(2)
        expect((yield* call(`${prompts}/summary/versions`, json(admin, {}))).json.version).toBe(2)
        expect(
          (yield* call(`${prompts}/summary/versions/2`, json(admin, { draft: false, template: "v2" }, "PUT"))).json
            .state
        ).toBe("published")
        expect(
          (yield* call(`${prompts}/summary/versions`, { headers: admin })).json.map((v: { state: string }) => v.state)
        ).toEqual(["archived", "archived", "published"])
      }))

    it.effect("rendering: helpers and context, unknown variables empty, syntax errors 400 with their position, no prototype access", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const admin = as("acme", "alice")
        const prompts = `${base}/api/v1/admin/prompts`
        expect((yield* call(prompts, json(admin, { id: "render-me", template: SECRET_TEMPLATE }))).status).toBe(201)
        expect((yield* getWithBody(`${prompts}/render-me/render`, admin, { topic: "<b>taxes</b>" })).json.text).toBe(
          "Summarise for alice: <B>TAXES</B> in English."
        )
        expect((yield* call(`${prompts}/render-me/render`, { headers: admin })).json.text).toBe(
          "Summarise for alice:  in English."
        )
        expect(
          (yield* call(
            prompts,
            json(admin, {
              id: "ctx",
              template:
                "{{tenant.id}}|{{nothing.here}}|{{json payload}}|{{lower \"AB\"}}|{{constructor}}{{payload.__proto__}}|{{date \"2024-03-05T10:00:00Z\" \"date\"}}"
            })
          )).status
        ).toBe(201)
        expect((yield* getWithBody(`${prompts}/ctx/render`, admin, { a: 1 })).json.text).toBe(
          "acme||{\"a\":1}|ab||2024-03-05"
        )

        // A syntax error is refused when written, with its line.
        const broken = yield* call(prompts, json(admin, { id: "broken", template: "Hello\n{{#if x}}unclosed" }))
        expectErrorBody(broken, 400, "BAD_REQUEST")
        expect(broken.json.message).toMatch(/line 2/)
        expectErrorBody(
          yield* call(`${prompts}/render-me/versions`, json(admin, { template: "{{/nope}}" })),
          400,
          "BAD_REQUEST"
        )
        // An error at rendering (an unknown helper) is a 400 too.
        expect((yield* call(prompts, json(admin, { id: "helperless", template: "{{shout topic}}" }))).status).toBe(201)
        expectErrorBody(yield* call(`${prompts}/helperless/render`, { headers: admin }), 400, "BAD_REQUEST")
        // Variables that are not a JSON object.
        expectErrorBody(
          yield* call(`${prompts}/render-me/render?variables=%5B1%5D`, { headers: admin }),
          400,
          "BAD_REQUEST"
        )
        expectErrorBody(
          yield* call(`${prompts}/render-me/render?variables=nope`, { headers: admin }),
          400,
          "BAD_REQUEST"
        )
        expectErrorBody(yield* call(`${prompts}/render-me/render?version=9`, { headers: admin }), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${prompts}/absent/render`, { headers: admin }), 404, "NOT_FOUND")

        const completion = (yield* call(`${base}/api/v1/admin/templating/completion`, { headers: admin })).json
        expect(completion.engine).toBe("handlebars")
        expect(completion.helpers.map((h: { name: string }) => h.name)).toEqual(
          expect.arrayContaining(["if", "each", "upper", "lower", "date", "json", "default"])
        )
        expect(completion.variables.map((v: { name: string }) => v.name)).toEqual(
          expect.arrayContaining(["user.id", "tenant.id", "now", "payload.*"])
        )
      }))

    it.effect("delete, usage, categories, statistics; the user views never show a template or LLM settings", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const admin = as("initech", "alice")
        const prompts = `${base}/api/v1/admin/prompts`
        expect(
          (yield* call(
            prompts,
            json(admin, {
              id: "base-one",
              base: true,
              category: "System",
              template: SECRET_TEMPLATE,
              llm: { providerId: "secret-provider" }
            })
          )).status
        ).toBe(201)
        expect(
          (yield* call(
            prompts,
            json(admin, {
              id: "quick",
              name: "Quick",
              description: "Shortens a text",
              category: "Writing",
              quickPrompt: { enabled: true, label: "Shorten", icon: "scissors", order: 2 },
              template: SECRET_TEMPLATE,
              llm: { model: "secret-model" }
            })
          )).status
        ).toBe(201)
        expect(
          (yield* call(
            prompts,
            json(admin, {
              id: "hidden",
              category: "Writing",
              quickPrompt: { enabled: false, label: "Hidden" },
              template: "x"
            })
          )).status
        ).toBe(201)
        expect((yield* call(prompts, json(admin, { id: "plain", template: "y" }))).status).toBe(201)

        expect((yield* call(`${prompts}/categories`, { headers: admin })).json).toEqual(["System", "Writing"])
        expect((yield* call(prompts, { headers: admin })).json.map((p: { id: string }) => p.id)).toEqual([
          "base-one",
          "hidden",
          "plain",
          "quick"
        ])

        // Usage and delete: a base prompt is kept (409), another one goes (204).
        expect((yield* call(`${prompts}/base-one/usage`, { headers: admin })).json).toEqual({
          promptId: "base-one",
          deletable: false,
          reasons: ["It is a base prompt"],
          applications: []
        })
        expect((yield* call(`${prompts}/plain/usage`, { headers: admin })).json).toEqual({
          promptId: "plain",
          deletable: true,
          reasons: [],
          applications: []
        })
        expectErrorBody(yield* call(`${prompts}/base-one`, { method: "DELETE", headers: admin }), 409, "CONFLICT")
        expect((yield* call(`${prompts}/plain`, { method: "DELETE", headers: admin })).status).toBe(204)
        expectErrorBody(yield* call(`${prompts}/plain`, { headers: admin }), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${prompts}/plain`, { method: "DELETE", headers: admin }), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${prompts}/plain/usage`, { headers: admin }), 404, "NOT_FOUND")

        // Statistics: zeros until requests use the prompt, then per version.
        expect((yield* call(`${prompts}/quick/statistics`, { headers: admin })).json).toEqual({
          promptId: "quick",
          uses: 0,
          lastUsedAt: null,
          versions: [{ promptId: "quick", version: 0, uses: 0, lastUsedAt: null }]
        })
        const service = yield* Prompts
        // Uses as the request pipeline records them: behind the answer, counted by the next read.
        const recorder = yield* RequestRecorder
        yield* recorder.promptUsed("initech", "quick", 0, preciseNow())
        yield* recorder.promptUsed("initech", "quick", 0, preciseNow())
        const stats = (yield* call(`${prompts}/quick/statistics`, { headers: admin })).json
        expect(stats).toMatchObject({ uses: 2, versions: [{ version: 0, uses: 2 }] })
        expect(stats.lastUsedAt).toMatch(/^\d{4}-/)
        expect((yield* call(`${prompts}/quick/versions/0/statistics`, { headers: admin })).json).toMatchObject({
          promptId: "quick",
          version: 0,
          uses: 2
        })
        expectErrorBody(yield* call(`${prompts}/quick/versions/3/statistics`, { headers: admin }), 404, "NOT_FOUND")

        // The request pipeline's entry, for the principal of the request it serves.
        const u1 = new Principal({ tenantId: "initech", userId: "u1", roles: [], isAdmin: false })
        const rendered = yield* service.renderForRequest("quick", undefined, { topic: "x" }).pipe(
          Effect.provideService(CurrentPrincipal, u1)
        )
        expect(rendered).toMatchObject({
          version: 0,
          text: "Summarise for u1: X in English.",
          llm: { model: "secret-model" }
        })
        const missing = yield* service.renderForRequest("nope", undefined, {}).pipe(
          Effect.provideService(CurrentPrincipal, u1),
          Effect.flip
        )
        expect(missing._tag).toBe("NOT_FOUND")

        // User views: a user (no admin role needed) sees names, never templates or LLM settings.
        const user = as("initech", "bob")
        const available = yield* call(`${base}/api/v1/prompts`, { headers: user })
        expect(available.status).toBe(200)
        expect(available.json.map((p: { id: string }) => p.id)).toEqual(["base-one", "hidden", "quick"])
        expect(available.json[2]).toEqual({
          id: "quick",
          name: "Quick",
          description: "Shortens a text",
          category: "Writing",
          activeVersion: 0
        })
        const display = yield* call(`${base}/api/v1/prompts/display`, { headers: user })
        expect(display.json).toEqual([{
          id: "quick",
          label: "Shorten",
          icon: "scissors",
          order: 2,
          category: "Writing",
          description: "Shortens a text"
        }])
        for (const reply of [available, display]) {
          expect(reply.text).not.toContain("Summarise for")
          expect(reply.text).not.toContain("secret-model")
          expect(reply.text).not.toContain("secret-provider")
        }
      }))

    it.effect("one tenant never sees another's prompts", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const prompts = `${base}/api/v1/admin/prompts`
        const a = as("tenant-a", "alice")
        const b = as("tenant-b", "bob")
        expect(
          (yield* call(
            prompts,
            json(a, {
              id: "mine",
              category: "A",
              quickPrompt: { enabled: true, label: "Mine" },
              template: "secret of A"
            })
          )).status
        ).toBe(201)
        expect((yield* call(prompts, { headers: b })).json).toEqual([])
        expect((yield* call(`${prompts}/categories`, { headers: b })).json).toEqual([])
        expect((yield* call(`${base}/api/v1/prompts`, { headers: b })).json).toEqual([])
        expect((yield* call(`${base}/api/v1/prompts/display`, { headers: b })).json).toEqual([])
        for (
          const path of ["mine", "mine/versions", "mine/versions/0", "mine/usage", "mine/statistics", "mine/render"]
        ) {
          expectErrorBody(yield* call(`${prompts}/${path}`, { headers: b }), 404, "NOT_FOUND")
        }
        expectErrorBody(yield* call(`${prompts}/mine/versions`, json(b, {})), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${prompts}/mine/versions/0`, json(b, { draft: false }, "PUT")), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${prompts}/mine`, { method: "DELETE", headers: b }), 404, "NOT_FOUND")
        // The same ID is free in tenant B, and A's prompt is untouched.
        expect((yield* call(prompts, json(b, { id: "mine", template: "B's own" }))).status).toBe(201)
        expect((yield* call(`${prompts}/mine`, { headers: a })).json.versions[0].template).toBe("secret of A")
      }))

    it.effect("bad input is BAD_REQUEST, unauthenticated calls MISSING_TENANT", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const admin = as("acme", "alice")
        const prompts = `${base}/api/v1/admin/prompts`
        expectErrorBody(yield* call(prompts, json(admin, { id: "no template" })), 400, "BAD_REQUEST")
        expectErrorBody(
          yield* call(prompts, json(admin, { id: "x", template: "t", llm: { temperature: 9 } })),
          400,
          "BAD_REQUEST"
        )
        expectErrorBody(yield* call(`${prompts}/summary/versions/abc`, { headers: admin }), 400, "BAD_REQUEST")
        expectErrorBody(yield* call(prompts), 400, "MISSING_TENANT")
        expectErrorBody(yield* call(`${base}/api/v1/prompts/display`), 400, "MISSING_TENANT")
      }))
  })
})
