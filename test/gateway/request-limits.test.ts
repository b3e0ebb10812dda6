/**
 * What a request may cost the gateway: a JSON body past GATEWAY_MAX_JSON_BODY_BYTES is refused
 * before it is read, and a refusal quotes a long value briefly, in the spec's error body.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../src/layers/Test.ts"
import { defaultBackend } from "../support/backends.ts"
import { as, expectErrorBody } from "../support/gateway.ts"
import { call } from "../support/http.ts"

const alice = as("acme", "alice")
const post = (url: string, body: string) =>
  call(url, { method: "POST", headers: { ...alice, "content-type": "application/json" }, body })

layer(gatewayTestLayer({ ...defaultBackend.config, GATEWAY_MAX_JSON_BODY_BYTES: "1000000" }), { timeout: 120_000 })(
  "gateway request limits",
  (it) => {
    it.effect("a JSON body past GATEWAY_MAX_JSON_BODY_BYTES: BAD_REQUEST naming the setting", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const reply = yield* post(`${base}/api/v1/conversations`, JSON.stringify({ title: "x".repeat(1_100_000) }))
        expectErrorBody(reply, 400, "BAD_REQUEST")
        expect(reply.json.message).toContain("(GATEWAY_MAX_JSON_BODY_BYTES)")
      }))

    it.effect("a title far past its 200 characters is quoted briefly", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const reply = yield* post(`${base}/api/v1/conversations`, JSON.stringify({ title: "x".repeat(500_000) }))
        expectErrorBody(reply, 400, "BAD_REQUEST")
        expect(reply.bytes.byteLength).toBeLessThan(2_000)
        expect(reply.json.message).toContain("(500000 characters)")
      }))
  }
)
