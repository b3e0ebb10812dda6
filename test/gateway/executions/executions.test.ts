/**
 * Plan executions as a client sees them, against a fake LLM provider on loopback: every node type
 * run (PROMPT, LLM, AGENT, CONDITION with a skipped branch, PARALLEL, PLAN nested and reachable
 * through its parent), the states (RUNNING right after run, PAUSED, COMPLETED, FAILED, CANCELLED)
 * and every 409 of the spec's state table, a cooperative pause (the running node finishes, none
 * starts), a resume that never runs a finished node again (counted at the provider), a stop that
 * keeps the partial trace and reaches nested executions, a TOOL node naming an unknown tool failing,
 * an agent with tools failing on a model that cannot call them (tools that run:
 * test/gateway/tools), and each LLM answer recorded as a request of the execution's conversation.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { backends } from "../../support/backends.ts"
import { eventually, type FakeLlm, FakeLlmServer } from "../../support/fake-llm.ts"
import { as, expectErrorBody, json } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"
import { sleep } from "../../support/processes.ts"

/** Each test its own tenant: its own provider, plans and list of executions. */
const setup = (tenant: string) =>
  Effect.gen(function*() {
    const base = yield* GatewayUrl
    const fake = yield* FakeLlmServer
    const admin = as(tenant, "alice")
    const provider = yield* call(
      `${base}/api/v1/admin/llm/provider-conf`,
      json(admin, { id: "local", type: "openai-compatible", model: "m", baseUrl: `${fake.url}/v1`, isDefault: true })
    )
    expect(provider.status).toBe(201)
    const createPlan = (body: unknown) =>
      call(`${base}/api/v1/admin/plans`, json(admin, body)).pipe(
        Effect.map((reply) => {
          expect(reply.status, reply.text).toBe(201)
          return reply.json.id as string
        })
      )
    const executions = `${base}/api/v1/admin/plan-executions`
    const run = (planId: string, inputPayload: unknown = {}) =>
      call(`${executions}/run`, json(admin, { planId, inputPayload }))
    const read = (id: string) => call(`${executions}/${id}`, { headers: admin }).pipe(Effect.map((r) => r.json))
    const act = (id: string, action: "pause" | "resume" | "stop") =>
      call(`${executions}/${id}/${action}`, { method: "POST", headers: admin })
    /** Reads the execution until `predicate` holds (10 s at most). */
    const until = (id: string, predicate: (execution: any) => boolean, what: string) =>
      Effect.gen(function*() {
        for (let i = 0; i < 200; i++) {
          const execution = yield* read(id)
          if (predicate(execution)) return execution
          yield* sleep(50)
        }
        throw new Error(`timed out waiting for ${what}: ${JSON.stringify(yield* read(id))}`)
      })
    return { admin, base, fake, createPlan, executions, run, read, act, until }
  })

/** Requests the fake received whose body holds `marker`: how many times a node asked its LLM. */
const asked = (fake: FakeLlm, marker: string) => fake.requests.filter((r) => JSON.stringify(r.body).includes(marker))

const node = (execution: any, id: string) => execution.nodes.find((n: { id: string }) => n.id === id)
const states = (execution: any) =>
  Object.fromEntries(execution.nodes.map((n: { id: string; state: string }) => [n.id, n.state]))

