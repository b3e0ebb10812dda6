/**
 * Application configurations as a client sees them: every endpoint and status of the spec (201,
 * 200, 204; 400 on an invalid body, a name that exists or a prompt that does not; 404 unknown),
 * the 409 on deleting a prompt an Application lists (and its usage), and tenant isolation.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { as, expectErrorBody, json } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"

describe("gateway applications", () => {
  layer(gatewayTestLayer(defaultBackend.config), { timeout: 120_000 })("admin", (it) => {
    it.effect("create, read, list, update, delete, with every status", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const admin = as("acme", "alice")
        const conf = `${base}/api/v1/admin/application/application-conf`
        const prompts = `${base}/api/v1/admin/prompts`
        for (const id of ["summary", "translate"]) {
          expect((yield* call(prompts, json(admin, { id, template: `${id} {{text}}` }))).status).toBe(201)
        }

        const created = yield* call(
          conf,
          json(admin, {
            name: " Writing desk ",
            description: "Helps with letters",
            prompts: ["summary", "translate"],
            llm: { model: "gpt-4o-mini" },
            settings: { theme: "dark" }
          })
        )
        expect(created.status).toBe(201)
        expect(created.json).toMatchObject({
          name: "Writing desk",
          description: "Helps with letters",
          prompts: ["summary", "translate"],
          llm: { model: "gpt-4o-mini" },
          enabled: true,
          settings: { theme: "dark" }
        })
        expect(created.json.id).toMatch(/^[0-9a-f-]{36}$/)
        expect(created.json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/)
        const id = created.json.id as string

        const read = yield* call(`${conf}/${id}`, { headers: admin })
        expect(read.status).toBe(200)
        expect(read.json).toEqual(created.json)

        // 400: a name that exists (whatever its case), an invalid body, a prompt that does not exist.
        expectErrorBody(yield* call(conf, json(admin, { name: "WRITING DESK" })), 400, "BAD_REQUEST")
        expectErrorBody(yield* call(conf, json(admin, { name: "" })), 400, "BAD_REQUEST")
        expectErrorBody(yield* call(conf, json(admin, { description: "no name" })), 400, "BAD_REQUEST")
        expectErrorBody(yield* call(conf, json(admin, { name: "x", prompts: "summary" })), 400, "BAD_REQUEST")
        expectErrorBody(
          yield* call(conf, json(admin, { name: "x", prompts: ["summary", "summary"] })),
          400,
          "BAD_REQUEST"
        )
        const missing = yield* call(conf, json(admin, { name: "x", prompts: ["nowhere"] }))
        expectErrorBody(missing, 400, "BAD_REQUEST")
        expect(missing.json.message).toContain("nowhere")
        expectErrorBody(yield* call(conf, { method: "POST", headers: admin, body: "{" }), 400, "BAD_REQUEST")

        const other = yield* call(conf, json(admin, { name: "Another", enabled: false }))
        expect(other.status).toBe(201)
        expect(other.json).toMatchObject({ prompts: [], llm: {}, enabled: false, description: null, settings: {} })

        // The list, by name.
        const list = yield* call(conf, { headers: admin })
        expect(list.status).toBe(200)
        expect(list.json.map((a: { name: string }) => a.name)).toEqual(["Another", "Writing desk"])

        // Update: the fields given replace those stored, null clears; its own name is no clash.
        const updated = yield* call(
          `${conf}/${id}`,
          json(admin, { name: "writing desk", prompts: ["translate"], description: null }, "PUT")
        )
        expect(updated.status).toBe(200)
        expect(updated.json).toMatchObject({
          id,
          name: "writing desk",
          prompts: ["translate"],
          description: null,
          llm: { model: "gpt-4o-mini" },
          settings: { theme: "dark" }
        })
        expectErrorBody(yield* call(`${conf}/${id}`, json(admin, { name: "another" }, "PUT")), 400, "BAD_REQUEST")
        expectErrorBody(
          yield* call(`${conf}/${id}`, json(admin, { prompts: ["nowhere"] }, "PUT")),
          400,
          "BAD_REQUEST"
        )
        expectErrorBody(yield* call(`${conf}/${id}`, json(admin, { enabled: "yes" }, "PUT")), 400, "BAD_REQUEST")

        // 404: unknown everywhere.
        expectErrorBody(yield* call(`${conf}/unknown`, { headers: admin }), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${conf}/unknown`, json(admin, { name: "y" }, "PUT")), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${conf}/unknown`, { method: "DELETE", headers: admin }), 404, "NOT_FOUND")

        // A prompt an Application lists cannot be deleted (409), and its usage says by whom.
        expect((yield* call(`${prompts}/translate/usage`, { headers: admin })).json).toMatchObject({
          deletable: false,
          applications: [{ id, name: "writing desk" }]
        })
        const refused = yield* call(`${prompts}/translate`, { method: "DELETE", headers: admin })
        expectErrorBody(refused, 409, "CONFLICT")
        expect(refused.json.message).toContain("writing desk")
        // No longer listed: deletable again.
        expect((yield* call(`${prompts}/summary/usage`, { headers: admin })).json).toMatchObject({
          deletable: true,
          applications: []
        })
        expect((yield* call(`${prompts}/summary`, { method: "DELETE", headers: admin })).status).toBe(204)

        // Delete: 204, then gone; its prompts free again.
        expect((yield* call(`${conf}/${id}`, { method: "DELETE", headers: admin })).status).toBe(204)
        expectErrorBody(yield* call(`${conf}/${id}`, { headers: admin }), 404, "NOT_FOUND")
        expect((yield* call(`${prompts}/translate`, { method: "DELETE", headers: admin })).status).toBe(204)
        // Its name is free again.
        expect((yield* call(conf, json(admin, { name: "Writing desk" }))).status).toBe(201)
      }))

    it.effect("one tenant never sees another's Applications; names are per tenant", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const conf = `${base}/api/v1/admin/application/application-conf`
        const a = as("tenant-a", "alice")
        const b = as("tenant-b", "bob")
        const mine = yield* call(conf, json(a, { name: "Shared name" }))
        expect(mine.status).toBe(201)
        expectErrorBody(yield* call(`${conf}/${mine.json.id}`, { headers: b }), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${conf}/${mine.json.id}`, json(b, { name: "z" }, "PUT")), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${conf}/${mine.json.id}`, { method: "DELETE", headers: b }), 404, "NOT_FOUND")
        expect((yield* call(conf, { headers: b })).json).toEqual([])
        expect((yield* call(conf, json(b, { name: "Shared name" }))).status).toBe(201)
        // B cannot list A's prompts either.
        expect((yield* call(`${base}/api/v1/admin/prompts`, json(a, { id: "only-a", template: "t" }))).status).toBe(201)
        expectErrorBody(yield* call(conf, json(b, { name: "w", prompts: ["only-a"] })), 400, "BAD_REQUEST")
        expect((yield* call(`${conf}/${mine.json.id}`, { headers: a })).json.name).toBe("Shared name")
      }))

    it.effect("creates racing for one name: one 201, the others 400, never a 500", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const admin = as("racing", "alice")
        const conf = `${base}/api/v1/admin/application/application-conf`
        const agents = `${base}/api/v1/admin/agent/agent-conf`
        const plans = `${base}/api/v1/admin/plans`
        const race = (url: string, body: object) =>
          Effect.all(Array.from({ length: 6 }, () => call(url, json(admin, body))), { concurrency: "unbounded" })
        const bodies: ReadonlyArray<readonly [string, object]> = [
          [conf, { name: "Same name" }],
          [agents, { title: "Same title", instructions: "Help." }],
          [plans, { title: "Same title", nodes: [{ id: "a", type: "LLM", template: "Hello" }] }]
        ]
        for (const [url, body] of bodies) {
          const statuses = (yield* race(url, body)).map((response) => response.status).sort()
          expect(statuses).toEqual([201, 400, 400, 400, 400, 400])
        }
      }))
  })
})
