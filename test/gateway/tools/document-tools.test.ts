/**
 * The tool loop as a client sees it, against the fake LLM provider on loopback and a real broker:
 * "ask this document" (a conversation about a document; the model searches it, reads the result,
 * answers citing the page, whole and streamed), the loop's bound (TOOL_CYCLES_EXCEEDED with the
 * trace kept), disableReasoning, a model without function calling, a page image for a vision model,
 * the native tools listed, and plan executions whose AGENT and TOOL nodes call them.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { GatewayUrl } from "../../../src/layers/Test.ts"
import { backends } from "../../support/backends.ts"
import type { FakeLlm } from "../../support/fake-llm.ts"
import { as, expectErrorBody, json, readEvents } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"
import { nodeOf, runToEnd } from "../../support/plan-executions.ts"
import {
  askAboutMotivation,
  askStreamedAboutBackground,
  BACKGROUND_ANSWER,
  documentConversation,
  documentToolsStack,
  MAX_CYCLES,
  MOTIVATION_ANSWER
} from "./document-stack.ts"

/** The requests the fake received for the question tagged `marker`. */
const asked = (fake: FakeLlm, marker: string) => fake.requests.filter((r) => JSON.stringify(r.body).includes(marker))
const last = (body: any) => body.messages[body.messages.length - 1]

/** Each test its own tenant, provider (tools on) and conversation about nested_outline.pdf (page 3: "Motivation"). */
const setup = (tenant: string, capabilities: { tools: boolean; vision?: boolean } = { tools: true }) =>
  documentConversation(
    tenant,
    (fake) => ({ id: "local", type: "openai-compatible", model: "m", baseUrl: `${fake.url}/v1`, capabilities })
  )

/** The model searches for `query`, then answers `answer` once it has the tool's result. */
const searchThenAnswer = (fake: FakeLlm, marker: string, query: string, answer: string) =>
  fake.respond((body) => {
    if (!JSON.stringify(body).includes(marker)) return undefined
    return last(body).role === "tool"
      ? { text: answer }
      : { toolCalls: [{ name: "document_search", arguments: { query } }] }
  })

