/**
 * The gateway section's requests, straight to the fake and through the gateway, whole, streamed and
 * in conversations, and whole answers through Portkey: each answer checked, and each tagged question remembered so that the fake's own
 * time on it can be taken off what the client saw.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser"
import type { Fake } from "./fake-llm.ts"
import { keepAliveAgent, latencies, post, type Send } from "./load.ts"
import { portkeyHeaders } from "./portkey.ts"

/** The answer the fake is scripted to give, checked word for word. */
export const TEXT = "Hello from the fake LLM: a short answer sent in five chunks."
export const PRINCIPAL = { "x-tenant-id": "bench", "x-user-id": "u1" }
/** Requests per conversation in the follow-up run (the first opens it). */
export const TURNS = 10

/** Reads a server-sent event stream as it arrives: the tokens (and when the first came) and whether it finished. */
const eventReader = (
  token: (event: EventSourceMessage) => string | undefined,
  finished: (event: EventSourceMessage) => boolean
) => {
  const state = { text: "", firstAt: undefined as number | undefined, done: false }
  const parser = createParser({
    onEvent: (event) => {
      const piece = token(event)
      if (piece) {
        state.firstAt ??= performance.now()
        state.text += piece
      }
      if (finished(event)) state.done = true
    }
  })
  return { state, feed: (chunk: string) => parser.feed(chunk) }
}

export const fail = (what: string, status: number, body: string): never => {
  throw new Error(`${what} answered ${status}: ${body.slice(0, 200)}`)
}

/** What a client saw of one tagged request: to the last byte, and to the first token of a stream. */
interface Seen {
  readonly ms: number
  readonly firstMs: number | undefined
}

