/**
 * An HttpClient over node:http(s) keep-alive agents, with as little as possible between a request
 * and its socket: the gateway's calls to LLM providers and the broker's to document providers.
 *
 * @effect/platform's NodeHttpClient took about three times the CPU of a bare node:http request
 * per call on the benchmark machine (two fibers to send the body and await the answer, an
 * AbortController and a FinalizationRegistry entry per response); a provider call is on the path
 * of every gateway request, so this one sends the body and awaits the answer in one callback.
 * (undici, Node's fetch, is not used: on Node 20 it ends the process when a server closes the
 * connection while a body waits to be read, nodejs/undici#5360.)
 *
 * Cancelling: interrupting the call, or the reading of its body, destroys the request, which
 * closes the connection: the server sees its client go away and stops working on it. A body
 * streamed to its end leaves the connection to the agent for the next call.
 */
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Cookies from "@effect/platform/Cookies"
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as UrlParams from "@effect/platform/UrlParams"
import { Effect, Inspectable, Option, type Scope, type Stream } from "effect"
import * as Http from "node:http"
import * as Https from "node:https"

export interface Agents {
  readonly http: Http.Agent
  readonly https: Https.Agent
}

/** Keep-alive agents (Node's default agent closes every connection after its request), destroyed with the scope. */
export const makeAgents: Effect.Effect<Agents, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => ({ http: new Http.Agent({ keepAlive: true }), https: new Https.Agent({ keepAlive: true }) })),
  (agents) =>
    Effect.sync(() => {
      agents.http.destroy()
      agents.https.destroy()
    })
)

/** The bytes of a request body; streamed and form bodies are not sent by this client. */
const bodyBytes = (request: HttpClientRequest.HttpClientRequest): Uint8Array | string | undefined => {
  const body = request.body
  switch (body._tag) {
    case "Empty":
      return undefined
    case "Uint8Array":
      return body.body
    case "Raw":
      return body.body instanceof Uint8Array || typeof body.body === "string" ? body.body : String(body.body)
    case "FormData":
    case "Stream":
      return undefined
  }
}

class NodeResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  private body: Buffer | undefined

  constructor(readonly request: HttpClientRequest.HttpClientRequest, readonly source: Http.IncomingMessage) {
    super()
  }

  private failure = (cause: unknown): HttpClientError.ResponseError =>
    new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })

  get status() {
    return this.source.statusCode ?? 0
  }

  get headers() {
    return Headers.fromInput(this.source.headers as Record<string, string | ReadonlyArray<string>>)
  }

  get cookies() {
    const header = this.source.headers["set-cookie"]
    return Array.isArray(header) ? Cookies.fromSetCookie(header) : Cookies.empty
  }

  get remoteAddress() {
    return Option.fromNullable(this.source.socket?.remoteAddress)
  }

  /** The whole body, read once; interrupting the read closes the connection. */
  private get bytes(): Effect.Effect<Buffer, HttpClientError.ResponseError> {
    if (this.body !== undefined) return Effect.succeed(this.body)
    return Effect.async((resume) => {
      const source = this.source
      const chunks: Array<Buffer> = []
      const onData = (chunk: Buffer) => {
        chunks.push(chunk)
      }
      const onEnd = () => {
        this.body = Buffer.concat(chunks)
        resume(Effect.succeed(this.body))
      }
      const onError = (error: Error) => resume(Effect.fail(this.failure(error)))
      source.on("data", onData)
      source.once("end", onEnd)
      source.once("error", onError)
      return Effect.sync(() => {
        source.off("data", onData)
        source.off("end", onEnd)
        source.off("error", onError)
        if (!source.complete) source.destroy()
      })
    })
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.map(this.bytes, (bytes) => bytes.toString("utf8"))
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(
      this.text,
      (text) => Effect.try({ try: () => (text === "" ? null : JSON.parse(text)) as unknown, catch: this.failure })
    )
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.flatMap(
      this.text,
      (text) => Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(text)), catch: this.failure })
    )
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.map(
      this.bytes,
      (bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
    )
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.fail(this.failure(new Error("Form bodies are not read by this client")))
  }

  /** The body as it arrives; ending or interrupting the stream early closes the connection. */
  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return NodeStream.fromReadable<HttpClientError.ResponseError, Uint8Array>(() => this.source, this.failure)
  }

  toJSON() {
    return { _id: "@effect/platform/HttpClientResponse", request: this.request.toJSON(), status: this.status }
  }
}

const send = (agents: Agents) => (request: HttpClientRequest.HttpClientRequest) =>
  Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
    const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
    if (url._tag === "Left") {
      resume(Effect.fail(new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: url.left })))
      return
    }
    if (request.body._tag === "FormData" || request.body._tag === "Stream") {
      resume(
        Effect.fail(
          new HttpClientError.RequestError({
            request,
            reason: "Encode",
            description: `A ${request.body._tag} body is not sent by this client`
          })
        )
      )
      return
    }
    const options = { method: request.method, headers: request.headers }
    const nodeRequest = url.right.protocol === "https:"
      ? Https.request(url.right, { ...options, agent: agents.https })
      : Http.request(url.right, { ...options, agent: agents.http })
    nodeRequest.once("response", (response) => resume(Effect.succeed(new NodeResponse(request, response))))
    // Kept after the first: a destroyed request may report its socket's end too, and an unheard error would end the process.
    nodeRequest.on(
      "error",
      (cause) => resume(Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause })))
    )
    nodeRequest.end(bodyBytes(request))
    // Interrupted before the answer came: the provider must stop working on it.
    return Effect.sync(() => nodeRequest.destroy())
  })

/** An HttpClient over the agents (for @effect/ai's provider clients, Chat Completions, document providers). */
export const make = (agents: Agents): HttpClient.HttpClient =>
  HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (request) => Effect.flatMap(request, send(agents)),
    Effect.succeed
  )

/**
 * Drops what is left of a response's body (an answer the caller already has in its cache): the
 * connection is closed rather than read to its end.
 */
export const discard = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> =>
  Effect.sync(() => {
    if (response instanceof NodeResponse && !response.source.complete) response.source.destroy()
  })
