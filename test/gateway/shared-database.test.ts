/**
 * Two gateways on one PostgreSQL database, as behind a load balancer: a stop that reaches the
 * instance that is not generating still stops the generation (passed on with NOTIFY), and the
 * upstream call is cancelled. PGlite is one process's database, so this runs only when
 * DATABASE_URL is set (as in CI).
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { gatewayTestLayer, GatewayUrl, isolatedDatabaseUrl, newDataDir } from "../../src/layers/Test.ts"
import { eventually, FakeLlmServer } from "../support/fake-llm.ts"
import { as, json, readEvents } from "../support/gateway.ts"
import { call } from "../support/http.ts"

const databaseUrl = process.env.DATABASE_URL
const alice = as("acme", "alice")

const gatewayAt = (config: Record<string, string>) =>
  Layer.build(gatewayTestLayer(config)).pipe(Effect.map((context) => Context.get(context, GatewayUrl)))

describe("several gateways on one database", () => {
  it.scoped.skipIf(!databaseUrl)(
    "a stop sent to another instance stops the generation and closes the upstream call",
    () =>
      Effect.gen(function*() {
        const fake = yield* FakeLlmServer.scoped
        const database = yield* isolatedDatabaseUrl(databaseUrl!)
        const config = { DATABASE_URL: database.url, GATEWAY_MASTER_KEY: "shared-master-key" }
        const first = yield* gatewayAt({ ...config, DATA_DIR: newDataDir() })
        const second = yield* gatewayAt({ ...config, DATA_DIR: newDataDir() })
        yield* call(
          `${first}/api/v1/admin/llm/provider-conf`,
          json(alice, {
            id: "local",
            type: "openai-compatible",
            model: "m",
            baseUrl: `${fake.url}/v1`,
            isDefault: true
          })
        )

        fake.script({ text: "a b c d e f g h i j", chunks: 10, delayMs: 200 })
        let stopAnswer: Promise<unknown> | undefined
        const answer = yield* readEvents(
          `${first}/api/v1/requests/stream`,
          json(alice, text("Letters")),
          (event, all) => {
            if (
              event.event === "delta" && all.filter((e) => e.event === "delta").length === 2
            ) {
              const conversationId = JSON.parse(all[0]!.data).conversationId
              stopAnswer = fetch(`${second}/api/v1/conversations/${conversationId}/stop`, {
                method: "POST",
                headers: alice
              }).then((r) => r.json())
            }
          }
        )
        // The stream may end (stopped) before the stop's own answer is read.
        expect(yield* Effect.promise(() => stopAnswer!)).toEqual({ stopped: true })
        const done = JSON.parse(answer.events.at(-1)!.data)
        expect(done.status).toBe("STOPPED")
        yield* eventually(() => fake.requests.at(-1)!.disconnected, 5_000, "the upstream call to be cancelled")
        expect(fake.requests.at(-1)!.chunksSent).toBeLessThan(10)
        // Recorded STOPPED (a read on the first instance waits for its pending records), nothing is
        // running any more: a second stop, on either instance, finds nothing.
        expect((yield* call(`${first}/api/v1/requests/${done.requestId}`, { headers: alice })).json.status).toBe(
          "STOPPED"
        )
        const conversationId = done.conversationId
        expect((yield* call(`${second}/api/v1/conversations/${conversationId}/stop`, json(alice, {}))).json).toEqual({
          stopped: false
        })
        expect((yield* call(`${first}/api/v1/conversations/${conversationId}/stop`, json(alice, {}))).json).toEqual({
          stopped: false
        })
      }),
    { timeout: 120_000 }
  )
})

const text = (value: string) => ({ inputs: [{ role: "user", content: [{ type: "text", value }] }] })
