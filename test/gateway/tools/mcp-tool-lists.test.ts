/**
 * An MCP server's tool list as the gateway keeps it (GATEWAY_MCP_TOOL_LIST_TTL), seen on the wire:
 * asked once for several requests that offer the server's tools, asked afresh by the connection
 * test and once the kept list is older than the setting, and dropped at once when the server says
 * its tools changed (`notifications/tools/list_changed`), so the next request offers the new tool.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { gatewayTestLayer } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { startCountingProxy } from "../../support/counting-proxy.ts"
import { type FakeLlm, FakeLlmServer } from "../../support/fake-llm.ts"
import { mcpTenant } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"
import { startChangingMcpServer } from "../../support/mcp-changing.ts"
import { startEverything } from "../../support/mcp-everything.ts"
import { sleep } from "../../support/processes.ts"

const gateway = (toolListTtl: string) =>
  Layer.provideMerge(
    gatewayTestLayer({ ...defaultBackend.config, GATEWAY_MCP_TOOL_LIST_TTL: toolListTtl }),
    FakeLlmServer.layer
  )

/** The tool names offered by the last request the fake received for `marker`. */
const offered = (fake: FakeLlm, marker: string): Array<string> =>
  fake.requests.filter((r) => JSON.stringify(r.body).includes(marker)).at(-1)!.body.tools.map((t: any) =>
    t.function.name
  )

const TTL_MS = 1500

layer(gateway(`${TTL_MS} millis`), { timeout: 120_000 })("a kept tool list expires", (it) => {
  it.scoped("asked once for several requests, afresh by the connection test and once it is older than the setting", () =>
    Effect.gen(function*() {
      const server = yield* startEverything("streamableHttp")
      const proxy = yield* startCountingProxy(server.url)
      const { ask, base, fake, headers } = yield* mcpTenant("kept", "counted", proxy.url)
      fake.scriptWhen("KEPT-LIST", { text: "Nothing to call." })
      yield* ask("KEPT-LIST one")
      yield* ask("KEPT-LIST two")
      yield* ask("KEPT-LIST three")
      expect(proxy.count("tools/list")).toBe(1)
      // Every request was offered the server's tools all the same.
      expect(offered(fake, "KEPT-LIST")).toContain("mcp_counted_echo")
      expect((yield* call(`${base}/api/v1/admin/mcp/mcp-conf/counted/tools`, { headers })).status).toBe(200)
      expect(proxy.count("tools/list")).toBe(2)
      yield* sleep(TTL_MS + 200)
      yield* ask("KEPT-LIST four")
      expect(proxy.count("tools/list")).toBe(3)
    }))
})

layer(gateway("10 minutes"), { timeout: 120_000 })("a changed tool list", (it) => {
  it.scoped("the server's list_changed drops the kept list: the next request offers the new tool", () =>
    Effect.gen(function*() {
      const server = yield* startChangingMcpServer
      const proxy = yield* startCountingProxy(server.url)
      const { ask, fake } = yield* mcpTenant("changing", "changing", proxy.url)
      fake.respond((body) => {
        const text = JSON.stringify(body)
        if (!text.includes("GROW-IT")) return undefined
        return body.messages.at(-1).role === "tool"
          ? { text: "Grown." }
          : { toolCalls: [{ name: "mcp_changing_grow", arguments: {} }] }
      })
      fake.scriptWhen("AFTER-GROWTH", { text: "Fine." })
      const grown = yield* ask("GROW-IT now")
      expect(grown.toolCalls.map((c: { tool: string; result: unknown }) => [c.tool, c.result])).toEqual([
        ["mcp:changing/grow", "grown"]
      ])
      expect(offered(fake, "GROW-IT")).toEqual(["mcp_changing_grow"])
      expect(proxy.count("tools/list")).toBe(1)
      // The notification comes on the server's own stream, a moment after the call's answer: asked
      // again until a request offers the new tool (the kept list would last ten minutes).
      let tools: Array<string> = []
      for (let attempt = 0; attempt < 20 && !tools.includes("mcp_changing_added"); attempt++) {
        yield* sleep(100)
        yield* ask(`AFTER-GROWTH ${attempt}`)
        tools = offered(fake, "AFTER-GROWTH")
      }
      expect(tools.sort()).toEqual(["mcp_changing_added", "mcp_changing_grow"])
      expect(proxy.count("tools/list")).toBe(2)
    }))
})
