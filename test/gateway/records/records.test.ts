/**
 * The records of conversations and requests are written behind the answers (RequestRecorder):
 * every answer is recorded, a read sees what was answered before it without waiting for the
 * writer's gathering delay (here ten minutes, so a read that waited for it would time out), and a
 * record the database refuses is dropped without taking the rest of its statement with it.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { preciseNow, RequestRecorder } from "../../../src/services/gateway/records/RequestRecorder.ts"
import { backends } from "../../support/backends.ts"
import { FakeLlmServer } from "../../support/fake-llm.ts"
import { as, json } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"

const started = (tenantId: string, id: string, conversationId: string) => ({
  tenantId,
  id,
  conversationId,
  userId: "u1",
  inputs: [{ role: "user", content: [{ type: "text", text: `Question ${id}` }] }],
  providerId: "local",
  model: "m",
  streamed: false,
  usedPrompt: false,
  hasImage: false,
  isRetry: false,
  at: preciseNow()
})

for (const backend of backends) {
  const gateway = Layer.provideMerge(
    gatewayTestLayer({ ...backend.config, REQUEST_RECORD_DELAY: "10 minutes" }),
    FakeLlmServer.layer
  )

  layer(gateway, { timeout: 120_000 })(`request records (${backend.name})`, (it) => {
    it.effect("fifty questions at once: every answer recorded, each readable at once with its conversation", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const fake = yield* FakeLlmServer
        const carol = as("records", "carol")
        yield* call(
          `${base}/api/v1/admin/llm/provider-conf`,
          json(carol, { id: "local", type: "openai-compatible", model: "m", baseUrl: `${fake.url}/v1` })
        )
        fake.script({ text: "Recorded.", usage: { promptTokens: 3, completionTokens: 2 } })
        const answers = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => i),
          (i) =>
            call(
              `${base}/api/v1/requests`,
              json(carol, { inputs: [{ role: "user", content: [{ type: "text", value: `Question number ${i}` }] }] })
            ),
          { concurrency: "unbounded" }
        )
        expect(answers.map((a) => a.status)).toEqual(Array(50).fill(201))

        const conversations = (yield* call(`${base}/api/v1/conversations?size=100`, { headers: carol })).json
        expect(conversations.totalElements).toBe(50)
        expect(new Set(conversations.content.map((c: { title: string }) => c.title))).toEqual(
          new Set(answers.map((_, i) => `Question number ${i}`))
        )
        for (const answer of answers.slice(0, 5)) {
          const stored = (yield* call(`${base}/api/v1/requests/${answer.json.id}`, { headers: carol })).json
          expect(stored).toEqual(answer.json)
        }
        const totals = (yield* call(`${base}/api/v1/admin/stats/global`, { headers: carol })).json
        expect(totals).toMatchObject({
          requests: 50,
          completedRequests: 50,
          conversations: 50,
          inputTokens: 150,
          outputTokens: 100
        })

        // The next turn, sent as soon as the answer came, carries it in its history.
        const followUp = yield* call(
          `${base}/api/v1/requests?conversationId=${answers[0]!.json.conversationId}`,
          json(carol, { inputs: [{ role: "user", content: [{ type: "text", value: "And then?" }] }] })
        )
        expect(followUp.status).toBe(201)
        expect(fake.requests.at(-1)!.body.messages).toEqual([
          { role: "user", content: "Question number 0" },
          { role: "assistant", content: "Recorded." },
          { role: "user", content: "And then?" }
        ])
      }))

    it.effect("a request finished and replaced in one batch keeps both its outcome and its replacement", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const recorder = yield* RequestRecorder
        yield* recorder.conversationStarted("replacing", "c", "u1", "Retried", preciseNow())
        yield* recorder.requestStarted(started("replacing", "first", "c"))
        yield* recorder.settled
        // Enqueued together: one statement would update the row twice and keep one of the two.
        yield* recorder.requestFinished("replacing", "first", {
          status: "COMPLETED",
          response: "First answer.",
          latencyMs: 3
        }, preciseNow())
        yield* recorder.requestStarted(started("replacing", "second", "c"))
        yield* recorder.requestReplaced("replacing", "first", "second")
        yield* recorder.settled

        const u1 = as("replacing", "u1")
        expect((yield* call(`${base}/api/v1/requests/first`, { headers: u1 })).json).toMatchObject({
          status: "COMPLETED",
          response: "First answer.",
          replacedBy: "second"
        })
      }))

    it.effect("a record the database refuses (a request of a conversation that is gone) is dropped; the others of its statement are written", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const recorder = yield* RequestRecorder
        // Enqueued together, so written by one statement, which the orphan makes the database refuse.
        yield* recorder.conversationStarted("refused", "kept-conversation", "u1", "Kept", preciseNow())
        yield* recorder.requestStarted(started("refused", "orphan", "no-such-conversation"))
        yield* recorder.requestStarted(started("refused", "kept", "kept-conversation"))
        yield* recorder.requestFinished("refused", "kept", {
          status: "COMPLETED",
          response: "Still here.",
          latencyMs: 4
        }, preciseNow())
        yield* recorder.settled

        const u1 = as("refused", "u1")
        expect((yield* call(`${base}/api/v1/requests/kept`, { headers: u1 })).json).toMatchObject({
          status: "COMPLETED",
          response: "Still here.",
          latencyMs: 4
        })
        expect((yield* call(`${base}/api/v1/requests/orphan`, { headers: u1 })).status).toBe(404)
        expect(
          (yield* call(`${base}/api/v1/conversations`, { headers: u1 })).json.content.map((c: { title: string }) =>
            c.title
          )
        ).toEqual(["Kept"])
      }))
  })
}