for (const backend of backends) {
  describe(`document tools and the tool loop (${backend.name})`, () => {
    layer(documentToolsStack(backend.config), { timeout: 120_000 })("gateway with a broker", (it) => {
      it.effect("GET /admin/tools lists the native tools with their arguments", () =>
        Effect.gen(function*() {
          const base = yield* GatewayUrl
          const reply = yield* call(`${base}/api/v1/admin/tools`, { headers: as("list", "admin") })
          expect(reply.status).toBe(200)
          expect(reply.json.map((t: { name: string }) => t.name)).toEqual([
            "document_outline",
            "document_page_text",
            "document_search",
            "document_page_image"
          ])
          const pageText = reply.json.find((t: { name: string }) => t.name === "document_page_text")
          expect(pageText.description.length).toBeGreaterThan(20)
          expect(pageText.parameters).toMatchObject({ type: "object", required: ["pageNumber"] })
          expect(reply.json.find((t: { name: string }) => t.name === "document_page_image").needs).toEqual([
            "document",
            "vision"
          ])
        }))

      it.effect("ask this document: the model searches it, reads the hits, answers citing the page with the passage's position", () =>
        Effect.gen(function*() {
          const { ask, base, documentId, fake, user } = yield* setup("ask-doc")
          searchThenAnswer(fake, "ASK-DOC", "Motivation", MOTIVATION_ANSWER)
          const reply = yield* askAboutMotivation(ask, documentId, "ASK-DOC Where is the motivation?")
          const [citation] = reply.json.citations
          expect(citation.passages[0].text).toBe("Motivation")
          expect(citation.passages[0].position.w).toBeGreaterThan(0)
          // What the provider saw: the document tools offered (no image tool: no vision), the
          // citing instruction, then the search's result as a tool message.
          const [first, second] = asked(fake, "ASK-DOC")
          expect(first!.body.tools.map((t: any) => t.function.name)).toEqual([
            "document_outline",
            "document_page_text",
            "document_search"
          ])
          expect(first!.body.messages[0].content).toContain("[p. N]")
          expect(second!.body.messages.at(-2).tool_calls[0].function.name).toBe("document_search")
          expect(JSON.parse(last(second!.body).content).hits).toContainEqual({ pageNumber: 3, text: "Motivation" })
          // Stored as answered.
          const stored = yield* call(`${base}/api/v1/requests/${reply.json.id}`, { headers: user })
          expect(stored.json.toolCalls).toEqual(reply.json.toolCalls)
          expect(stored.json.citations).toEqual(reply.json.citations)
        }))

      it.effect("streamed: tool-call and tool-result events, the answer's deltas, citations, done", () =>
        Effect.gen(function*() {
          const { base, conversationId, fake, user } = yield* setup("ask-stream")
          searchThenAnswer(fake, "ASK-STREAM", "Background", BACKGROUND_ANSWER)
          const events = yield* askStreamedAboutBackground({ base, conversationId, user }, "ASK-STREAM background?")
          // Usage of both answers added up (the fake reports 11 + 7 for each).
          expect(JSON.parse(events.filter((e) => e.event === "usage").at(-1)!.data)).toEqual({
            inputTokens: 22,
            outputTokens: 14
          })
        }))

      it.effect("past GATEWAY_TOOL_MAX_CYCLES: 422 TOOL_CYCLES_EXCEEDED, the last calls not run, the whole trace kept", () =>
        Effect.gen(function*() {
          const { ask, base, conversationId, fake, user } = yield* setup("loop-bound")
          fake.respond((body) =>
            JSON.stringify(body).includes("LOOP-FOREVER")
              ? { toolCalls: [{ name: "document_page_text", arguments: { pageNumber: 1 } }] }
              : undefined
          )
          const reply = yield* ask("LOOP-FOREVER read page one again and again")
          expectErrorBody(reply, 422, "TOOL_CYCLES_EXCEEDED")
          expect(reply.json.message).toContain(`after ${MAX_CYCLES} cycles`)
          // The model was asked once more than the bound, and the last calls were not run.
          expect(asked(fake, "LOOP-FOREVER")).toHaveLength(MAX_CYCLES + 1)
          const list = yield* call(`${base}/api/v1/requests?conversation=${conversationId}`, { headers: user })
          const [failed] = list.json.content
          expect(failed.status).toBe("FAILED")
          expect(failed.errorMessage).toContain("cycles")
          expect(failed.toolCalls.map((c: { cycle: number }) => c.cycle)).toEqual([1, 2, 3])
          expect(failed.toolCalls[0].result.text).toContain("Introduction")
          expect(failed.toolCalls[2].error).toContain("Not run")

          // Streamed: the same bound, as an error event.
          const streamed = yield* readEvents(
            `${base}/api/v1/requests/stream`,
            json(user, {
              conversation: conversationId,
              inputs: [{ role: "user", content: [{ type: "text", value: "LOOP-FOREVER streamed" }] }]
            })
          )
          const error = streamed.events.find((e) => e.event === "error")
          expect(JSON.parse(error!.data)).toMatchObject({ code: "TOOL_CYCLES_EXCEEDED", status: 422 })
          expect(streamed.events.filter((e) => e.event === "tool-call")).toHaveLength(MAX_CYCLES + 1)
        }))

      it.effect("disableReasoning=true: no tools offered, the answer comes without them; a model without tools cannot read the document (422)", () =>
        Effect.gen(function*() {
          const { ask, base, fake, user } = yield* setup("no-reasoning")
          fake.scriptWhen("PLAIN-ANSWER", { text: "From what I know." })
          const reply = yield* ask("PLAIN-ANSWER no tools please", "?disableReasoning=true")
          expect(reply.status, reply.text).toBe(201)
          expect(reply.json.response).toBe("From what I know.")
          expect(reply.json.toolCalls).toEqual([])
          expect(asked(fake, "PLAIN-ANSWER")[0]!.body.tools).toBeUndefined()

          const plain = yield* call(
            `${base}/api/v1/admin/llm/provider-conf`,
            json(user, { id: "plain", type: "openai-compatible", model: "m", baseUrl: `${fake.url}/v1` })
          )
          expect(plain.status).toBe(201)
          expectErrorBody(yield* ask("NO-TOOLS-MODEL", "?provider=plain"), 422, "LLM_CAPABILITY_ERROR")
          expect(asked(fake, "NO-TOOLS-MODEL")).toHaveLength(0)
        }))

      it.effect("a conversation about a document the broker does not have is refused (400)", () =>
        Effect.gen(function*() {
          const base = yield* GatewayUrl
          const reply = yield* call(
            `${base}/api/v1/conversations`,
            json(as("unknown-doc", "u"), { documentId: "nope" })
          )
          expectErrorBody(reply, 400, "BAD_REQUEST")
        }))

      it.effect("a vision model asks for a page image: it gets the PNG as its next message", () =>
        Effect.gen(function*() {
          const { ask, fake } = yield* setup("vision", { tools: true, vision: true })
          fake.respond((body) => {
            if (!JSON.stringify(body).includes("LOOK-AT-PAGE")) return undefined
            return last(body).role === "user" && Array.isArray(last(body).content)
              ? { text: "A heading and one line [p. 1]." }
              : { toolCalls: [{ name: "document_page_image", arguments: { pageNumber: 1 } }] }
          })
          const reply = yield* ask("LOOK-AT-PAGE what does page one look like?")
          expect(reply.status, reply.text).toBe(201)
          expect(reply.json.toolCalls[0]).toMatchObject({ tool: "document_page_image", result: { pageNumber: 1 } })
          const [, second] = asked(fake, "LOOK-AT-PAGE")
          const image = last(second!.body).content.find((p: { type: string }) => p.type === "image_url")
          const png = Buffer.from(image.image_url.url.replace(/^data:image\/png;base64,/, ""), "base64")
          expect(png.subarray(1, 4).toString("latin1")).toBe("PNG")
          expect(png.readUInt32BE(16)).toBe(1024)
        }))

      it.effect("plan executions: an AGENT node loops over its native tools, a TOOL node calls one", () =>
        Effect.gen(function*() {
          const { base, documentId, fake, user } = yield* setup("plan-tools")
          searchThenAnswer(fake, "AGENT-SEARCH", "Motivation", "Page 3 covers it [p. 3].")
          const agent = yield* call(
            `${base}/api/v1/admin/agent/agent-conf`,
            json(user, { title: "Reader", instructions: "AGENT-SEARCH the document.", tools: ["document_search"] })
          )
          expect(agent.status, agent.text).toBe(201)
          const plan = yield* call(
            `${base}/api/v1/admin/plans`,
            json(user, {
              title: "Read",
              nodes: [
                { id: "outline", type: "TOOL", tool: "document_outline" },
                { id: "find", type: "AGENT", agentId: agent.json.id, input: "Where is the motivation?" }
              ]
            })
          )
          expect(plan.status, plan.text).toBe(201)
          const execution = yield* runToEnd(base, user, plan.json.id, { documentId })
          expect(execution.state, JSON.stringify(execution)).toBe("COMPLETED")
          const node = (id: string) => nodeOf(execution, id)
          expect(node("outline").output.result).toMatchObject({ pageCount: 9 })
          expect(node("outline").output.result.outline[0]).toMatchObject({ title: "1. Introduction", pageNumber: 1 })
          expect(node("find").output.text).toBe("Page 3 covers it [p. 3].")
          expect(node("find").output.toolCalls[0]).toMatchObject({
            tool: "document_search",
            arguments: { query: "Motivation" }
          })
        }))

      it.effect("an agent naming a tool that does not exist is refused (400)", () =>
        Effect.gen(function*() {
          const base = yield* GatewayUrl
          const reply = yield* call(
            `${base}/api/v1/admin/agent/agent-conf`,
            json(as("bad-agent", "u"), { title: "Bad", instructions: "x", tools: ["document_search", "teleport"] })
          )
          expectErrorBody(reply, 400, "BAD_REQUEST")
          expect(reply.json.message).toContain("unknown tool 'teleport'")
        }))
    })
  })
}
