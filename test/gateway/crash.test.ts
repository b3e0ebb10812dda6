/**
 * A gateway process killed while it waits for an answer, on the embedded database: after a restart
 * the cut-off request is FAILED with a reason, not RUNNING forever (the embedded database belongs
 * to one process, so whatever is still RUNNING when it starts was cut off).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { newDataDir } from "../../src/layers/Test.ts"
import { eventually, FakeLlmServer } from "../support/fake-llm.ts"
import { as, json } from "../support/gateway.ts"
import { call } from "../support/http.ts"
import { awaitExit, freePort, startService } from "../support/processes.ts"

const alice = as("acme", "alice")

describe("a gateway killed mid-request", () => {
  it.scoped("leaves no request RUNNING after a restart on the embedded database", () =>
    Effect.gen(function*() {
      const fake = yield* FakeLlmServer.scoped
      const env = { DATA_DIR: newDataDir(), DATABASE_URL: "" }
      const port = yield* freePort
      const first = yield* startService("gateway", env, port)
      yield* call(`${first.base}/api/v1/admin/llm/provider-conf`, json(alice, { id: "local", type: "openai-compatible", model: "m", baseUrl: `${fake.url}/v1` }))
      fake.script({ text: "Never seen.", wholeDelayMs: 30_000 })
      void fetch(`${first.base}/api/v1/requests`, json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "Cut off" }] }] })).catch(() => undefined)
      yield* eventually(() => fake.requests.length === 1, 10_000, "the request to reach the provider")
      first.child.kill("SIGKILL")
      yield* awaitExit(first.child)

      const second = yield* startService("gateway", env, port)
      const conversation = (yield* call(`${second.base}/api/v1/conversations`, { headers: alice })).json.content[0]
      expect(conversation.title).toBe("Cut off")
      const request = (yield* call(`${second.base}/api/v1/requests?conversation=${conversation.id}`, { headers: alice })).json.content[0]
      expect(request).toMatchObject({ status: "FAILED", errorMessage: "The gateway stopped before the answer was complete" })
      expect(request.completedAt).not.toBeNull()
    }), { timeout: 120_000 })
})
