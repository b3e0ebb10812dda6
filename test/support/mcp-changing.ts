/**
 * An MCP server on loopback whose tool list changes while clients are connected, over streamable
 * HTTP (the SDK's own server and transport): it starts with the tool `grow`, and calling `grow`
 * adds the tool `added`, which the SDK announces to connected clients as
 * `notifications/tools/list_changed`. What the reference server cannot be made to do on demand.
 * Closed when the scope closes.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] })

/** One server per session, as the SDK's examples keep them; `grow` adds to the session's own list. */
const sessionServer = () => {
  const server = new McpServer({ name: "changing", version: "1.0.0" }, {
    capabilities: { tools: { listChanged: true } }
  })
  let grown = false
  server.registerTool("grow", { description: "Adds the tool 'added' to this server." }, () => {
    if (!grown) {
      grown = true
      server.registerTool("added", { description: "The tool 'grow' added." }, () => text("added"))
    }
    return text("grown")
  })
  return server
}

export const startChangingMcpServer = Effect.gen(function*() {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const http = createServer(async (req, res) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown : undefined
    const id = req.headers["mcp-session-id"]
    let transport = typeof id === "string" ? sessions.get(id) : undefined
    if (transport === undefined && isInitializeRequest(body)) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (session) => void sessions.set(session, created)
      })
      await sessionServer().connect(created)
      transport = created
    }
    if (transport === undefined) {
      res.writeHead(404).end()
      return
    }
    await transport.handleRequest(req, res, body)
  })
  yield* Effect.acquireRelease(
    Effect.promise(() => new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()))),
    () =>
      Effect.promise(async () => {
        await Promise.allSettled([...sessions.values()].map((transport) => transport.close()))
        http.closeAllConnections()
        await new Promise<void>((resolve) => http.close(() => resolve()))
      })
  )
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` }
})
