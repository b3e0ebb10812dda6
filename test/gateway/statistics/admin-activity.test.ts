/**
 * Admin views of a tenant's activity and the statistics, on requests made through the gateway to
 * a fake provider: any user's conversations and requests (never another tenant's), per-user
 * figures, totals, the time series, the model distribution, feature adoption and prompt time saved.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { FakeLlmServer } from "../../support/fake-llm.ts"
import { as, expectErrorBody, json, readEvents } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"

const admin = as("acme", "root", "gw-admin")
const alice = as("acme", "alice")
const bob = as("acme", "bob")
const carol = as("globex", "carol", "gw-admin")
const PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

const gateway = Layer.provideMerge(
  gatewayTestLayer({ ...defaultBackend.config, GATEWAY_ROLE_SECURITY: "true", ADMIN_ROLE: "gw-admin" }),
  FakeLlmServer.layer
)

const text = (value: string) => ({ inputs: [{ role: "user", content: [{ type: "text", value }] }] })

layer(gateway, { timeout: 120_000 })("admin activity and statistics", (it) => {
  it.effect("admins see and delete any conversation and request of their tenant; users and other tenants do not", () =>
    Effect.gen(function*() {
      const base = yield* GatewayUrl
      const fake = yield* FakeLlmServer
      for (const tenant of [admin, carol]) {
        yield* call(
          `${base}/api/v1/admin/llm/provider-conf`,
          json(tenant, {
            id: "local",
            type: "openai-compatible",
            model: "m1",
            baseUrl: `${fake.url}/v1`,
            isDefault: true
          })
        )
      }
      fake.script({ text: "An answer." })
      const fromAlice = (yield* call(`${base}/api/v1/requests`, json(alice, text("Alice asks")))).json
      const fromBob = (yield* call(`${base}/api/v1/requests`, json(bob, text("Bob asks")))).json
      yield* call(`${base}/api/v1/requests`, json(carol, text("Carol asks")))

      const all = (yield* call(`${base}/api/v1/admin/conversations`, { headers: admin })).json
      expect(all.content.map((c: { title: string }) => c.title).sort()).toEqual(["Alice asks", "Bob asks"])
      const bobs = (yield* call(`${base}/api/v1/admin/conversations?userId=bob`, { headers: admin })).json
      expect(bobs.content.map((c: { userId: string }) => c.userId)).toEqual(["bob"])
      expect((yield* call(`${base}/api/v1/admin/conversations?search=alice`, { headers: admin })).json.totalElements)
        .toBe(1)
      expect(
        (yield* call(`${base}/api/v1/admin/conversations/${fromBob.conversationId}`, { headers: admin })).json.userId
      ).toBe("bob")
      expectErrorBody(
        yield* call(`${base}/api/v1/admin/conversations/${fromBob.conversationId}`, { headers: carol }),
        404,
        "NOT_FOUND"
      )
      // Admin role enforced on every admin view.
      expectErrorBody(yield* call(`${base}/api/v1/admin/conversations`, { headers: alice }), 403, "FORBIDDEN")
      expectErrorBody(yield* call(`${base}/api/v1/admin/stats/global`, { headers: alice }), 403, "FORBIDDEN")

      const requests = (yield* call(`${base}/api/v1/admin/requests`, { headers: admin })).json
      expect(requests.content.map((r: { id: string }) => r.id)).toEqual([fromBob.id, fromAlice.id])
      const ofAlice =
        (yield* call(`${base}/api/v1/admin/requests?conversation=${fromAlice.conversationId}`, { headers: admin })).json
      expect(ofAlice.content.map((r: { id: string }) => r.id)).toEqual([fromAlice.id])
      expect((yield* call(`${base}/api/v1/admin/requests/${fromAlice.id}`, { headers: admin })).json.response).toBe(
        "An answer."
      )
      expectErrorBody(
        yield* call(`${base}/api/v1/admin/requests/${fromAlice.id}`, { headers: carol }),
        404,
        "NOT_FOUND"
      )
      expectErrorBody(
        yield* call(`${base}/api/v1/admin/requests/${fromAlice.id}`, { method: "DELETE", headers: carol }),
        404,
        "NOT_FOUND"
      )

      expect(
        (yield* call(`${base}/api/v1/admin/requests/${fromAlice.id}`, { method: "DELETE", headers: admin })).status
      ).toBe(204)
      expectErrorBody(yield* call(`${base}/api/v1/requests/${fromAlice.id}`, { headers: alice }), 404, "NOT_FOUND")
      expect(
        (yield* call(`${base}/api/v1/admin/conversations/${fromBob.conversationId}`, {
          method: "DELETE",
          headers: admin
        })).status
      ).toBe(204)
      expectErrorBody(
        yield* call(`${base}/api/v1/conversations/${fromBob.conversationId}`, { headers: bob }),
        404,
        "NOT_FOUND"
      )
      expectErrorBody(yield* call(`${base}/api/v1/requests/${fromBob.id}`, { headers: bob }), 404, "NOT_FOUND")
    }))

  it.effect("statistics count what the users did: per user, totals, time series, models, features, prompt time saved", () =>
    Effect.gen(function*() {
      const base = yield* GatewayUrl
      const fake = yield* FakeLlmServer
      const t = (user: string) => as("initech", user)
      const boss = as("initech", "boss", "gw-admin")
      yield* call(
        `${base}/api/v1/admin/llm/provider-conf`,
        json(boss, {
          id: "main",
          type: "openai-compatible",
          model: "m1",
          baseUrl: `${fake.url}/v1`,
          isDefault: true,
          capabilities: { vision: true }
        })
      )
      yield* call(
        `${base}/api/v1/admin/llm/provider-conf`,
        json(boss, { id: "alt", type: "openai-compatible", model: "m2", baseUrl: `${fake.url}/v1` })
      )
      yield* call(
        `${base}/api/v1/admin/prompts`,
        json(boss, { id: "summarise", template: "Summarise: {{text}}", name: "Summarise", timeSavedSeconds: 300 })
      )
      yield* call(
        `${base}/api/v1/admin/prompts`,
        json(boss, { id: "greet", template: "Say hello", timeSavedSeconds: 10 })
      )

      fake.script({ text: "ok", usage: { promptTokens: 10, completionTokens: 2 } })
      // dave: a plain question, a follow-up in the same conversation with an image, a prompt, feedback.
      const first = (yield* call(`${base}/api/v1/requests`, json(t("dave"), text("Hello")))).json
      yield* call(
        `${base}/api/v1/requests?conversationId=${first.conversationId}`,
        json(t("dave"), {
          inputs: [{ role: "user", content: [{ type: "text", value: "This?" }, { type: "image", value: PNG_1x1 }] }]
        })
      )
      yield* call(
        `${base}/api/v1/requests`,
        json(t("dave"), {
          inputs: [{ role: "user", content: [{ type: "prompt", value: "summarise", payload: { text: "long" } }] }]
        })
      )
      yield* call(`${base}/api/v1/requests/${first.id}/feedback/GOOD`, { method: "PUT", headers: t("dave") })
      // An empty conversation counts as a conversation, everywhere.
      yield* call(`${base}/api/v1/conversations`, json(t("dave"), { title: "Later" }))
      // erin: a streamed question on the other model, a retry of it, a prompt used twice, one failure.
      const streamed = yield* readEvents(
        `${base}/api/v1/requests/stream?provider=alt`,
        json(t("erin"), text("Stream please"))
      )
      const erinConversation = JSON.parse(streamed.events[0]!.data).conversationId
      // A retry answers with the provider and model of the answer it replaces.
      yield* call(`${base}/api/v1/requests/retry`, json(t("erin"), { conversation: erinConversation }))
      yield* call(
        `${base}/api/v1/requests`,
        json(t("erin"), {
          inputs: [{ role: "user", content: [{ type: "prompt", value: "summarise", payload: { text: "x" } }] }]
        })
      )
      yield* call(
        `${base}/api/v1/requests`,
        json(t("erin"), { inputs: [{ role: "user", content: [{ type: "prompt", value: "greet" }] }] })
      )
      fake.script({ fail: { status: 400, times: 1 } })
      yield* call(`${base}/api/v1/requests`, json(t("erin"), text("Fails")))

      const users = (yield* call(`${base}/api/v1/admin/users/statistics`, { headers: boss })).json
      expect(users.totalElements).toBe(2)
      const byUser = Object.fromEntries(users.content.map((u: { userId: string }) => [u.userId, u]))
      expect(byUser.dave).toMatchObject({
        conversations: 3,
        requests: 3,
        completedRequests: 3,
        failedRequests: 0,
        inputTokens: 30,
        outputTokens: 6,
        feedbackGood: 1,
        feedbackBad: 0
      })
      expect(byUser.erin).toMatchObject({
        conversations: 4,
        requests: 5,
        completedRequests: 4,
        failedRequests: 1,
        inputTokens: 40,
        outputTokens: 8
      })
      expect(users.content[0].userId).toBe("erin")

      const details = (yield* call(`${base}/api/v1/admin/users/details?userId=dave`, { headers: boss })).json
      expect(details.statistics).toMatchObject({ userId: "dave", requests: 3 })
      expect(details.conversations.totalElements).toBe(3)
      expectErrorBody(yield* call(`${base}/api/v1/admin/users/details`, { headers: boss }), 400, "BAD_REQUEST")
      expect((yield* call(`${base}/api/v1/users/details`, { headers: t("dave") })).json.statistics).toMatchObject({
        userId: "dave",
        requests: 3,
        conversations: 3
      })
      expect((yield* call(`${base}/api/v1/users/details`, { headers: t("nobody") })).json.statistics).toMatchObject({
        requests: 0,
        conversations: 0,
        lastActivityAt: null
      })

      const global = (yield* call(`${base}/api/v1/admin/stats/global`, { headers: boss })).json
      expect(global).toMatchObject({
        users: 2,
        conversations: 7,
        requests: 8,
        completedRequests: 7,
        failedRequests: 1,
        inputTokens: 70,
        outputTokens: 14,
        feedbackGood: 1,
        prompts: 2
      })
      // summarise: 2 uses × 300 s; greet: 1 use × 10 s.
      expect(global.timeSavedSeconds).toBe(610)
      expect(global.averageFirstTokenMs).toBeGreaterThanOrEqual(0)
      const future =
        (yield* call(`${base}/api/v1/admin/stats/global?from=2999-01-01T00:00:00Z`, { headers: boss })).json
      expect(future).toMatchObject({ requests: 0, users: 0, conversations: 0, averageLatencyMs: null })
      expectErrorBody(
        yield* call(`${base}/api/v1/admin/stats/global?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`, {
          headers: boss
        }),
        400,
        "BAD_REQUEST"
      )

      const hours = (yield* call(`${base}/api/v1/admin/stats/timeseries?interval=HOUR`, { headers: boss })).json
      expect(hours.points).toHaveLength(48)
      expect(hours.points.reduce((sum: number, p: { requests: number }) => sum + p.requests, 0)).toBe(8)
      expect(hours.points.at(-1)).toMatchObject({ requests: 8, users: 2, conversations: 7 })
      const days = (yield* call(
        `${base}/api/v1/admin/stats/timeseries?interval=DAY&from=2026-01-01T00:00:00Z&to=2026-01-08T00:00:00Z`,
        { headers: boss }
      )).json
      expect(days.points.map((p: { start: string }) => p.start)).toEqual(
        [1, 2, 3, 4, 5, 6, 7].map((d) => `2026-01-0${d}T00:00:00.000Z`)
      )
      expectErrorBody(
        yield* call(`${base}/api/v1/admin/stats/timeseries?interval=HOUR&from=2000-01-01T00:00:00Z`, { headers: boss }),
        400,
        "BAD_REQUEST"
      )
      expectErrorBody(
        yield* call(`${base}/api/v1/admin/stats/timeseries?interval=YEAR`, { headers: boss }),
        400,
        "BAD_REQUEST"
      )

      const models = (yield* call(`${base}/api/v1/admin/stats/llm-distribution`, { headers: boss })).json
      expect(
        models.map((m: { provider: string; model: string; requests: number }) => [m.provider, m.model, m.requests])
      ).toEqual([["main", "m1", 6], ["alt", "m2", 2]])
      expect(models[0].share).toBeCloseTo(0.75)

      const adoption = (yield* call(`${base}/api/v1/admin/stats/feature-adoption`, { headers: boss })).json
      expect(adoption.activeUsers).toBe(2)
      const feature = Object.fromEntries(adoption.features.map((f: { feature: string }) => [f.feature, f]))
      expect(feature.STREAMING).toMatchObject({ requests: 1, users: 1, adoption: 0.5 })
      expect(feature.PROMPTS).toMatchObject({ requests: 3, users: 2, adoption: 1 })
      expect(feature.IMAGES).toMatchObject({ requests: 1, users: 1 })
      expect(feature.RETRY).toMatchObject({ requests: 1, users: 1 })
      expect(feature.FEEDBACK).toMatchObject({ requests: 1, users: 1 })
      // dave's follow-up, and erin's retry in the streamed conversation.
      expect(feature.MULTI_TURN).toMatchObject({ requests: 2, users: 2 })

      const top = (yield* call(`${base}/api/v1/admin/stats/top-prompts-time-saved?limit=5`, { headers: boss })).json
      expect(top).toEqual([
        { promptId: "summarise", name: "Summarise", uses: 2, timeSavedSeconds: 600 },
        { promptId: "greet", name: null, uses: 1, timeSavedSeconds: 10 }
      ])
      // Another tenant sees none of it.
      expect((yield* call(`${base}/api/v1/admin/stats/global`, { headers: as("hooli", "x", "gw-admin") })).json)
        .toMatchObject({ requests: 0, prompts: 0 })
    }))
})