for (const backend of backends) {
  const gateway = Layer.provideMerge(
    gatewayTestLayer({
      ...backend.config,
      PLAN_EXECUTION_POLL_INTERVAL: "100 millis",
      LLM_RETRY_BASE_DELAY: "10 millis"
    }),
    FakeLlmServer.layer
  )
  describe(`plan executions (${backend.name})`, () => {
    layer(gateway, { timeout: 120_000 })("admin", (it) => {
      it.effect("every node type runs: COMPLETED with the output node's output, every node's state, the nested run through its parent", () =>
        Effect.gen(function*() {
          const { act, admin, base, createPlan, executions, fake, read, run, until } = yield* setup("every-type")
          fake.scriptWhen("SUMMARISE", { text: "A short summary." })
          fake.scriptWhen("KEYWORDS", { text: "```json\n[\"alpha\", \"beta\"]\n```" })
          fake.scriptWhen("DEFINE alpha", { text: "Alpha is first." })
          fake.scriptWhen("DEFINE beta", { text: "Beta is second." })
          fake.scriptWhen("RESEARCH", { text: "Sources found." })
          fake.scriptWhen("REPORT", { text: "The report." })
          expect(
            (yield* call(
              `${base}/api/v1/admin/prompts`,
              json(admin, { id: "summary", template: "SUMMARISE {{text}}", llm: { systemPrompt: "Be brief." } })
            )).status
          ).toBe(201)
          const agent = yield* call(
            `${base}/api/v1/admin/agent/agent-conf`,
            json(admin, { title: "Researcher", instructions: "You research for {{input.who}}." })
          )
          const nested = yield* createPlan({
            title: "Report",
            nodes: [{ id: "write", type: "LLM", template: "REPORT on {{input.summary}}" }],
            output: "write"
          })
          const planId = yield* createPlan({
            title: "Digest",
            nodes: [
              { id: "summarise", type: "PROMPT", promptId: "summary", variables: { text: "{{input.text}}" } },
              { id: "keywords", type: "LLM", template: "KEYWORDS of {{nodes.summarise.output.text}}", json: true },
              { id: "isLong", type: "CONDITION", if: "{{input.long}}", then: ["research"], else: ["short"] },
              {
                id: "research",
                type: "AGENT",
                agentId: agent.json.id,
                input: "RESEARCH {{nodes.summarise.output.text}}"
              },
              { id: "short", type: "LLM", template: "NEVER ASKED" },
              {
                id: "perKeyword",
                type: "PARALLEL",
                items: "nodes.keywords.output.json",
                maxConcurrency: 2,
                run: { type: "LLM", template: "DEFINE {{item}} ({{index}})" }
              },
              {
                id: "report",
                type: "PLAN",
                planId: nested,
                input: { summary: "{{nodes.summarise.output.text}}", sources: { from: "nodes.research.output" } },
                dependsOn: ["perKeyword"]
              },
              { id: "afterShort", type: "LLM", template: "NEVER ASKED EITHER {{nodes.short.output.text}}" }
            ],
            output: "report"
          })

          const started = yield* run(planId, { text: "A long text.", long: true, who: "Bob" })
          expect(started.status).toBe(202)
          // Right after run: RUNNING, every node listed (none ended yet but the fast ones).
          expect(started.json).toMatchObject({ planId, planTitle: "Digest", parentId: null, state: "RUNNING" })
          expect(started.json.nodes.map((n: { id: string }) => n.id)).toEqual([
            "summarise",
            "keywords",
            "isLong",
            "research",
            "short",
            "perKeyword",
            "report",
            "afterShort"
          ])
          const id = started.json.id as string
          const done = yield* until(id, (e) => e.state !== "RUNNING", "the execution to end")
          expect(done.state, JSON.stringify(done)).toBe("COMPLETED")
          expect(states(done)).toEqual({
            summarise: "COMPLETED",
            keywords: "COMPLETED",
            isLong: "COMPLETED",
            research: "COMPLETED",
            short: "SKIPPED",
            perKeyword: "COMPLETED",
            report: "COMPLETED",
            afterShort: "SKIPPED"
          })
          expect(node(done, "summarise").output).toEqual({ text: "A short summary." })
          expect(node(done, "keywords").output).toEqual({
            text: "```json\n[\"alpha\", \"beta\"]\n```",
            json: ["alpha", "beta"]
          })
          expect(node(done, "isLong").output).toEqual({ value: true, branch: "then" })
          expect(node(done, "research").output).toEqual({ text: "Sources found." })
          expect(node(done, "perKeyword").output).toEqual({
            items: [{ text: "Alpha is first." }, { text: "Beta is second." }]
          })
          expect(node(done, "perKeyword").itemsDone).toBe(2)
          expect(node(done, "summarise").attempts).toBe(1)
          expect(node(done, "short")).toMatchObject({ attempts: 0, output: null, startedAt: null })

          // The nested execution: listed as the parent's child, readable, not in the main list.
          expect(done.children).toHaveLength(1)
          const child = yield* read(done.children[0].id)
          expect(done.children[0]).toMatchObject({ planId: nested, nodeId: "report", item: null, state: "COMPLETED" })
          expect(child).toMatchObject({ parentId: id, state: "COMPLETED", output: { text: "The report." } })
          expect(child.inputPayload).toEqual({ summary: "A short summary.", sources: { text: "Sources found." } })
          expect(node(done, "report").output).toEqual({ output: { text: "The report." }, executionId: child.id })
          expect(done.output).toEqual(node(done, "report").output)
          const list = (yield* call(executions, { headers: admin })).json
          expect(list.map((e: { id: string }) => e.id)).toEqual([id])
          expect(list[0]).toMatchObject({ state: "COMPLETED", planTitle: "Digest" })

          // What reached the model: the prompt with its system prompt, the agent's instructions rendered, each node once.
          expect(asked(fake, "SUMMARISE A long text.")[0]!.body.messages).toEqual([
            { role: "system", content: "Be brief." },
            { role: "user", content: "SUMMARISE A long text." }
          ])
          expect(asked(fake, "RESEARCH")[0]!.body.messages[0]).toEqual({
            role: "system",
            content: "You research for Bob."
          })
          for (const marker of ["SUMMARISE", "KEYWORDS", "RESEARCH", "DEFINE alpha", "DEFINE beta", "REPORT"]) {
            expect(asked(fake, marker), marker).toHaveLength(1)
          }
          expect(asked(fake, "NEVER ASKED")).toHaveLength(0)

          // Ended: pause, resume and stop are 409.
          for (const action of ["pause", "resume", "stop"] as const) {
            expectErrorBody(yield* act(id, action), 409, "CONFLICT")
          }

          // The OpenAPI description names the endpoints with their statuses.
          const api = (yield* call(`${base}/v3/api-docs`)).json
          expect(Object.keys(api.paths["/api/v1/admin/plan-executions/run"].post.responses)).toContain("202")
          expect(Object.keys(api.paths["/api/v1/admin/plan-executions/{id}/pause"].post.responses)).toContain("409")
          expect(Object.keys(api.paths["/api/v1/admin/plan-executions/{id}"].delete.responses)).toContain("204")
        }))

      it.effect("pause is cooperative: the running node finishes, none starts; resume runs only the rest", () =>
        Effect.gen(function*() {
          const { act, createPlan, fake, read, run, until } = yield* setup("pause")
          fake.scriptWhen("FIRST", { text: "one", wholeDelayMs: 800 })
          fake.scriptWhen("SECOND", { text: "two" })
          const planId = yield* createPlan({
            title: "Two steps",
            nodes: [
              { id: "first", type: "LLM", template: "FIRST" },
              { id: "second", type: "LLM", template: "SECOND after {{nodes.first.output.text}}" }
            ]
          })
          const id = (yield* run(planId)).json.id as string
          yield* eventually(() => asked(fake, "FIRST").length === 1, 10_000, "the first node to ask its LLM")
          const early = yield* act(id, "resume")
          expectErrorBody(early, 409, "CONFLICT")
          expect(early.json.message).toContain("cannot resume: it is RUNNING")
          const paused = yield* act(id, "pause")
          expect(paused.status).toBe(200)
          expect(paused.json.state).toBe("PAUSED")
          expect(states(paused.json)).toEqual({ first: "RUNNING", second: "PENDING" })
          expectErrorBody(yield* act(id, "pause"), 409, "CONFLICT")

          // The running node finishes and its output is kept; the next one does not start.
          const finished = yield* until(id, (e) => node(e, "first").state === "COMPLETED", "the first node to finish")
          expect(finished.state).toBe("PAUSED")
          yield* sleep(600)
          const still = yield* read(id)
          expect(still.state).toBe("PAUSED")
          expect(states(still)).toEqual({ first: "COMPLETED", second: "PENDING" })
          expect(asked(fake, "SECOND")).toHaveLength(0)

          const resumed = yield* act(id, "resume")
          expect(resumed.status).toBe(200)
          expect(resumed.json.state).toBe("RUNNING")
          const done = yield* until(id, (e) => e.state === "COMPLETED", "the execution to complete")
          expect(done.output).toEqual({ first: { text: "one" }, second: { text: "two" } })
          expect(asked(fake, "FIRST")).toHaveLength(1)
          expect(asked(fake, "SECOND after one")).toHaveLength(1)
          expect(node(done, "first").attempts).toBe(1)
        }))

      it.effect("stop: CANCELLED with the partial trace, the running call cancelled, the nested run stopped too; delete", () =>
        Effect.gen(function*() {
          const { act, admin, base, createPlan, executions, fake, read, run } = yield* setup("stop")
          fake.scriptWhen("QUICK", { text: "quick" })
          fake.scriptWhen("SLOW", { text: "slow", wholeDelayMs: 30_000 })
          const nested = yield* createPlan({ title: "Slow", nodes: [{ id: "wait", type: "LLM", template: "SLOW" }] })
          const planId = yield* createPlan({
            title: "Stopped",
            nodes: [
              { id: "quick", type: "LLM", template: "QUICK" },
              { id: "inner", type: "PLAN", planId: nested, dependsOn: ["quick"] },
              { id: "last", type: "LLM", template: "LAST {{nodes.inner.output}}" }
            ]
          })
          const id = (yield* run(planId)).json.id as string
          yield* eventually(() => asked(fake, "SLOW").length === 1, 10_000, "the nested node to ask its LLM")
          const childId = (yield* read(id)).children[0].id as string

          const stopped = yield* act(id, "stop")
          expect(stopped.status).toBe(200)
          expect(stopped.json.state).toBe("CANCELLED")
          expect(states(stopped.json)).toEqual({ quick: "COMPLETED", inner: "CANCELLED", last: "PENDING" })
          expect(node(stopped.json, "quick").output).toEqual({ text: "quick" })
          expect(stopped.json.finishedAt).not.toBeNull()
          const child = yield* read(childId)
          expect(child.state).toBe("CANCELLED")
          expect(states(child)).toEqual({ wait: "CANCELLED" })
          // The upstream call is cancelled, and nothing is written after the stop.
          yield* eventually(() => asked(fake, "SLOW")[0]!.disconnected, 5_000, "the slow call to be cancelled")
          yield* sleep(300)
          expect(states(yield* read(id))).toEqual({ quick: "COMPLETED", inner: "CANCELLED", last: "PENDING" })
          expect(asked(fake, "LAST")).toHaveLength(0)
          // The answer cut off by the stop is recorded STOPPED in the nested execution's conversation.
          const cutOff = yield* call(`${base}/api/v1/requests?conversation=${childId}`, { headers: admin })
          expect(cutOff.json.content.map((r: any) => [r.status, r.inputs[0].content[0].text])).toEqual([
            ["STOPPED", "SLOW"]
          ])
          for (const action of ["pause", "resume", "stop"] as const) {
            expectErrorBody(yield* act(id, action), 409, "CONFLICT")
            expectErrorBody(yield* act(childId, action), 409, "CONFLICT")
          }

          // Another tenant sees nothing; unknown executions and plans are 404; a body without planId is 400.
          const other = as("someone-else", "eve")
          expectErrorBody(yield* call(`${executions}/${id}`, { headers: other }), 404, "NOT_FOUND")
          expectErrorBody(yield* call(`${executions}/${id}/stop`, { method: "POST", headers: other }), 404, "NOT_FOUND")
          expectErrorBody(yield* run("no-such-plan"), 404, "NOT_FOUND")
          expectErrorBody(yield* call(`${executions}/run`, json(admin, { inputPayload: {} })), 400, "BAD_REQUEST")
          expectErrorBody(
            yield* call(`${executions}/run`, json(admin, { planId: nested, inputPayload: [1] })),
            400,
            "BAD_REQUEST"
          )
          expectErrorBody(yield* act("unknown", "pause"), 404, "NOT_FOUND")

          const removed = yield* call(`${executions}/${id}`, { method: "DELETE", headers: admin })
          expect(removed.status).toBe(204)
          expectErrorBody(yield* call(`${executions}/${id}`, { headers: admin }), 404, "NOT_FOUND")
          expectErrorBody(yield* call(`${executions}/${childId}`, { headers: admin }), 404, "NOT_FOUND")
          expectErrorBody(yield* call(`${executions}/${id}`, { method: "DELETE", headers: admin }), 404, "NOT_FOUND")
          expect((yield* call(executions, { headers: admin })).json).toEqual([])
        }))

      it.effect("each LLM answer of a plan is a request of the execution's conversation: the user's statistics count its usage, a PROMPT node's prompt is used", () =>
        Effect.gen(function*() {
          const { admin, base, createPlan, fake, run, until } = yield* setup("recorded")
          fake.scriptWhen("GREET", { text: "Hello.", usage: { promptTokens: 10, completionTokens: 2 } })
          fake.scriptWhen("TRANSLATE", { text: "Bonjour.", usage: { promptTokens: 7, completionTokens: 3 } })
          expect(
            (yield* call(`${base}/api/v1/admin/prompts`, json(admin, { id: "greet", template: "GREET {{name}}" })))
              .status
          ).toBe(201)
          const planId = yield* createPlan({
            title: "Greeting",
            nodes: [
              { id: "greet", type: "PROMPT", promptId: "greet", variables: { name: "{{input.name}}" } },
              { id: "translate", type: "LLM", template: "TRANSLATE {{nodes.greet.output.text}}" }
            ],
            output: "translate"
          })
          const started = yield* run(planId, { name: "Ada" })
          expect(started.status).toBe(202)
          const id = started.json.id as string
          yield* until(id, (execution) => execution.state === "COMPLETED", "COMPLETED")

          const conversation = yield* call(`${base}/api/v1/conversations/${id}`, { headers: admin })
          expect(conversation.status).toBe(200)
          expect(conversation.json).toMatchObject({ id, title: "Plan: Greeting" })
          const requests = (yield* call(`${base}/api/v1/requests?conversation=${id}`, { headers: admin })).json
          expect(
            requests.content.map((r: any) => [r.status, r.inputs[0].content[0].text, r.response, r.usage, r.provider])
          ).toEqual([
            ["COMPLETED", "GREET Ada", "Hello.", { inputTokens: 10, outputTokens: 2 }, "local"],
            ["COMPLETED", "TRANSLATE Hello.", "Bonjour.", { inputTokens: 7, outputTokens: 3 }, "local"]
          ])
          const boss = as("recorded", "boss", "gw-admin")
          const users = (yield* call(`${base}/api/v1/admin/users/statistics`, { headers: boss })).json
          expect(users.content.find((u: { userId: string }) => u.userId === "alice")).toMatchObject({
            conversations: 1,
            requests: 2,
            completedRequests: 2,
            inputTokens: 17,
            outputTokens: 5
          })
          expect((yield* call(`${base}/api/v1/admin/prompts/greet/statistics`, { headers: boss })).json)
            .toMatchObject({ promptId: "greet", uses: 1 })
        }))

      it.effect("a TOOL node naming an unknown tool fails, and so does an agent with tools on a model without them: FAILED, the nodes after never run", () =>
        Effect.gen(function*() {
          const { admin, base, createPlan, fake, run, until } = yield* setup("tools")
          const planId = yield* createPlan({
            title: "Tools",
            nodes: [
              { id: "lookup", type: "TOOL", tool: "search_documents", arguments: { query: "{{input.q}}" } },
              { id: "after", type: "LLM", template: "AFTER TOOL {{nodes.lookup.output.result}}" }
            ]
          })
          const id = (yield* run(planId, { q: "x" })).json.id as string
          const failed = yield* until(id, (e) => e.state !== "RUNNING", "the execution to end")
          expect(failed.state).toBe("FAILED")
          expect(states(failed)).toEqual({ lookup: "FAILED", after: "PENDING" })
          expect(node(failed, "lookup").errorMessage).toContain("unknown tool 'search_documents'")
          expect(failed.errorMessage).toContain("The node 'lookup' failed: unknown tool 'search_documents'")
          expect(asked(fake, "AFTER TOOL")).toHaveLength(0)

          const agent = yield* call(
            `${base}/api/v1/admin/agent/agent-conf`,
            json(admin, { title: "With tools", instructions: "Use tools.", tools: ["document_search"] })
          )
          const agentPlan = yield* createPlan({
            title: "Agent with tools",
            nodes: [{ id: "agent", type: "AGENT", agentId: agent.json.id, input: "AGENT WITH TOOLS" }]
          })
          const agentRun = (yield* run(agentPlan)).json.id as string
          const agentFailed = yield* until(agentRun, (e) => e.state !== "RUNNING", "the agent's execution to end")
          expect(agentFailed.state).toBe("FAILED")
          // The tenant's provider does not declare tools (function calling).
          expect(node(agentFailed, "agent").errorMessage).toContain("cannot call them")
          expect(asked(fake, "AGENT WITH TOOLS")).toHaveLength(0)
        }))
    })
  })
}
