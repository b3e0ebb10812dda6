/**
 * An HTTP proxy on loopback in front of a JSON-RPC server (an MCP server over streamable HTTP),
 * counting the methods of the requests it passes on: what a test asks of the gateway's MCP client
 * is seen on the wire, not in its code. Answers, streamed ones too (SSE), are passed back as they
 * come. Closed when the scope closes.
 */
import { Effect } from "effect"
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"

export const startCountingProxy = (target: string) =>
  Effect.gen(function*() {
    const to = new URL(target)
    const calls = new Map<string, number>()
    const server = createServer(async (req, res) => {
      const chunks: Array<Buffer> = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const body = Buffer.concat(chunks)
      try {
        const parsed = JSON.parse(body.toString("utf8")) as unknown
        for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
          const method = (message as { method?: unknown })?.method
          if (typeof method === "string") calls.set(method, (calls.get(method) ?? 0) + 1)
        }
      } catch {
        // Not JSON (a GET opening the server's event stream): passed on uncounted.
      }
      const upstream = request(
        {
          host: to.hostname,
          port: to.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: to.host }
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        }
      )
      upstream.on("error", () => res.destroy())
      res.on("close", () => upstream.destroy())
      upstream.end(body)
    })
    yield* Effect.acquireRelease(
      Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))),
      () =>
        Effect.promise(() =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          })
        )
    )
    const { port } = server.address() as AddressInfo
    return {
      /** The proxy's address with the target's path: what the gateway is given. */
      url: `http://127.0.0.1:${port}${to.pathname}`,
      /** How many requests called `method` so far. */
      count: (method: string) => calls.get(method) ?? 0
    }
  })
