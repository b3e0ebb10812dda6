/**
 * Property-based JSON bodies with arbitrary Unicode (NUL, unpaired surrogates, very long strings)
 * through conversations, requests, prompts and provider configurations, on every storage backend:
 * never a 500, and nothing answered 2xx is missing afterwards (a request and its conversation read
 * back, as stored text is kept: docs/storage.md). Seeded and bounded (test/support/fuzz.ts).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { gatewayTestLayer, GatewayUrl } from "../../src/layers/Test.ts"
import { storableText } from "../../src/services/common/sql/StorableText.ts"
import { backends } from "../support/backends.ts"
import { FakeLlmServer } from "../support/fake-llm.ts"
import { fuzzParameters, hostileText, hostileTextSometimesLong, Tally } from "../support/fuzz.ts"
import { as, json } from "../support/gateway.ts"
import { call, type Reply } from "../support/http.ts"

const alice = as("acme", "alice")
const expectAnswered = (tally: Tally, step: string, reply: Reply, allowed: ReadonlyArray<number>) => {
  tally.count(step, reply.status)
  expect(allowed, `${step} answered ${reply.status}: ${reply.text.slice(0, 300)}`).toContain(reply.status)
  if (reply.status >= 400) expect(Object.keys(reply.json).sort()).toEqual(["code", "message", "status"])
}
const post = (url: string, body: unknown) => call(url, { ...json(alice, body), signal: AbortSignal.timeout(60_000) })
/** A JSON body of any shape, its strings hostile. */
const anyJson = fc.jsonValue({ maxDepth: 3, stringUnit: fc.constantFrom("\u0000", "\ud800", "a", "é", "\u202e", "\"") })
const mostly = <A, B>(valid: fc.Arbitrary<A>, invalid: fc.Arbitrary<B>) =>
  fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: invalid })

for (const backend of backends) {
  const tally = new Tally()
  const gateway = Layer.provideMerge(
    gatewayTestLayer({ ...backend.config, LLM_RETRY_BASE_DELAY: "10 millis" }),
    FakeLlmServer.layer
  )
  layer(gateway, { timeout: 600_000 })(`fuzz: gateway request bodies (${backend.name})`, (it) => {
    it.effect("conversations: 201 or 400, never 500; a created one reads back, titled as stored text is kept", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const property = fc.asyncProperty(
          mostly(fc.record({ title: hostileText(220) }, { requiredKeys: [] }), anyJson),
          (body) =>
            Effect.runPromise(Effect.gen(function*() {
              const created = yield* post(`${base}/api/v1/conversations`, body)
              expectAnswered(tally, "POST /conversations", created, [201, 400])
              if (created.status !== 201) return
              const read = yield* call(`${base}/api/v1/conversations/${created.json.id}`, { headers: alice })
              expectAnswered(tally, "GET /conversations/{id}", read, [200])
              const title = (body as { title?: string }).title
              expect(read.json.title).toBe(storableText(title?.trim() || "New conversation"))
            }))
        )
        yield* Effect.promise(() => fc.assert(property, fuzzParameters(60, 120_000)))
      }))

    it.effect("requests: answered 201 or refused 400, never 500; every answered request and its conversation read back", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const fake = yield* FakeLlmServer
        yield* post(`${base}/api/v1/admin/llm/provider-conf`, {
          id: "local",
          type: "openai-compatible",
          model: "llama3",
          baseUrl: `${fake.url}/v1`,
          apiKey: "local-key-1234",
          isDefault: true
        })
        const question = fc.record({ asked: hostileTextSometimesLong(50_000), answer: hostileText(200) })
        const property = fc.asyncProperty(
          mostly(question, anyJson),
          (drawn) =>
            Effect.runPromise(Effect.gen(function*() {
              const sent = typeof drawn === "object" && drawn !== null && "asked" in drawn
              if (sent) fake.script({ text: drawn.answer as string })
              const body = sent
                ? { inputs: [{ role: "user", content: [{ type: "text", value: drawn.asked }] }] }
                : drawn
              const answered = yield* post(`${base}/api/v1/requests`, body)
              expectAnswered(tally, "POST /requests", answered, [201, 400])
              if (answered.status !== 201) return
              const request = yield* call(`${base}/api/v1/requests/${answered.json.id}`, { headers: alice })
              expectAnswered(tally, "GET /requests/{id}", request, [200])
              expectAnswered(
                tally,
                "GET /conversations/{id} of a request",
                yield* call(`${base}/api/v1/conversations/${answered.json.conversationId}`, { headers: alice }),
                [200]
              )
              if (!sent) return
              expect(request.json.inputs[0].content[0].text).toBe(storableText(drawn.asked as string))
              expect(request.json.response).toBe(storableText(drawn.answer as string))
            }))
        )
        yield* Effect.promise(() => fc.assert(property, fuzzParameters(60, 180_000)))
      }))

    it.effect("prompts and provider configurations: 201, 400 or 409, never 500; created ones read back", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const prompt = fc.record({
          id: mostly(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), hostileText(20)),
          template: mostly(
            fc.constantFrom("Say {{x}}", "Hello", "{{#if a}}b{{/if}}"),
            hostileTextSometimesLong(20_000)
          ),
          name: hostileText(),
          description: hostileText(),
          category: hostileText(20),
          llm: fc.record({ systemPrompt: hostileText(), model: hostileText(20) }, { requiredKeys: [] })
        }, { requiredKeys: ["id", "template"] })
        const provider = fc.record({
          id: mostly(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), hostileText(20)),
          type: mostly(fc.constantFrom("openai-compatible", "openai", "anthropic", "gemini"), hostileText(10)),
          name: hostileText(),
          model: hostileText(30),
          apiKey: hostileText(),
          baseUrl: mostly(fc.constant("http://127.0.0.1:9/v1"), hostileText(20)),
          headers: fc.dictionary(hostileText(10), hostileText(20), { maxKeys: 2 })
        }, { requiredKeys: ["id", "type", "model"] })
        const property = fc.asyncProperty(
          fc.oneof(
            prompt.map((p) => ["prompt", p] as const),
            provider.map((p) => ["provider", p] as const),
            anyJson.map((j) => ["prompt", j] as const)
          ),
          ([kind, body]) =>
            Effect.runPromise(Effect.gen(function*() {
              const path = kind === "prompt" ? "/api/v1/admin/prompts" : "/api/v1/admin/llm/provider-conf"
              const created = yield* post(`${base}${path}`, body)
              expectAnswered(tally, `POST ${path}`, created, [201, 400, 409])
              if (created.status !== 201) return
              const read = yield* call(`${base}${path}/${encodeURIComponent(created.json.id)}`, { headers: alice })
              expectAnswered(tally, `GET ${path}/{id}`, read, [200])
              if (kind === "provider") {
                expect(read.json.name ?? undefined).toBe(
                  (body as { name?: string }).name === undefined
                    ? undefined
                    : storableText((body as { name: string }).name)
                )
              }
            }))
        )
        yield* Effect.promise(() => fc.assert(property, fuzzParameters(80, 120_000)))
        tally.report(`Gateway request bodies (${backend.name}): statuses seen`)
      }))
  })
}
