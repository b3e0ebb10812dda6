/**
 * Plan definitions as a client sees them: every endpoint and status of the spec (201, 200, 204;
 * 400 on an invalid body or a title that exists; 404 unknown), the plan model checked on every
 * write with a 400 naming each problem (unknown node type, a reference to a missing node, a
 * cycle, a missing prompt, agent or nested plan, plans nesting in a loop, bad templates and
 * paths), the 409s that keep references whole, and tenant isolation.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { as, expectErrorBody, json } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"

const admin = as("acme", "alice")

/** A plan with one node of every type (docs/gateway-plans.md shows the same). */
const everyType = (agentId: string, nestedPlanId: string) => [
  {
    id: "summarise",
    type: "PROMPT",
    promptId: "summary",
    variables: { text: "{{input.text}}", language: "{{default input.language \"English\"}}" }
  },
  { id: "keywords", type: "LLM", template: "Keywords of: {{nodes.summarise.output.text}}", json: true },
  { id: "isLong", type: "CONDITION", if: "{{input.long}}", then: ["research"], else: ["lookup"] },
  { id: "research", type: "AGENT", agentId, input: "Find sources on {{nodes.summarise.output.text}}" },
  {
    id: "lookup",
    type: "TOOL",
    tool: "search_documents",
    arguments: { query: { from: "nodes.keywords.output.json" } }
  },
  {
    id: "perKeyword",
    type: "PARALLEL",
    items: "nodes.keywords.output.json",
    maxConcurrency: 4,
    run: { type: "LLM", template: "Define {{item}} (keyword {{index}})" }
  },
  { id: "report", type: "PLAN", planId: nestedPlanId, input: { summary: "{{nodes.summarise.output.text}}" } }
]

