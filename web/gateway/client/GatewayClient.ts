/**
 * Every call the web components make to the gateway, in one place: the identity (a bearer token
 * when the page has one; otherwise the authenticating proxy adds it), JSON in and out, the spec's
 * error body turned into a GatewayError, and a streamed answer read as server-sent events.
 */
import { createParser } from "eventsource-parser"

/** The spec's error body, thrown for every non-2xx answer. */
export class GatewayError extends Error {
  constructor(readonly code: string, message: string, readonly status: number) {
    super(message)
  }
}

export type ContentItem =
  | { readonly type: "text"; readonly value: string }
  | { readonly type: "prompt"; readonly value: string; readonly payload?: Record<string, unknown> }
  | { readonly type: "image"; readonly value: string }

/** An event of a streamed answer (docs/gateway-requests.md). */
export interface StreamEvent {
  readonly event: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each event's own JSON (docs/gateway-requests.md)
  readonly data: any
}

export interface PromptDisplay {
  readonly id: string
  readonly label: string
  readonly icon: string | null
  readonly order: number | null
  readonly category: string | null
  readonly description: string | null
}

/** An item of a question as the gateway keeps it: prompts rendered into text, images as base64. */
export type StoredItem =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly mediaType: string; readonly data: string }

/** A request of a conversation as the gateway keeps it: the fields the chat shows. */
export interface StoredRequest {
  readonly id: string
  readonly status: "RUNNING" | "COMPLETED" | "STOPPED" | "FAILED"
  readonly inputs: ReadonlyArray<{ readonly content: ReadonlyArray<StoredItem> }>
  readonly response: string
  readonly feedback: "GOOD" | "BAD" | null
  readonly errorMessage: string | null
  /** Set when a retry answered the question again: that turn is no longer part of the conversation. */
  readonly replacedBy: string | null
}

export interface GatewayClientOptions {
  /** The gateway's address; the page's own origin when empty. */
  readonly baseUrl: string
  /** A JWT, when the gateway verifies tokens (GATEWAY_AUTH=jwt). */
  readonly token?: string | undefined
}

const errorOf = async (response: Response) => {
  const body = await response.json().catch(() => undefined)
  return new GatewayError(
    body?.code ?? "INTERNAL_ERROR",
    body?.message ?? `${response.status} ${response.statusText}`,
    body?.status ?? response.status
  )
}

export class GatewayClient {
  constructor(private readonly options: GatewayClientOptions) {}

  private url(path: string) {
    return `${this.options.baseUrl.replace(/\/+$/, "")}${path}`
  }

  private async call(path: string, init: RequestInit = {}, body?: unknown) {
    const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" }
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`
    const response = await fetch(this.url(path), {
      ...init,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    if (!response.ok) throw await errorOf(response)
    return response
  }

  /** GET a JSON resource. */
  async get<T>(path: string): Promise<T> {
    return (await this.call(path)).json() as Promise<T>
  }

  /** Asks a question in `conversationId` (a new conversation when absent); each event as it arrives. */
  async ask(
    content: ReadonlyArray<ContentItem>,
    conversationId: string | undefined,
    onEvent: (event: StreamEvent) => void,
    signal: AbortSignal
  ) {
    const response = await this.call(
      "/api/v1/requests/stream",
      { method: "POST", signal },
      { ...(conversationId ? { conversation: conversationId } : {}), inputs: [{ role: "user", content }] }
    )
    const parser = createParser({
      onEvent: ({ data, event }) => onEvent({ event: event ?? "message", data: JSON.parse(data) })
    })
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      parser.feed(value)
    }
  }

  /** Stops the generation in progress in the conversation. */
  async stop(conversationId: string) {
    await this.call(`/api/v1/conversations/${encodeURIComponent(conversationId)}/stop`, { method: "POST" })
  }

  async feedback(requestId: string, feedback: "GOOD" | "BAD") {
    await this.call(`/api/v1/requests/${encodeURIComponent(requestId)}/feedback/${feedback}`, { method: "PUT" })
  }

  /** Every request of the conversation, oldest first, read page after page. */
  async requestsOf(conversationId: string) {
    const all: Array<StoredRequest> = []
    for (let page = 0;; page++) {
      const found = await this.get<{ readonly content: ReadonlyArray<StoredRequest>; readonly totalPages: number }>(
        `/api/v1/requests?conversation=${encodeURIComponent(conversationId)}&page=${page}&size=100`
      )
      all.push(...found.content)
      if (page + 1 >= found.totalPages) return all
    }
  }

  /** The Quick Prompt buttons of the current user. */
  quickPrompts() {
    return this.get<ReadonlyArray<PromptDisplay>>("/api/v1/prompts/display")
  }
}
