/**
 * The `openai` and `anthropic` provider types through the gateway: the real `@effect/ai-openai`
 * (Responses API) and `@effect/ai-anthropic` (Messages API) clients against a fake server on
 * loopback speaking those protocols. Each case runs for both: the request on the wire (path, key
 * header, model, history, image, parameters), a whole answer with usage, a stream forwarded as it
 * arrives, a rejected request, throttling retried, and a stop that closes the upstream connection.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { eventually, type FakeLlm, FakeLlmServer } from "../../support/fake-llm.ts"
import { as, expectErrorBody, json, readEvents } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"

const alice = as("acme", "alice")
const PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

interface ProtocolCase {
  readonly type: "openai" | "anthropic"
  readonly model: string
  /** The base URL a configuration gives for the fake (the provider's own default has the same shape). */
  readonly baseUrl: (fake: FakeLlm) => string
  readonly path: string
  /** The key as the provider expects it. */
  readonly keyHeader: (key: string) => Record<string, string>
  /** The conversation as the provider's request body carries it. */
  readonly turns: (body: any) => Array<{ role: string; text: string }>
  /** The image part of the last user turn, as sent. */
  readonly image: (body: any) => unknown
  readonly expectedImage: unknown
  /** The generation parameters of the configuration, as sent. */
  readonly parameters: Record<string, unknown>
}

const textOf = (content: unknown, textType: string) =>
  typeof content === "string"
    ? content
    : (content as Array<{ type: string; text?: string }>).filter((p) => p.type === textType).map((p) => p.text).join("")

const cases: ReadonlyArray<ProtocolCase> = [
  {
    type: "openai",
    model: "gpt-4.1-mini",
    baseUrl: (fake) => `${fake.url}/v1`,
    path: "/v1/responses",
    keyHeader: (key) => ({ authorization: `Bearer ${key}` }),
    turns: (body) =>
      body.input.map((item: { role: string; content: unknown }) => ({
        role: item.role,
        text: textOf(item.content, item.role === "assistant" ? "output_text" : "input_text")
      })),
    image: (body) => body.input.at(-1).content.find((p: { type: string }) => p.type === "input_image"),
    expectedImage: { type: "input_image", image_url: `data:image/png;base64,${PNG_1x1}` },
    parameters: { temperature: 0.3, max_output_tokens: 300, store: false }
  },
  {
    type: "anthropic",
    model: "claude-sonnet-4-5",
    baseUrl: (fake) => fake.url,
    path: "/v1/messages",
    keyHeader: (key) => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
    turns: (body) =>
      body.messages.map((m: { role: string; content: unknown }) => ({ role: m.role, text: textOf(m.content, "text") })),
    image: (body) => body.messages.at(-1).content.find((p: { type: string }) => p.type === "image"),
    expectedImage: { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1x1 } },
    parameters: { temperature: 0.3, max_tokens: 300 }
  }
]

const gateway = Layer.provideMerge(
  gatewayTestLayer({ ...defaultBackend.config, LLM_RETRY_BASE_DELAY: "10 millis" }),
  FakeLlmServer.layer
)

const ask = (text: string) => json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: text }] }] })

