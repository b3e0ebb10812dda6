/**
 * Agent configurations as a client sees them: every endpoint and status of the spec (201, 200,
 * 204; 400 on an invalid body, a title that exists or instructions that are no template; 404
 * unknown), and tenant isolation.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { as, expectErrorBody, json } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"

describe("gateway agents", () => {
  layer(gatewayTestLayer(defaultBackend.config), { timeout: 120_000 })("admin", (it) => {
    it.effect("create, read, list, update, delete, with every status", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const admin = as("acme", "alice")
        const conf = `${base}/api/v1/admin/agent/agent-conf`
        // The tools an agent names exist: a native tool, and a tool of an MCP server of the tenant.
        const wiki = yield* call(
          `${base}/api/v1/admin/mcp/mcp-conf`,
          json(admin, { id: "wiki", url: "http://127.0.0.1:9/mcp" })
        )
        expect(wiki.status).toBe(201)

        const created = yield* call(
          conf,
          json(admin, {
            title: "Researcher",
            description: "Finds sources",
            instructions: "Find sources about {{input.topic}}.",
            llm: { model: "gpt-4o", temperature: 0 },
            tools: ["document_search", "mcp:wiki/lookup"],
            maxToolCycles: 8
          })
        )
        expect(created.status).toBe(201)
        expect(created.json).toMatchObject({
          title: "Researcher",
          description: "Finds sources",
          instructions: "Find sources about {{input.topic}}.",
          llm: { model: "gpt-4o", temperature: 0 },
          tools: ["document_search", "mcp:wiki/lookup"],
          maxToolCycles: 8
        })
        expect(created.json.id).toMatch(/^[0-9a-f-]{36}$/)
        const id = created.json.id as string

        const read = yield* call(`${conf}/${id}`, { headers: admin })
        expect(read.status).toBe(200)
        expect(read.json).toEqual(created.json)

        // 400: a title that exists (whatever its case), invalid bodies, instructions that do not parse.
        expectErrorBody(yield* call(conf, json(admin, { title: "researcher", instructions: "x" })), 400, "BAD_REQUEST")
        expectErrorBody(yield* call(conf, json(admin, { title: "No instructions" })), 400, "BAD_REQUEST")
        expectErrorBody(yield* call(conf, json(admin, { title: "  ", instructions: "x" })), 400, "BAD_REQUEST")
        expectErrorBody(
          yield* call(conf, json(admin, { title: "Loops", instructions: "x", maxToolCycles: 0 })),
          400,
          "BAD_REQUEST"
        )
        expectErrorBody(
          yield* call(conf, json(admin, { title: "Twice", instructions: "x", tools: ["a", "a"] })),
          400,
          "BAD_REQUEST"
        )
        const broken = yield* call(conf, json(admin, { title: "Broken", instructions: "{{#if x}}never closed" }))
        expectErrorBody(broken, 400, "BAD_REQUEST")
        expect(broken.json.message).toContain("instructions")

        const other = yield* call(conf, json(admin, { title: "Writer", instructions: "Write." }))
        expect(other.status).toBe(201)
        expect(other.json).toMatchObject({ description: null, llm: {}, tools: [], maxToolCycles: null })

        const list = yield* call(conf, { headers: admin })
        expect(list.status).toBe(200)
        expect(list.json.map((a: { title: string }) => a.title)).toEqual(["Researcher", "Writer"])

        // Update: the fields given replace those stored, null clears.
        const updated = yield* call(
          `${conf}/${id}`,
          json(admin, { tools: [], maxToolCycles: null, description: null, title: "RESEARCHER" }, "PUT")
        )
        expect(updated.status).toBe(200)
        expect(updated.json).toMatchObject({
          id,
          title: "RESEARCHER",
          tools: [],
          maxToolCycles: null,
          description: null,
          instructions: "Find sources about {{input.topic}}."
        })
        expectErrorBody(yield* call(`${conf}/${id}`, json(admin, { title: "writer" }, "PUT")), 400, "BAD_REQUEST")
        expectErrorBody(
          yield* call(`${conf}/${id}`, json(admin, { instructions: "{{/if}}" }, "PUT")),
          400,
          "BAD_REQUEST"
        )

        expectErrorBody(yield* call(`${conf}/unknown`, { headers: admin }), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${conf}/unknown`, json(admin, { title: "y" }, "PUT")), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${conf}/unknown`, { method: "DELETE", headers: admin }), 404, "NOT_FOUND")

        expect((yield* call(`${conf}/${id}`, { method: "DELETE", headers: admin })).status).toBe(204)
        expectErrorBody(yield* call(`${conf}/${id}`, { headers: admin }), 404, "NOT_FOUND")
        expect((yield* call(conf, json(admin, { title: "Researcher", instructions: "again" }))).status).toBe(201)
      }))

    it.effect("one tenant never sees another's agents; titles are per tenant", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const conf = `${base}/api/v1/admin/agent/agent-conf`
        const a = as("tenant-a", "alice")
        const b = as("tenant-b", "bob")
        const mine = yield* call(conf, json(a, { title: "Shared title", instructions: "x" }))
        expect(mine.status).toBe(201)
        expectErrorBody(yield* call(`${conf}/${mine.json.id}`, { headers: b }), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${conf}/${mine.json.id}`, json(b, { title: "z" }, "PUT")), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${conf}/${mine.json.id}`, { method: "DELETE", headers: b }), 404, "NOT_FOUND")
        expect((yield* call(conf, { headers: b })).json).toEqual([])
        expect((yield* call(conf, json(b, { title: "Shared title", instructions: "y" }))).status).toBe(201)
        expect((yield* call(`${conf}/${mine.json.id}`, { headers: a })).json.instructions).toBe("x")
      }))
  })
})
