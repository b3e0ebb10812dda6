/**
 * The calls of one answer run at once (GATEWAY_TOOL_CONCURRENCY): a model that asks for two tools
 * in one answer waits for the slower, not for both one after the other. Seen through an MCP server
 * whose tool answers "met" only while another call of it runs at the same time; the trace keeps
 * the calls in the order the model made them, whichever ended first, and a call cut off by a stop.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { gatewayTestLayer } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { FakeLlmServer } from "../../support/fake-llm.ts"
import { json, mcpTenant, readEvents } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"
import { startMeetingMcpServer } from "../../support/mcp-changing.ts"

const gateway = (concurrency: string) =>
  Layer.provideMerge(
    gatewayTestLayer({ ...defaultBackend.config, GATEWAY_TOOL_CONCURRENCY: concurrency }),
    FakeLlmServer.layer
  )

/** The answer's two calls of `meet` and what each returned, in the trace's order. */
const meetTwice = (tenant: string) =>
  Effect.gen(function*() {
    const server = yield* startMeetingMcpServer
    const { ask, fake } = yield* mcpTenant(tenant, "meeting", server.url)
    fake.respond((body) => {
      if (!JSON.stringify(body).includes("MEET-TWICE")) return undefined
      return body.messages.at(-1).role === "tool"
        ? { text: "Both answered." }
        : {
          toolCalls: [
            { name: "mcp_meeting_meet", arguments: { who: "first" } },
            { name: "mcp_meeting_meet", arguments: { who: "second" } }
          ]
        }
    })
    const reply = yield* ask("MEET-TWICE please")
    expect(reply.response).toBe("Both answered.")
    return reply.toolCalls.map((c: { arguments: unknown; result: unknown }) => [c.arguments, c.result])
  })

layer(gateway("4"), { timeout: 60_000 })("calls of one answer, GATEWAY_TOOL_CONCURRENCY 4", (it) => {
  it.scoped("run at the same time, and the trace keeps the model's order", () =>
    Effect.gen(function*() {
      expect(yield* meetTwice("together")).toEqual([[{ who: "first" }, "met"], [{ who: "second" }, "met"]])
    }))
})

layer(gateway("4"), { timeout: 60_000 })("a call under way when the generation is stopped", (it) => {
  it.scoped("stays in the trace as not answered", () =>
    Effect.gen(function*() {
      const server = yield* startMeetingMcpServer
      const { base, fake, headers } = yield* mcpTenant("stopping", "meeting", server.url)
      fake.respond((body) => {
        if (!JSON.stringify(body).includes("MEET-STOP")) return undefined
        return body.messages.at(-1).role === "tool"
          ? { text: "Too late." }
          : { toolCalls: [{ name: "mcp_meeting_meet", arguments: { who: "only" } }] }
      })
      let conversationId = ""
      const stopped = yield* readEvents(
        `${base}/api/v1/requests/stream`,
        json(headers, { inputs: [{ role: "user", content: [{ type: "text", value: "MEET-STOP now" }] }] }),
        (event) => {
          if (event.event === "start") conversationId = JSON.parse(event.data).conversationId
          if (event.event === "tool-call") {
            // Stopped once the call has reached the server (its wait for company lasts seconds).
            void (async () => {
              while (server.meeting() < 1) await new Promise((resolve) => setTimeout(resolve, 10))
              await fetch(`${base}/api/v1/conversations/${conversationId}/stop`, { method: "POST", headers })
            })()
          }
        }
      )
      const done = JSON.parse(stopped.events.at(-1)!.data)
      expect(done.status).toBe("STOPPED")
      const kept = (yield* call(`${base}/api/v1/requests/${done.requestId}`, { headers })).json
      expect(kept.status).toBe("STOPPED")
      expect(kept.toolCalls).toEqual([
        {
          cycle: 1,
          tool: "mcp:meeting/meet",
          arguments: { who: "only" },
          error: "Stopped before it answered",
          durationMs: 0
        }
      ])
    }))
})

layer(gateway("1"), { timeout: 60_000 })("calls of one answer, GATEWAY_TOOL_CONCURRENCY 1", (it) => {
  it.scoped("run one after the other", () =>
    Effect.gen(function*() {
      expect(yield* meetTwice("apart")).toEqual([[{ who: "first" }, "alone"], [{ who: "second" }, "alone"]])
    }))
})
