/**
 * Text PostgreSQL cannot keep as it is (NUL, unpaired surrogates) reaching the gateway: every
 * request answered 2xx can be read back afterwards with its conversation, cleaned as
 * docs/storage.md ("What text may hold") says, on every storage backend; a record the database
 * still refuses is written in a form it accepts (docs/gateway-requests.md, "Records").
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../src/layers/Test.ts"
import { backends } from "../support/backends.ts"
import { FakeLlmServer } from "../support/fake-llm.ts"
import { as, json } from "../support/gateway.ts"
import { call } from "../support/http.ts"

const alice = as("acme", "alice")

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

const ask = (base: string, text: string, query = "") =>
  call(
    `${base}/api/v1/requests${query}`,
    json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: text }] }] })
  )

for (const backend of backends) {
  const gateway = Layer.provideMerge(
    gatewayTestLayer({ ...backend.config, LLM_RETRY_BASE_DELAY: "10 millis" }),
    FakeLlmServer.layer
  )
  layer(gateway, { timeout: 120_000 })(`gateway, unusual text (${backend.name})`, (it) => {
    it.effect("a conversation titled with a NUL is created (201) and read back without it", () =>
      Effect.gen(function*() {
        const { base } = yield* setup
        const created = yield* call(`${base}/api/v1/conversations`, json(alice, { title: "a\u0000b\ud800c" }))
        expect(created.status).toBe(201)
        const read = yield* call(`${base}/api/v1/conversations/${created.json.id}`, { headers: alice })
        expect(read.status).toBe(200)
        expect(read.json.title).toBe("ab\uFFFDc")
      }))

    it.effect("a question with a NUL is answered (201), and the request and its conversation can be read back", () =>
      Effect.gen(function*() {
        const { base, fake } = yield* setup
        fake.script({ text: "An answer with\u0000 a NUL and a lone \udc00 surrogate." })
        const answered = yield* ask(base, "hi\u0000there")
        expect(answered.status).toBe(201)
        expect(answered.json.status).toBe("COMPLETED")
        const request = yield* call(`${base}/api/v1/requests/${answered.json.id}`, { headers: alice })
        expect(request.status).toBe(200)
        expect(request.json.inputs[0].content[0].text).toBe("hithere")
        expect(request.json.response).toBe("An answer with a NUL and a lone \uFFFD surrogate.")
        const conversation = yield* call(`${base}/api/v1/conversations/${answered.json.conversationId}`, {
          headers: alice
        })
        expect(conversation.status).toBe(200)
        expect(conversation.json.title).toBe("hithere")
        // The next turn of the conversation carries the stored history.
        fake.script({ text: "Second." })
        expect((yield* ask(base, "more", `?conversationId=${answered.json.conversationId}`)).status).toBe(201)
        expect(fake.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content)).toEqual([
          "hithere",
          "An answer with a NUL and a lone \uFFFD surrogate.",
          "more"
        ])
      }))

    it.effect("a provider's error message with a NUL: the failed request is recorded and readable", () =>
      Effect.gen(function*() {
        const { base, fake } = yield* setup
        const conversation = (yield* call(`${base}/api/v1/conversations`, json(alice, { title: "failing" }))).json.id
        fake.script({ fail: { status: 400, times: 1, message: "bad\u0000input" } })
        const failed = yield* ask(base, "fail please", `?conversationId=${conversation}`)
        expect(failed.status).toBe(400)
        const listed = yield* call(`${base}/api/v1/requests?conversation=${conversation}`, { headers: alice })
        expect(listed.json.content).toHaveLength(1)
        expect(listed.json.content[0]).toMatchObject({ status: "FAILED" })
        expect(listed.json.content[0].errorMessage).toContain("badinput")
      }))

    it.effect("a usage count the database cannot hold: the request is still recorded (in a form it accepts) and readable", () =>
      Effect.gen(function*() {
        const { base, fake } = yield* setup
        fake.script({ text: "Counted.", usage: { promptTokens: 5_000_000_000, completionTokens: 7 } })
        const answered = yield* ask(base, "count me")
        expect(answered.status).toBe(201)
        const request = yield* call(`${base}/api/v1/requests/${answered.json.id}`, { headers: alice })
        expect(request.status).toBe(200)
        expect(request.json).toMatchObject({ status: "COMPLETED", response: "Counted." })
        expect((yield* call(`${base}/api/v1/conversations/${answered.json.conversationId}`, { headers: alice })).status)
          .toBe(200)
      }))

    it.effect("prompts and provider configurations with NUL and unpaired surrogates are stored cleaned", () =>
      Effect.gen(function*() {
        const { base } = yield* setup
        const prompt = yield* call(
          `${base}/api/v1/admin/prompts`,
          json(alice, {
            id: "odd",
            template: "Say {{x}}!",
            name: "na\u0000me",
            description: "\ud83d",
            llm: { systemPrompt: "be\u0000 kind" }
          })
        )
        expect(prompt.status).toBe(201)
        const read = (yield* call(`${base}/api/v1/admin/prompts/odd`, { headers: alice })).json
        expect(JSON.stringify(read)).not.toContain("\\u0000")
        expect(JSON.stringify(read)).toContain("name")
        expect(JSON.stringify(read)).toContain("\uFFFD")
        const provider = yield* call(
          `${base}/api/v1/admin/llm/provider-conf`,
          json(alice, {
            id: "odd",
            type: "openai-compatible",
            name: "n\u0000ame",
            model: "m",
            baseUrl: "http://127.0.0.1:9/v1",
            apiKey: "k\u0000ey-12345",
            headers: { "x-a": "b\u0000c" }
          })
        )
        expect(provider.status).toBe(201)
        const stored = (yield* call(`${base}/api/v1/admin/llm/provider-conf/odd`, { headers: alice })).json
        expect(stored).toMatchObject({ name: "name", headers: { "x-a": "bc" } })
      }))
  })
}
