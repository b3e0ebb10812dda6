/**
 * MCP servers as a client sees them, against the real @modelcontextprotocol/server-everything
 * (pinned) started by the test: CRUD at /api/v1/admin/mcp/mcp-conf with every status,
 * GET /{id}/tools as a connection test (streamable HTTP, SSE as the fallback, stdio only when
 * enabled), a server that forgot the client's session (restarted) answered by a new client, its
 * `echo` tool called by a request's tool loop, by an agent and by a TOOL node of a plan.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { backends } from "../../support/backends.ts"
import { type FakeLlm, FakeLlmServer } from "../../support/fake-llm.ts"
import { as, expectErrorBody, json, useFakeProvider } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"
import { EVERYTHING_ENTRY, startEverything } from "../../support/mcp-everything.ts"
import { nodeOf, runToEnd } from "../../support/plan-executions.ts"

const gateway = (config: Readonly<Record<string, string>>) =>
  Layer.provideMerge(
    gatewayTestLayer({ ...config, PLAN_EXECUTION_POLL_INTERVAL: "100 millis", LLM_RETRY_BASE_DELAY: "10 millis" }),
    FakeLlmServer.layer
  )

const asked = (fake: FakeLlm, marker: string) => fake.requests.filter((r) => JSON.stringify(r.body).includes(marker))
const last = (body: any) => body.messages[body.messages.length - 1]

const admin = (tenant: string) => as(tenant, "admin")
const mcpConf = (base: string) => `${base}/api/v1/admin/mcp/mcp-conf`

const register = (tenant: string, body: unknown) =>
  Effect.flatMap(GatewayUrl, (base) => call(mcpConf(base), json(admin(tenant), body)))

for (const backend of backends) {
  describe(`MCP servers (${backend.name})`, () => {
    layer(gateway(backend.config), { timeout: 120_000 })("gateway", (it) => {
      it.effect("CRUD: 201, 200, 204; headers masked; 409 for an id that exists; 404 MCP_SERVER_NOT_FOUND; 400 for what a transport lacks or a stdio server", () =>
        Effect.gen(function*() {
          const base = yield* GatewayUrl
          const headers = admin("crud")
          const created = yield* register("crud", {
            id: "search",
            name: "Search",
            url: "http://127.0.0.1:9/mcp",
            headers: { authorization: "Bearer secret-token" }
          })
          expect(created.status, created.text).toBe(201)
          expect(created.json).toMatchObject({
            id: "search",
            name: "Search",
            transport: "http",
            url: "http://127.0.0.1:9/mcp",
            headers: { authorization: "****" },
            useInRequests: false
          })
          expect(created.text).not.toContain("secret-token")
          expectErrorBody(yield* register("crud", { id: "search", url: "http://127.0.0.1:9/mcp" }), 409, "CONFLICT")
          expect((yield* call(mcpConf(base), { headers })).json.map((s: { id: string }) => s.id)).toEqual(["search"])
          const updated = yield* call(
            `${mcpConf(base)}/search`,
            json(headers, { transport: "sse", url: "http://127.0.0.1:9/sse", useInRequests: true }, "PUT")
          )
          expect(updated.status, updated.text).toBe(200)
          expect(updated.json).toMatchObject({
            transport: "sse",
            headers: { authorization: "****" },
            useInRequests: true
          })
          expect((yield* call(`${mcpConf(base)}/search`, { headers })).json.url).toBe("http://127.0.0.1:9/sse")
          // Another tenant does not see it.
          expectErrorBody(
            yield* call(`${mcpConf(base)}/search`, { headers: admin("other") }),
            404,
            "MCP_SERVER_NOT_FOUND"
          )
          expectErrorBody(yield* register("crud", { id: "nourl" }), 400, "BAD_REQUEST")
          const stdio = yield* register("crud", { id: "local", transport: "stdio", command: "node" })
          expectErrorBody(stdio, 400, "BAD_REQUEST")
          expect(stdio.json.message).toContain("GATEWAY_MCP_STDIO_ENABLED")
          expectErrorBody(yield* register("crud", { id: "bad id!", url: "http://x/mcp" }), 400, "BAD_REQUEST")
          expect((yield* call(`${mcpConf(base)}/search`, { method: "DELETE", headers })).status).toBe(204)
          expectErrorBody(
            yield* call(`${mcpConf(base)}/search`, { method: "DELETE", headers }),
            404,
            "MCP_SERVER_NOT_FOUND"
          )
          expectErrorBody(yield* call(`${mcpConf(base)}/search/tools`, { headers }), 404, "MCP_SERVER_NOT_FOUND")
        }))

      it.scoped("GET /{id}/tools: streamable HTTP, SSE when the server speaks only that, a server away is an error naming it", () =>
        Effect.gen(function*() {
          const base = yield* GatewayUrl
          const headers = admin("connect")
          const streamable = yield* startEverything("streamableHttp")
          const sse = yield* startEverything("sse")
          expect((yield* register("connect", { id: "everything", url: streamable.url })).status).toBe(201)
          expect((yield* register("connect", { id: "old", url: sse.url })).status).toBe(201)
          expect((yield* register("connect", { id: "away", url: "http://127.0.0.1:9/mcp" })).status).toBe(201)

          const tools = yield* call(`${mcpConf(base)}/everything/tools`, { headers })
          expect(tools.status, tools.text).toBe(200)
          expect(tools.json.transport).toBe("streamable-http")
          const echo = tools.json.tools.find((t: { name: string }) => t.name === "mcp:everything/echo")
          expect(echo.description).toBe("Echoes back the input string")
          expect(echo.parameters).toMatchObject({ type: "object", properties: { message: { type: "string" } } })

          const fallback = yield* call(`${mcpConf(base)}/old/tools`, { headers })
          expect(fallback.status, fallback.text).toBe(200)
          expect(fallback.json.transport).toBe("sse")
          expect(fallback.json.tools.map((t: { name: string }) => t.name)).toContain("mcp:old/echo")

          const away = yield* call(`${mcpConf(base)}/away/tools`, { headers })
          expectErrorBody(away, 500, "INTERNAL_ERROR")
          expect(away.json.message).toContain("MCP server 'away'")
        }))

      it.scoped("a server that forgot the session (restarted) is answered by a new client", () =>
        Effect.gen(function*() {
          const base = yield* GatewayUrl
          const headers = admin("session")
          const server = yield* startEverything("streamableHttp")
          expect((yield* register("session", { id: "everything", url: server.url })).status).toBe(201)
          expect((yield* call(`${mcpConf(base)}/everything/tools`, { headers })).status).toBe(200)
          yield* server.restart
          const again = yield* call(`${mcpConf(base)}/everything/tools`, { headers })
          expect(again.status, again.text).toBe(200)
          expect(again.json.tools.map((t: { name: string }) => t.name)).toContain("mcp:everything/echo")
        }))

      it.scoped("its tools in a request's loop (useInRequests), in an agent, in a TOOL node; an agent naming an unknown server is 404", () =>
        Effect.gen(function*() {
          const base = yield* GatewayUrl
          const fake = yield* FakeLlmServer
          const headers = admin("use")
          const server = yield* startEverything("streamableHttp")
          expect((yield* register("use", { id: "everything", url: server.url, useInRequests: true })).status).toBe(201)
          expect((yield* useFakeProvider(base, fake.url, headers, { capabilities: { tools: true } })).status).toBe(201)
          fake.respond((body) => {
            const text = JSON.stringify(body)
            const marker = ["ECHO-REQUEST", "ECHO-AGENT"].find((m) => text.includes(m))
            if (marker === undefined) return undefined
            return last(body).role === "tool"
              ? { text: `The server said: ${last(body).content}` }
              : { toolCalls: [{ name: "mcp_everything_echo", arguments: { message: marker.toLowerCase() } }] }
          })

          const reply = yield* call(
            `${base}/api/v1/requests`,
            json(headers, { inputs: [{ role: "user", content: [{ type: "text", value: "ECHO-REQUEST please" }] }] })
          )
          expect(reply.status, reply.text).toBe(201)
          expect(reply.json.response).toBe("The server said: Echo: echo-request")
          expect(reply.json.toolCalls).toEqual([
            expect.objectContaining({
              cycle: 1,
              tool: "mcp:everything/echo",
              arguments: { message: "echo-request" },
              result: "Echo: echo-request"
            })
          ])
          const offered = asked(fake, "ECHO-REQUEST")[0]!.body.tools.map((t: any) => t.function.name)
          expect(offered).toContain("mcp_everything_echo")
          expect(offered).not.toContain("document_search")

          expectErrorBody(
            yield* call(
              `${base}/api/v1/admin/agent/agent-conf`,
              json(headers, { title: "Nowhere", instructions: "x", tools: ["mcp:nowhere/echo"] })
            ),
            404,
            "MCP_SERVER_NOT_FOUND"
          )
          const agent = yield* call(
            `${base}/api/v1/admin/agent/agent-conf`,
            json(headers, { title: "Echoer", instructions: "ECHO-AGENT", tools: ["mcp:everything/echo"] })
          )
          expect(agent.status, agent.text).toBe(201)
          const plan = yield* call(
            `${base}/api/v1/admin/plans`,
            json(headers, {
              title: "Echoes",
              nodes: [
                { id: "direct", type: "TOOL", tool: "mcp:everything/echo", arguments: { message: "{{input.word}}" } },
                { id: "agent", type: "AGENT", agentId: agent.json.id, input: "Say it." }
              ]
            })
          )
          expect(plan.status, plan.text).toBe(201)
          const execution = yield* runToEnd(base, headers, plan.json.id, { word: "hello" })
          expect(execution.state, JSON.stringify(execution)).toBe("COMPLETED")
          const node = (id: string) => nodeOf(execution, id)
          expect(node("direct").output).toEqual({ result: "Echo: hello" })
          expect(node("agent").output.text).toBe("The server said: Echo: echo-agent")
        }))
    })

    layer(gateway({ ...backend.config, GATEWAY_MCP_STDIO_ENABLED: "true" }), { timeout: 120_000 })(
      "stdio enabled",
      (it) => {
        it.effect("a stdio server is started by the gateway and lists its tools", () =>
          Effect.gen(function*() {
            const base = yield* GatewayUrl
            const created = yield* register("stdio", {
              id: "local",
              transport: "stdio",
              command: process.execPath,
              args: [EVERYTHING_ENTRY, "stdio"]
            })
            expect(created.status, created.text).toBe(201)
            const tools = yield* call(`${mcpConf(base)}/local/tools`, { headers: admin("stdio") })
            expect(tools.status, tools.text).toBe(200)
            expect(tools.json.transport).toBe("stdio")
            expect(tools.json.tools.map((t: { name: string }) => t.name)).toContain("mcp:local/echo")
          }))
      }
    )
  })
}
