/**
 * MCP servers on loopback that do what the reference server cannot be made to do on demand, over
 * streamable HTTP (the SDK's own server and transport), each closed when the scope closes:
 *  - one whose tool list changes while clients are connected: it starts with the tool `grow`, and
 *    calling `grow` adds the tool `added`, which the SDK announces to connected clients as
 *    `notifications/tools/list_changed`;
 *  - one whose tool `meet` answers "met" only while another call of it is under way at the same
 *    time ("alone" after MEETING_WAIT_MS otherwise): calls that run one after the other never meet.
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
const changingServer = () => {
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

const MEETING_WAIT_MS = 3000

/** The sessions' servers share `present`: the calls of `meet` under way, whichever session made them. */
const meetingServer = (present: { count: number }) => () => {
  const server = new McpServer({ name: "meeting", version: "1.0.0" })
  server.registerTool(
    "meet",
    { description: "Answers 'met' when another call of it runs at the same time." },
    async () => {
      present.count++
      const until = Date.now() + MEETING_WAIT_MS
      while (present.count < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10))
      const met = present.count >= 2
      // Left a moment before leaving, so that the other call sees this one too.
      await new Promise((resolve) => setTimeout(resolve, 50))
      present.count--
      return text(met ? "met" : "alone")
    }
  )
  return server
}

/** Serves a new server from `sessionServer` for each MCP session; its URL. */
const startMcpServer = (sessionServer: () => McpServer) =>
  Effect.gen(function*() {
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

export const startChangingMcpServer = startMcpServer(changingServer)

/** Its URL, and how many calls of `meet` are under way now. */
export const startMeetingMcpServer = Effect.suspend(() => {
  const present = { count: 0 }
  return startMcpServer(meetingServer(present)).pipe(
    Effect.map((server) => ({ ...server, meeting: () => present.count }))
  )
})
