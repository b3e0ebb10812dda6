/**
 * Requests to a language model through the gateway, against a fake provider on loopback that
 * speaks Chat Completions: whole and streamed answers (SSE read with eventsource-parser), the
 * conversation's history, prompts, images and capabilities, errors and retries, stop and client
 * disconnect cancelling the upstream call, usage and feedback recorded.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { eventually, FakeLlmServer } from "../../support/fake-llm.ts"
import { as, expectErrorBody, json, readEvents } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"

const alice = as("acme", "alice")
const PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

const setup = Effect.gen(function*() {
  const base = yield* GatewayUrl
  const fake = yield* FakeLlmServer
  yield* call(
    `${base}/api/v1/admin/llm/provider-conf`,
    json(alice, {
      id: "local",
      type: "openai-compatible",
      model: "llama3",
      baseUrl: `${fake.url}/v1`,
      apiKey: "local-key-1234",
      isDefault: true
    })
  )
  return { base, fake }
})

const gateway = Layer.provideMerge(
  gatewayTestLayer({ ...defaultBackend.config, LLM_RETRY_BASE_DELAY: "10 millis" }),
  FakeLlmServer.layer
)

layer(gateway, { timeout: 120_000 })("gateway requests", (it) => {
  it.effect("a whole answer: 201 with the response, a titled conversation, usage and latency recorded; the next turn carries the history", () =>
    Effect.gen(function*() {
      const { base, fake } = yield* setup
      fake.script({ text: "Paris is the capital of France.", usage: { promptTokens: 12, completionTokens: 8 } })
      const first = yield* call(
        `${base}/api/v1/requests`,
        json(alice, {
          inputs: [{ role: "user", content: [{ type: "text", value: "What is the capital of France?" }] }]
        })
      )
      expect(first.status).toBe(201)
      expect(first.json).toMatchObject({
        status: "COMPLETED",
        response: "Paris is the capital of France.",
        provider: "local",
        model: "llama3",
        usage: { inputTokens: 12, outputTokens: 8 }
      })
      expect(first.json.latencyMs).toBeGreaterThanOrEqual(0)
      const conversation =
        (yield* call(`${base}/api/v1/conversations/${first.json.conversationId}`, { headers: alice })).json
      expect(conversation.title).toBe("What is the capital of France?")
      expect(fake.requests.at(-1)!.headers.authorization).toBe("Bearer local-key-1234")

      fake.script({ text: "About 2.1 million." })
      const second = yield* call(
        `${base}/api/v1/requests?conversationId=${first.json.conversationId}&model=llama3.1`,
        json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "And its population?" }] }] })
      )
      expect(second.json).toMatchObject({
        conversationId: first.json.conversationId,
        model: "llama3.1",
        response: "About 2.1 million."
      })
      expect(fake.requests.at(-1)!.body).toMatchObject({
        model: "llama3.1",
        messages: [
          { role: "user", content: "What is the capital of France?" },
          { role: "assistant", content: "Paris is the capital of France." },
          { role: "user", content: "And its population?" }
        ]
      })
      const listed =
        (yield* call(`${base}/api/v1/requests?conversation=${first.json.conversationId}`, { headers: alice })).json
      expect(listed.content.map((r: { response: string }) => r.response)).toEqual([
        "Paris is the capital of France.",
        "About 2.1 million."
      ])
      expect(
        (yield* call(`${base}/api/v1/requests/${second.json.id}/feedback/GOOD`, { method: "PUT", headers: alice })).json
          .feedback
      ).toBe("GOOD")
      expectErrorBody(
        yield* call(`${base}/api/v1/requests/${second.json.id}`, { headers: as("acme", "bob") }),
        404,
        "NOT_FOUND"
      )
      expect((yield* call(`${base}/api/v1/requests/${second.json.id}`, { method: "DELETE", headers: alice })).status)
        .toBe(204)
      expectErrorBody(yield* call(`${base}/api/v1/requests/${second.json.id}`, { headers: alice }), 404, "NOT_FOUND")
    }))

  it.effect("a stored prompt renders into the request; an image needs a model declared with vision", () =>
    Effect.gen(function*() {
      const { base, fake } = yield* setup
      yield* call(
        `${base}/api/v1/admin/prompts`,
        json(alice, { id: "translate", template: "Translate into {{language}}: {{text}}" })
      )
      fake.script({ text: "Bonjour" })
      const reply = yield* call(
        `${base}/api/v1/requests`,
        json(alice, {
          inputs: [{
            role: "user",
            content: [{ type: "prompt", value: "translate", payload: { language: "French", text: "Hello" } }]
          }]
        })
      )
      expect(reply.status).toBe(201)
      expect(fake.requests.at(-1)!.body.messages.at(-1)).toEqual({
        role: "user",
        content: "Translate into French: Hello"
      })
      expect((yield* call(`${base}/api/v1/admin/prompts/translate/statistics`, { headers: alice })).json).toMatchObject(
        { uses: 1 }
      )

      // A prompt version's LLM settings apply: its model, parameters and system prompt; a retry renders it again with them.
      yield* call(
        `${base}/api/v1/admin/prompts`,
        json(alice, {
          id: "terse",
          template: "Explain {{topic}}",
          llm: { model: "llama-terse", temperature: 0.5, maxTokens: 100, systemPrompt: "Be terse." }
        })
      )
      const terse = yield* call(
        `${base}/api/v1/requests`,
        json(alice, {
          inputs: [{ role: "user", content: [{ type: "prompt", value: "terse", payload: { topic: "gravity" } }] }]
        })
      )
      expect(terse.json).toMatchObject({ model: "llama-terse" })
      const sentTerse = fake.requests.at(-1)!.body
      expect(sentTerse).toMatchObject({ model: "llama-terse", temperature: 0.5, max_tokens: 100 })
      expect(sentTerse.messages).toEqual([{ role: "system", content: "Be terse." }, {
        role: "user",
        content: "Explain gravity"
      }])
      yield* call(`${base}/api/v1/requests/retry`, json(alice, { conversation: terse.json.conversationId }))
      expect(fake.requests.at(-1)!.body).toEqual(sentTerse)
      // The request's own model wins over the prompt's.
      yield* call(
        `${base}/api/v1/requests?model=llama-big`,
        json(alice, {
          inputs: [{ role: "user", content: [{ type: "prompt", value: "terse", payload: { topic: "tides" } }] }]
        })
      )
      expect(fake.requests.at(-1)!.body).toMatchObject({ model: "llama-big", temperature: 0.5 })

      // Image data that is not an image is the caller's mistake: 400, and nothing is stored.
      const before = (yield* call(`${base}/api/v1/conversations`, { headers: alice })).json.totalElements
      for (const value of ["not base64 !!", Buffer.from("hello world").toString("base64")]) {
        expectErrorBody(
          yield* call(
            `${base}/api/v1/requests`,
            json(alice, { inputs: [{ role: "user", content: [{ type: "image", value }] }] })
          ),
          400,
          "BAD_REQUEST"
        )
      }
      expect((yield* call(`${base}/api/v1/conversations`, { headers: alice })).json.totalElements).toBe(before)

      const withImage = {
        inputs: [{
          role: "user",
          content: [{ type: "text", value: "What is this?" }, { type: "image", value: PNG_1x1 }]
        }]
      }
      expectErrorBody(yield* call(`${base}/api/v1/requests`, json(alice, withImage)), 422, "LLM_CAPABILITY_ERROR")
      yield* call(
        `${base}/api/v1/admin/llm/provider-conf/local`,
        json(alice, {
          id: "local",
          type: "openai-compatible",
          model: "llava",
          baseUrl: `${fake.url}/v1`,
          capabilities: { vision: true },
          isDefault: true
        }, "PUT")
      )
      fake.script({ text: "A single pixel." })
      expect((yield* call(`${base}/api/v1/requests`, json(alice, withImage))).json.response).toBe("A single pixel.")
      expect(fake.requests.at(-1)!.body.messages.at(-1).content[1]).toEqual({
        type: "image_url",
        image_url: { url: `data:image/png;base64,${PNG_1x1}` }
      })
      expectErrorBody(
        yield* call(
          `${base}/api/v1/requests`,
          json(alice, { inputs: [{ role: "user", content: [{ type: "prompt", value: "nope" }] }] })
        ),
        404,
        "NOT_FOUND"
      )
      const conversationsBefore = (yield* call(`${base}/api/v1/conversations`, { headers: alice })).json.totalElements
      expectErrorBody(
        yield* call(
          `${base}/api/v1/requests?provider=absent`,
          json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "hi" }] }] })
        ),
        404,
        "LLM_PROVIDER_NOT_FOUND"
      )
      // A request no provider could take leaves no empty conversation behind.
      expect((yield* call(`${base}/api/v1/conversations`, { headers: alice })).json.totalElements).toBe(
        conversationsBefore
      )
    }))

  it.effect("a rejected request is LLM_BAD_REQUEST, not retried; 429 and 500 are retried, then succeed", () =>
    Effect.gen(function*() {
      const { base, fake } = yield* setup
      const ask = json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "Hi" }] }] })
      fake.script({ fail: { status: 400, times: 1, message: "context length exceeded" } })
      const before = fake.requests.length
      const rejected = yield* call(`${base}/api/v1/requests`, ask)
      expectErrorBody(rejected, 400, "LLM_BAD_REQUEST")
      expect(rejected.json.message).toContain("context length exceeded")
      expect(fake.requests.length - before).toBe(1)

      fake.script({ text: "Fine now.", fail: { status: 429, times: 2 } })
      const retried = yield* call(`${base}/api/v1/requests`, ask)
      expect(retried.json).toMatchObject({ status: "COMPLETED", response: "Fine now." })
      fake.script({ fail: { status: 500, times: 5 } })
      expectErrorBody(yield* call(`${base}/api/v1/requests`, ask), 500, "INTERNAL_ERROR")
    }))

  it.effect("streamed: start, deltas as they come, usage, done; SSE headers; the record completed", () =>
    Effect.gen(function*() {
      const { base, fake } = yield* setup
      fake.script({
        text: "one two three four five six",
        chunks: 6,
        delayMs: 100,
        usage: { promptTokens: 5, completionTokens: 6 }
      })
      let firstDeltaWhileSending = false
      const answer = yield* readEvents(
        `${base}/api/v1/requests/stream`,
        json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "Count" }] }] }),
        (event) => {
          if (event.event === "delta" && !firstDeltaWhileSending) {
            firstDeltaWhileSending = !fake.requests.at(-1)!.completed
          }
        }
      )
      expect(answer.status).toBe(200)
      expect(answer.headers.get("content-type")).toContain("text/event-stream")
      expect(answer.headers.get("x-accel-buffering")).toBe("no")
      expect(answer.events.map((e) => e.event)).toEqual([
        "start",
        "delta",
        "delta",
        "delta",
        "delta",
        "delta",
        "delta",
        "usage",
        "done"
      ])
      // Tokens are forwarded as they arrive: the first was out before the provider had finished.
      expect(firstDeltaWhileSending).toBe(true)
      expect(answer.events.filter((e) => e.event === "delta").map((e) => JSON.parse(e.data).text).join("")).toBe(
        "one two three four five six"
      )
      expect(JSON.parse(answer.events.at(-2)!.data)).toEqual({ inputTokens: 5, outputTokens: 6 })
      const done = JSON.parse(answer.events.at(-1)!.data)
      const record = (yield* call(`${base}/api/v1/requests/${done.requestId}`, { headers: alice })).json
      expect(record).toMatchObject({
        status: "COMPLETED",
        response: "one two three four five six",
        usage: { inputTokens: 5, outputTokens: 6 }
      })
      expect(record.firstTokenMs).toBeLessThan(record.latencyMs)

      // Throttled before the first token: retried, and the client sees only the answer. The next
      // stream goes over the same connection to the provider (the last one was read to its end).
      fake.script({ text: "After the wait.", fail: { status: 429, times: 1 } })
      const throttled = yield* readEvents(
        `${base}/api/v1/requests/stream`,
        json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "Again" }] }] })
      )
      expect(throttled.events.map((e) => e.event)).toEqual(["start", "delta", "delta", "delta", "usage", "done"])
      const [rejected, accepted] = fake.requests.slice(-2)
      expect([rejected!.status, accepted!.status]).toEqual([429, 200])
      fake.script({ text: "Once more." })
      yield* readEvents(
        `${base}/api/v1/requests/stream`,
        json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "More" }] }] })
      )
      expect(fake.requests.at(-1)!.connection).toBe(accepted!.connection)
    }))

  it.effect("stop during a stream and a client that goes away both cancel the upstream call and keep the partial answer", () =>
    Effect.gen(function*() {
      const { base, fake } = yield* setup
      fake.script({ text: "a b c d e f g h i j", chunks: 10, delayMs: 150 })
      let conversationId = ""
      const stopped = yield* readEvents(
        `${base}/api/v1/requests/stream`,
        json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "Letters" }] }] }),
        (event, all) => {
          if (event.event === "start") conversationId = JSON.parse(event.data).conversationId
          if (event.event === "delta" && all.filter((e) => e.event === "delta").length === 2) {
            void fetch(`${base}/api/v1/conversations/${conversationId}/stop`, { method: "POST", headers: alice })
          }
        }
      )
      expect(stopped.events.at(-1)!.event).toBe("done")
      const done = JSON.parse(stopped.events.at(-1)!.data)
      expect(done.status).toBe("STOPPED")
      yield* eventually(() => fake.requests.at(-1)!.disconnected, 5_000, "the upstream call to be cancelled")
      const kept = (yield* call(`${base}/api/v1/requests/${done.requestId}`, { headers: alice })).json
      expect(kept.status).toBe("STOPPED")
      expect(kept.response.length).toBeGreaterThan(0)
      expect(kept.response.length).toBeLessThan("a b c d e f g h i j".length)
      expect((yield* call(`${base}/api/v1/conversations/${conversationId}/stop`, json(alice, {}))).json).toEqual({
        stopped: false
      })

      // The client reads two deltas and hangs up.
      const gone = yield* readEvents(
        `${base}/api/v1/requests/stream`,
        json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "Letters again" }] }] }),
        (_event, all) => all.filter((e) => e.event === "delta").length === 2
      )
      const requestId = JSON.parse(gone.events[0]!.data).requestId
      yield* eventually(() => fake.requests.at(-1)!.disconnected, 5_000, "the upstream call to be cancelled")
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200)))
      expect((yield* call(`${base}/api/v1/requests/${requestId}`, { headers: alice })).json.status).toBe("STOPPED")

      // A client that gives up on a whole answer: the upstream call is cancelled and the request is not left RUNNING.
      fake.script({ text: "Too late.", wholeDelayMs: 3_000 })
      const started = fake.requests.length
      yield* Effect.promise(() =>
        fetch(`${base}/api/v1/requests`, {
          ...json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "Slow one" }] }] }),
          signal: AbortSignal.timeout(300)
        }).catch(() => undefined)
      )
      yield* eventually(
        () => fake.requests.length > started && fake.requests.at(-1)!.disconnected,
        5_000,
        "the upstream call to be cancelled"
      )
      const newest = (yield* call(`${base}/api/v1/conversations`, { headers: alice })).json.content[0]
      expect(newest.title).toBe("Slow one")
      const statusOf = call(`${base}/api/v1/requests?conversation=${newest.id}`, { headers: alice }).pipe(
        Effect.map((reply) => reply.json.content[0].status as string)
      )
      const status = yield* statusOf.pipe(
        Effect.filterOrFail((s) => s !== "RUNNING"),
        Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 40 })
      )
      expect(status).toBe("STOPPED")
    }))

  it.effect("retry answers the last question again (image included), without the earlier answer in the history; retry/stream streams it", () =>
    Effect.gen(function*() {
      const { base, fake } = yield* setup
      yield* call(
        `${base}/api/v1/admin/llm/provider-conf/local`,
        json(alice, {
          id: "local",
          type: "openai-compatible",
          model: "llava",
          baseUrl: `${fake.url}/v1`,
          capabilities: { vision: true },
          isDefault: true
        }, "PUT")
      )
      fake.script({ text: "First answer." })
      const first = (yield* call(
        `${base}/api/v1/requests`,
        json(alice, {
          inputs: [{
            role: "user",
            content: [{ type: "text", value: "Describe" }, { type: "image", value: PNG_1x1 }]
          }]
        })
      )).json
      const sentFirst = fake.requests.at(-1)!.body.messages
      fake.script({ text: "Second answer." })
      const retried = yield* call(`${base}/api/v1/requests/retry`, json(alice, { conversation: first.conversationId }))
      expect(retried.status).toBe(201)
      expect(retried.json).toMatchObject({
        conversationId: first.conversationId,
        status: "COMPLETED",
        response: "Second answer."
      })
      expect(retried.json.id).not.toBe(first.id)
      expect((yield* call(`${base}/api/v1/requests/${first.id}`, { headers: alice })).json.replacedBy).toBe(
        retried.json.id
      )
      // The same question, image and all, and not the answer it replaces.
      expect(fake.requests.at(-1)!.body.messages).toEqual(sentFirst)

      fake.script({ text: "Third answer.", chunks: 3 })
      const streamed = yield* readEvents(
        `${base}/api/v1/requests/retry/stream`,
        json(alice, { conversation: first.conversationId })
      )
      expect(streamed.events.filter((e) => e.event === "delta").map((e) => JSON.parse(e.data).text).join("")).toBe(
        "Third answer."
      )
      expect(fake.requests.at(-1)!.body.messages).toEqual(sentFirst)
      expect(
        (yield* call(`${base}/api/v1/requests?conversation=${first.conversationId}`, { headers: alice })).json
          .totalElements
      ).toBe(3)

      const empty = (yield* call(`${base}/api/v1/conversations`, json(alice, {}))).json
      expectErrorBody(
        yield* call(`${base}/api/v1/requests/retry`, json(alice, { conversation: empty.id })),
        404,
        "NOT_FOUND"
      )
      expectErrorBody(
        yield* call(`${base}/api/v1/requests/retry`, json(as("acme", "bob"), { conversation: first.conversationId })),
        404,
        "NOT_FOUND"
      )
    }))
})