describe("gateway plans", () => {
  layer(gatewayTestLayer(defaultBackend.config), { timeout: 120_000 })("admin", (it) => {
    it.effect("create, read, list, update, delete, with every status", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const plans = `${base}/api/v1/admin/plans`
        expect(
          (yield* call(`${base}/api/v1/admin/prompts`, json(admin, { id: "summary", template: "{{text}}" })))
            .status
        ).toBe(201)
        const agent = yield* call(
          `${base}/api/v1/admin/agent/agent-conf`,
          json(admin, { title: "Researcher", instructions: "Research." })
        )
        const nested = yield* call(
          plans,
          json(admin, {
            title: "Report",
            nodes: [{ id: "write", type: "LLM", template: "Report on {{input.summary}}" }]
          })
        )
        expect(nested.status).toBe(201)
        expect(nested.json).toMatchObject({ title: "Report", description: null, output: null })

        const created = yield* call(
          plans,
          json(admin, {
            title: "Digest",
            description: "All at once",
            nodes: everyType(agent.json.id, nested.json.id),
            output: "report"
          })
        )
        expect(created.status).toBe(201)
        expect(created.json).toMatchObject({ title: "Digest", description: "All at once", output: "report" })
        expect(created.json.nodes).toEqual(everyType(agent.json.id, nested.json.id))
        const id = created.json.id as string

        const read = yield* call(`${plans}/${id}`, { headers: admin })
        expect(read.status).toBe(200)
        expect(read.json).toEqual(created.json)
        const list = yield* call(plans, { headers: admin })
        expect(list.status).toBe(200)
        expect(list.json.map((p: { title: string }) => p.title)).toEqual(["Digest", "Report"])

        // 400: the title exists (whatever its case), bodies that do not decode.
        const same = yield* call(
          plans,
          json(admin, { title: "digest", nodes: [{ id: "a", type: "LLM", template: "x" }] })
        )
        expectErrorBody(same, 400, "BAD_REQUEST")
        expect(same.json.message).toContain("already exists")
        expectErrorBody(yield* call(plans, json(admin, { title: "Empty", nodes: [] })), 400, "BAD_REQUEST")
        expectErrorBody(
          yield* call(plans, json(admin, { nodes: [{ id: "a", type: "LLM", template: "x" }] })),
          400,
          "BAD_REQUEST"
        )

        // Update: the fields given replace those stored; nodes are checked again.
        const updated = yield* call(
          `${plans}/${id}`,
          json(admin, { description: null, output: null, nodes: [{ id: "only", type: "LLM", template: "x" }] }, "PUT")
        )
        expect(updated.status).toBe(200)
        expect(updated.json).toMatchObject({ id, title: "Digest", description: null, output: null })
        expect(updated.json.nodes).toEqual([{ id: "only", type: "LLM", template: "x" }])
        expectErrorBody(yield* call(`${plans}/${id}`, json(admin, { title: "REPORT" }, "PUT")), 400, "BAD_REQUEST")
        expectErrorBody(yield* call(`${plans}/${id}`, json(admin, { output: "nowhere" }, "PUT")), 400, "BAD_REQUEST")

        expectErrorBody(yield* call(`${plans}/unknown`, { headers: admin }), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${plans}/unknown`, json(admin, { title: "y" }, "PUT")), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${plans}/unknown`, { method: "DELETE", headers: admin }), 404, "NOT_FOUND")

        expect((yield* call(`${plans}/${id}`, { method: "DELETE", headers: admin })).status).toBe(204)
        expectErrorBody(yield* call(`${plans}/${id}`, { headers: admin }), 404, "NOT_FOUND")
      }))

    it.effect("an invalid graph is a 400 naming the problem", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const plans = `${base}/api/v1/admin/plans`
        expect((yield* call(`${base}/api/v1/admin/prompts`, json(admin, { id: "checked", template: "t" }))).status)
          .toBe(201)
        const refused = (nodes: ReadonlyArray<unknown>, ...words: ReadonlyArray<string>) =>
          Effect.gen(function*() {
            const reply = yield* call(plans, json(admin, { title: `Invalid ${Math.random()}`, nodes }))
            expectErrorBody(reply, 400, "BAD_REQUEST")
            for (const word of words) expect(reply.json.message).toContain(word)
          })
        const llm = (id: string, template = "x", extra = {}) => ({ id, type: "LLM", template, ...extra })

        yield* refused([{ id: "a", type: "TELEPATHY" }], "type", "TELEPATHY")
        yield* refused([llm("a", "{{nodes.ghost.output.text}}")], "'a'", "'ghost'", "does not have")
        yield* refused([llm("a", "x", { dependsOn: ["ghost"] })], "'ghost'")
        yield* refused(
          [llm("a", "{{nodes.b.output.text}}"), llm("b", "x", { dependsOn: ["c"] }), llm("c", "{{nodes.a.output}}")],
          "cycle",
          "a → b → c → a"
        )
        yield* refused([llm("a", "x", { dependsOn: ["a"] })], "cycle", "a → a")
        yield* refused([llm("a"), llm("a")], "two nodes have the ID 'a'")
        yield* refused([{ id: "p", type: "PROMPT", promptId: "missing" }], "'p'", "missing")
        yield* refused([{ id: "p", type: "PROMPT", promptId: "checked", version: 4 }], "'p'", "version 4")
        yield* refused([{ id: "g", type: "AGENT", agentId: "nobody", input: "x" }], "'g'", "agent 'nobody'")
        yield* refused([{ id: "n", type: "PLAN", planId: "no-such-plan" }], "'n'", "'no-such-plan'")
        yield* refused([llm("a", "{{#if x}}unclosed")], "node 'a'", "line 1")
        yield* refused(
          [{ id: "t", type: "TOOL", tool: "x", arguments: { q: { from: "secrets.key" } } }],
          "'secrets.key'"
        )
        yield* refused([{ id: "t", type: "TOOL", tool: "x", arguments: { q: { from: "item" } } }], "'item'")
        yield* refused(
          [{ id: "c", type: "CONDITION", if: "x", then: ["a"], else: ["a"] }, llm("a")],
          "both branches"
        )
        yield* refused([{ id: "c", type: "CONDITION", if: "x", then: ["c"] }], "branches to itself")
        yield* refused([{ id: "c", type: "CONDITION", if: "x", then: ["later"] }], "'later'")
        // A branch's node runs after its condition: a condition reading it is a cycle.
        yield* refused([{ id: "c", type: "CONDITION", if: "{{nodes.a.output.text}}", then: ["a"] }, llm("a")], "cycle")
        yield* refused(
          [{ id: "fan", type: "PARALLEL", items: "nodes.none.output", run: { type: "LLM", template: "{{item}}" } }],
          "'none'"
        )
        yield* refused(
          [{ id: "fan", type: "PARALLEL", items: "input.list", run: { type: "CONDITION", if: "x" } }],
          "run"
        )
        // Several problems, all named.
        yield* refused(
          [llm("a", "{{nodes.x.output}}"), { id: "g", type: "AGENT", agentId: "nobody", input: "x" }],
          "'x'",
          "'nobody'"
        )
      }))

    it.effect("plans cannot nest in a loop; what a plan uses cannot be deleted under it (409)", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const plans = `${base}/api/v1/admin/plans`
        const agents = `${base}/api/v1/admin/agent/agent-conf`
        const agent = (yield* call(agents, json(admin, { title: "Helper", instructions: "Help." }))).json
        const inner = (yield* call(
          plans,
          json(admin, {
            title: "Inner",
            nodes: [{ id: "help", type: "AGENT", agentId: agent.id, input: "{{input.q}}" }]
          })
        )).json
        const outer = yield* call(
          plans,
          json(admin, {
            title: "Outer",
            nodes: [{ id: "sub", type: "PLAN", planId: inner.id, input: { q: { from: "input" } } }]
          })
        )
        expect(outer.status).toBe(201)

        // Inner nesting Outer would close a loop; nesting itself too.
        const loop = yield* call(
          `${plans}/${inner.id}`,
          json(admin, { nodes: [{ id: "back", type: "PLAN", planId: outer.json.id }] }, "PUT")
        )
        expectErrorBody(loop, 400, "BAD_REQUEST")
        expect(loop.json.message).toContain("loop")
        const itself = yield* call(
          `${plans}/${inner.id}`,
          json(admin, { nodes: [{ id: "me", type: "PLAN", planId: inner.id }] }, "PUT")
        )
        expectErrorBody(itself, 400, "BAD_REQUEST")
        expect(itself.json.message).toContain("itself")

        // 409 while used: the nested plan, the agent.
        const nestedDelete = yield* call(`${plans}/${inner.id}`, { method: "DELETE", headers: admin })
        expectErrorBody(nestedDelete, 409, "CONFLICT")
        const agentDelete = yield* call(`${agents}/${agent.id}`, { method: "DELETE", headers: admin })
        expectErrorBody(agentDelete, 409, "CONFLICT")
        expect(agentDelete.json.message).toContain("Inner")
        // Once the user is gone, they can go.
        expect((yield* call(`${plans}/${outer.json.id}`, { method: "DELETE", headers: admin })).status).toBe(204)
        expect((yield* call(`${plans}/${inner.id}`, { method: "DELETE", headers: admin })).status).toBe(204)
        expect((yield* call(`${agents}/${agent.id}`, { method: "DELETE", headers: admin })).status).toBe(204)
      }))

    it.effect("one tenant never sees another's plans, nor uses its records", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const plans = `${base}/api/v1/admin/plans`
        const a = as("tenant-a", "alice")
        const b = as("tenant-b", "bob")
        const mine = yield* call(plans, json(a, { title: "Mine", nodes: [{ id: "x", type: "LLM", template: "x" }] }))
        expect(mine.status).toBe(201)
        expectErrorBody(yield* call(`${plans}/${mine.json.id}`, { headers: b }), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${plans}/${mine.json.id}`, json(b, { title: "z" }, "PUT")), 404, "NOT_FOUND")
        expectErrorBody(yield* call(`${plans}/${mine.json.id}`, { method: "DELETE", headers: b }), 404, "NOT_FOUND")
        expect((yield* call(plans, { headers: b })).json).toEqual([])
        expectErrorBody(
          yield* call(plans, json(b, { title: "Borrow", nodes: [{ id: "n", type: "PLAN", planId: mine.json.id }] })),
          400,
          "BAD_REQUEST"
        )
        expect(
          (yield* call(plans, json(b, { title: "Mine", nodes: [{ id: "y", type: "LLM", template: "y" }] }))).status
        )
          .toBe(201)
      }))
  })
})