layer(gateway, { timeout: 120_000 })("provider protocols", (it) => {
  for (const protocol of cases) {
    describe(protocol.type, () => {
      const setup = Effect.gen(function*() {
        const base = yield* GatewayUrl
        const fake = yield* FakeLlmServer
        yield* call(
          `${base}/api/v1/admin/llm/provider-conf`,
          json(alice, {
            id: protocol.type,
            type: protocol.type,
            model: protocol.model,
            baseUrl: protocol.baseUrl(fake),
            apiKey: `${protocol.type}-key-5678`,
            headers: { "x-proxy-tag": "gw" },
            extraParams: { temperature: 0.3, maxTokens: 300 },
            capabilities: { vision: true }
          })
        )
        return { base, fake, query: `provider=${protocol.type}` }
      })

      it.effect("a whole answer: the request on the wire, the answer and its usage, the history on the next turn, an image", () =>
        Effect.gen(function*() {
          const { base, fake, query } = yield* setup
          fake.script({ text: "Paris.", usage: { promptTokens: 21, completionTokens: 3 } })
          const first = yield* call(`${base}/api/v1/requests?${query}`, ask("Capital of France?"))
          expect(first.status).toBe(201)
          expect(first.json).toMatchObject({
            status: "COMPLETED",
            response: "Paris.",
            provider: protocol.type,
            model: protocol.model,
            usage: { inputTokens: 21, outputTokens: 3 }
          })
          const sent = fake.requests.at(-1)!
          expect(sent.path).toBe(protocol.path)
          expect(sent.headers).toMatchObject({
            ...protocol.keyHeader(`${protocol.type}-key-5678`),
            "x-proxy-tag": "gw"
          })
          expect(sent.body).toMatchObject({ model: protocol.model, ...protocol.parameters })

          fake.script({ text: "A pixel." })
          const second = yield* call(
            `${base}/api/v1/requests?${query}&conversationId=${first.json.conversationId}`,
            json(alice, {
              inputs: [{
                role: "user",
                content: [{ type: "text", value: "And this?" }, { type: "image", value: PNG_1x1 }]
              }]
            })
          )
          expect(second.json).toMatchObject({ status: "COMPLETED", response: "A pixel." })
          const body = fake.requests.at(-1)!.body
          expect(protocol.turns(body)).toEqual([
            { role: "user", text: "Capital of France?" },
            { role: "assistant", text: "Paris." },
            { role: "user", text: "And this?" }
          ])
          expect(protocol.image(body)).toMatchObject(protocol.expectedImage as object)
        }))

      it.effect("streamed: deltas forwarded while the provider is still sending, then usage and done", () =>
        Effect.gen(function*() {
          const { base, fake, query } = yield* setup
          fake.script({
            text: "one two three four five",
            chunks: 5,
            delayMs: 80,
            usage: { promptTokens: 9, completionTokens: 5 }
          })
          let deltaBeforeUpstreamFinished = false
          const answer = yield* readEvents(`${base}/api/v1/requests/stream?${query}`, ask("Count"), (event) => {
            if (event.event === "delta" && !fake.requests.at(-1)!.completed) deltaBeforeUpstreamFinished = true
          })
          expect(answer.status).toBe(200)
          expect(fake.requests.at(-1)!.body.stream).toBe(true)
          expect(answer.events.map((e) => e.event)).toEqual([
            "start",
            "delta",
            "delta",
            "delta",
            "delta",
            "delta",
            "usage",
            "done"
          ])
          expect(deltaBeforeUpstreamFinished).toBe(true)
          expect(answer.events.filter((e) => e.event === "delta").map((e) => JSON.parse(e.data).text).join("")).toBe(
            "one two three four five"
          )
          expect(JSON.parse(answer.events.at(-2)!.data)).toEqual({ inputTokens: 9, outputTokens: 5 })
          const done = JSON.parse(answer.events.at(-1)!.data)
          expect(done.status).toBe("COMPLETED")
          expect((yield* call(`${base}/api/v1/requests/${done.requestId}`, { headers: alice })).json).toMatchObject({
            response: "one two three four five",
            usage: { inputTokens: 9, outputTokens: 5 }
          })
        }))

      it.effect("errors: a rejection is LLM_BAD_REQUEST with the provider's message; 429 is retried; a stop closes the upstream stream", () =>
        Effect.gen(function*() {
          const { base, fake, query } = yield* setup
          fake.script({ fail: { status: 400, times: 1, message: "prompt is too long" } })
          const rejected = yield* call(`${base}/api/v1/requests?${query}`, ask("Hi"))
          expectErrorBody(rejected, 400, "LLM_BAD_REQUEST")
          // The provider's own message, without the client library's boilerplate.
          expect(rejected.json.message).toBe(
            `${protocol.type} (${protocol.type}) refused the request (400): prompt is too long`
          )

          fake.script({ text: "After the wait.", fail: { status: 429, times: 2 } })
          const before = fake.requests.length
          expect((yield* call(`${base}/api/v1/requests?${query}`, ask("Hi"))).json).toMatchObject({
            status: "COMPLETED",
            response: "After the wait."
          })
          expect(fake.requests.length - before).toBe(3)

          fake.script({ text: "a b c d e f g h i j", chunks: 10, delayMs: 150 })
          let conversationId = ""
          const stopped = yield* readEvents(`${base}/api/v1/requests/stream?${query}`, ask("Letters"), (event, all) => {
            if (event.event === "start") conversationId = JSON.parse(event.data).conversationId
            if (event.event === "delta" && all.filter((e) => e.event === "delta").length === 2) {
              void fetch(`${base}/api/v1/conversations/${conversationId}/stop`, { method: "POST", headers: alice })
            }
          })
          expect(JSON.parse(stopped.events.at(-1)!.data).status).toBe("STOPPED")
          yield* eventually(() => fake.requests.at(-1)!.disconnected, 5_000, "the upstream stream to be closed")
          expect(fake.requests.at(-1)!.chunksSent).toBeLessThan(10)
        }))
    })
  }
})