/** The requests of each target and mode, each checked and, when tagged, remembered for the overhead. */
export const requests = (fakeUrl: string, gatewayUrl: string, portkeyUrl: string, concurrency: number) => {
  const direct = keepAliveAgent(concurrency)
  const gateway = keepAliveAgent(concurrency)
  const portkey = keepAliveAgent(concurrency)
  const completions = new URL(`${fakeUrl}/v1/chat/completions`)
  const portkeyCompletions = new URL(`${portkeyUrl}/v1/chat/completions`)
  const toFakeThroughPortkey = portkeyHeaders(`${fakeUrl}/v1`)
  const ask = new URL(`${gatewayUrl}/api/v1/requests`)
  const askStream = new URL(`${gatewayUrl}/api/v1/requests/stream`)
  let counter = 0
  const seen = new Map<string, Seen>()
  const question = () => {
    const tag = (counter++).toString(36)
    return { tag, text: `Hi q#${tag}` }
  }
  const directBody = (text: string, stream: boolean) =>
    JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: text }],
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {})
    })
  const gatewayBody = (text: string) =>
    JSON.stringify({ inputs: [{ role: "user", content: [{ type: "text", value: text }] }] })

  /** A whole Chat Completions answer, from the fake itself or through Portkey (the same body, the same answer). */
  const chatCompletion = (
    what: string,
    agent: typeof direct,
    url: URL,
    headers: Record<string, string>
  ): Send =>
  async (_, startedAt) => {
    const { tag, text } = question()
    const answer = await post(agent, url, directBody(text, false), headers, startedAt)
    if (
      answer.status !== 200 ||
      (JSON.parse(answer.body) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content !==
        TEXT
    ) {
      fail(what, answer.status, answer.body)
    }
    seen.set(tag, { ms: answer.ms, firstMs: undefined })
    return { ms: answer.ms }
  }
  const directWhole = chatCompletion("The fake", direct, completions, {})

  /** Through the gateway, in the given conversation or a new one; answers with the conversation too. */
  const gatewayWhole = async (startedAt: number, conversationId?: string) => {
    const { tag, text } = question()
    const url = conversationId === undefined
      ? ask
      : new URL(`${ask.href}?conversationId=${encodeURIComponent(conversationId)}`)
    const answer = await post(gateway, url, gatewayBody(text), PRINCIPAL, startedAt)
    const record = answer.status === 201
      ? (JSON.parse(answer.body) as { status: string; response: string; conversationId: string })
      : undefined
    if (record?.status !== "COMPLETED" || record.response !== TEXT) {
      fail("POST /api/v1/requests", answer.status, answer.body)
    }
    seen.set(tag, { ms: answer.ms, firstMs: undefined })
    return { ms: answer.ms, conversationId: record!.conversationId, tag }
  }

  const streamedRequest = async (
    agent: typeof direct,
    url: URL,
    body: string,
    headers: Record<string, string>,
    startedAt: number,
    tag: string,
    reader: ReturnType<typeof eventReader>
  ) => {
    const answer = await post(agent, url, body, headers, startedAt, reader.feed)
    if (
      answer.status !== 200 || !reader.state.done || reader.state.text !== TEXT || reader.state.firstAt === undefined
    ) {
      fail(
        `The stream of ${url.pathname} (${reader.state.done ? "finished" : "unfinished"}, text ${
          JSON.stringify(reader.state.text.slice(0, 40))
        })`,
        answer.status,
        answer.body.slice(-200)
      )
    }
    const firstMs = reader.state.firstAt! - startedAt
    seen.set(tag, { ms: answer.ms, firstMs })
    return { ms: answer.ms, firstMs }
  }

  const directStream: Send = (_, startedAt) => {
    const { tag, text } = question()
    return streamedRequest(
      direct,
      completions,
      directBody(text, true),
      {},
      startedAt,
      tag,
      eventReader(
        (event) => (event.data === "[DONE]"
          ? undefined
          : (JSON.parse(event.data) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta
            ?.content),
        (event) => event.data === "[DONE]"
      )
    )
  }

  const gatewayStream: Send = (_, startedAt) => {
    const { tag, text } = question()
    return streamedRequest(
      gateway,
      askStream,
      gatewayBody(text),
      PRINCIPAL,
      startedAt,
      tag,
      eventReader(
        (event) => (event.event === "delta" ? (JSON.parse(event.data) as { text: string }).text : undefined),
        (event) => event.event === "done" && (JSON.parse(event.data) as { status: string }).status === "COMPLETED"
      )
    )
  }

  /** Each client's conversation and how many requests it holds; the follow-ups are the ones timed. */
  const conversations = new Map<number, { id: string; turns: number }>()
  const openings = new Set<string>()
  const gatewayConversation: Send = async (client, startedAt) => {
    let current = conversations.get(client)
    if (current === undefined || current.turns >= TURNS) {
      const opened = await gatewayWhole(startedAt)
      // Its own tag: other clients have asked meanwhile, so the counter has moved on.
      openings.add(opened.tag)
      current = { id: opened.conversationId, turns: 1 }
      conversations.set(client, current)
      startedAt = performance.now()
    }
    const followUp = await gatewayWhole(startedAt, current.id)
    current.turns++
    return { ms: followUp.ms }
  }

  /**
   * What lay between client and fake on each tagged request of the run just ended (the fake's
   * own time taken off), whole answers and first tokens; the openings of conversations left out.
   */
  const between = async (fake: Fake) => {
    const timings = await fake.timings()
    const whole: Array<number> = []
    const first: Array<number> = []
    for (const [tag, client] of seen) {
      const own = timings[tag]
      if (own === undefined || openings.has(tag)) continue
      whole.push(client.ms - own.totalMs)
      if (client.firstMs !== undefined) first.push(client.firstMs - own.firstTextMs)
    }
    const matched = whole.length
    const unmatched = seen.size - openings.size - matched
    seen.clear()
    openings.clear()
    return { whole: latencies(whole), first: first.length > 0 ? latencies(first) : null, matched, unmatched }
  }

  return {
    direct: { whole: directWhole, stream: directStream },
    // Whole answers only: Portkey 1.15.2 on this @hono/node-server (1.19) answers every stream 500 (it appends a header to the upstream response's immutable Headers).
    portkey: { whole: chatCompletion("Portkey", portkey, portkeyCompletions, toFakeThroughPortkey) },
    gateway: {
      whole: ((_, startedAt) => gatewayWhole(startedAt)) as Send,
      stream: gatewayStream,
      conversation: gatewayConversation
    },
    between,
    forget: () => {
      seen.clear()
      openings.clear()
    },
    destroy: () => {
      direct.destroy()
      gateway.destroy()
      portkey.destroy()
    }
  }
}
