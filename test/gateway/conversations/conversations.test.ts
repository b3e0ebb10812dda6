/**
 * Conversations as a user sees them: created, listed by page and title, fetched, deleted; each
 * user sees only their own, each tenant only its own.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { as, expectErrorBody, json } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"

layer(gatewayTestLayer(defaultBackend.config), { timeout: 120_000 })("gateway conversations", (it) => {
  it.effect("create, list (paginated, search on title), get, delete; 404 for another user's or tenant's", () =>
    Effect.gen(function*() {
      const base = yield* GatewayUrl
      const url = `${base}/api/v1/conversations`
      const alice = as("acme", "alice")
      const titles = ["Quarterly report", "Contract review", "Quarterly budget", "Travel policy", "Onboarding"]
      const ids: Array<string> = []
      for (const title of titles) {
        const created = yield* call(url, json(alice, { title }))
        expect(created.status).toBe(201)
        expect(created.json).toMatchObject({ title, userId: "alice" })
        expect(created.json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/)
        ids.push(created.json.id)
      }
      expect((yield* call(url, json(alice, {}))).json.title).toBe("New conversation")

      const first = (yield* call(`${url}?page=0&size=4`, { headers: alice })).json
      expect(first).toMatchObject({ page: 0, size: 4, totalElements: 6, totalPages: 2 })
      expect(first.content).toHaveLength(4)
      const second = (yield* call(`${url}?page=1&size=4`, { headers: alice })).json
      expect(second.content).toHaveLength(2)
      // Most recently active first, no conversation twice.
      expect(new Set([...first.content, ...second.content].map((c: { id: string }) => c.id)).size).toBe(6)
      expect(first.content[0].title).toBe("New conversation")

      const found = (yield* call(`${url}?search=quarterly`, { headers: alice })).json
      expect(found.content.map((c: { title: string }) => c.title).sort()).toEqual([
        "Quarterly budget",
        "Quarterly report"
      ])
      expect((yield* call(`${url}?search=${encodeURIComponent("100%")}`, { headers: alice })).json.totalElements).toBe(
        0
      )
      expectErrorBody(yield* call(`${url}?size=0`, { headers: alice }), 400, "BAD_REQUEST")
      expectErrorBody(yield* call(`${url}?page=-1`, { headers: alice }), 400, "BAD_REQUEST")

      expect((yield* call(`${url}/${ids[0]}`, { headers: alice })).json.title).toBe("Quarterly report")
      // Another user of the tenant, and another tenant: nothing of alice's.
      expectErrorBody(yield* call(`${url}/${ids[0]}`, { headers: as("acme", "bob") }), 404, "NOT_FOUND")
      expectErrorBody(yield* call(`${url}/${ids[0]}`, { headers: as("globex", "alice") }), 404, "NOT_FOUND")
      expect((yield* call(url, { headers: as("acme", "bob") })).json.totalElements).toBe(0)
      expectErrorBody(
        yield* call(`${url}/${ids[0]}`, { method: "DELETE", headers: as("acme", "bob") }),
        404,
        "NOT_FOUND"
      )

      expect((yield* call(`${url}/${ids[0]}`, { method: "DELETE", headers: alice })).status).toBe(204)
      expectErrorBody(yield* call(`${url}/${ids[0]}`, { headers: alice }), 404, "NOT_FOUND")
      expectErrorBody(yield* call(url), 400, "MISSING_TENANT")
    }))
})
