/**
 * WebSockets as a client opens them: undici's WebSocket (a browser's API, with headers as a proxy
 * would add them) collecting the JSON messages it receives, and a bare upgrade request that shows
 * what a refused handshake answered (status and error body), which a WebSocket never tells.
 */
import { Effect } from "effect"
import { request } from "node:http"
import { WebSocket } from "undici"

export interface Channel {
  readonly messages: Array<any>
  /** Whether the handshake succeeded. */
  readonly opened: () => boolean
  /** Whether the server closed it (or the handshake failed). */
  readonly closed: () => boolean
  readonly close: () => void
}

/** Opens `url` (ws://…) and waits for the handshake to end either way; closed with the scope. */
export const openChannel = (url: string, headers: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.async<Channel>((resume) => {
      const socket = new WebSocket(url, { headers })
      const messages: Array<any> = []
      let opened = false
      let closed = false
      const channel = { messages, opened: () => opened, closed: () => closed, close: () => socket.close() }
      socket.addEventListener("close", () => (closed = true))
      socket.addEventListener("message", (event) => messages.push(JSON.parse(String(event.data))))
      socket.addEventListener("open", () => {
        opened = true
        resume(Effect.succeed(channel))
      })
      socket.addEventListener("error", () => resume(Effect.succeed(channel)))
    }),
    (channel) => Effect.sync(channel.close)
  )

/** A WebSocket handshake with plain HTTP: 101 when accepted, else the status and JSON body of the refusal. */
export const handshake = (url: string, headers: Record<string, string>) =>
  Effect.async<{ status: number; json: any }>((resume) => {
    // A connection of its own: an upgraded one never goes back to a pool.
    const call = request(url, {
      agent: false,
      headers: {
        ...headers,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ=="
      }
    })
    call.on("upgrade", (response, socket) => {
      socket.destroy()
      resume(Effect.succeed({ status: response.statusCode!, json: undefined }))
    })
    call.on("response", (response) => {
      let body = ""
      response.on("data", (chunk) => (body += chunk))
      response.on("end", () => resume(Effect.succeed({ status: response.statusCode!, json: JSON.parse(body) })))
    })
    call.on("error", (error) => resume(Effect.die(error)))
    call.end()
  })
