/**
 * A gateway process killed while it waits for an answer, on the embedded database: after a restart
 * the cut-off request (already recorded RUNNING) is FAILED with a reason, not RUNNING forever (the
 * embedded database belongs to one process, so whatever is still RUNNING when it starts was cut
 * off). A gateway stopped gracefully writes the records it held (they are written behind the
 * answers) before it exits.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { newDataDir } from "../../../src/layers/Test.ts"
import { eventually, FakeLlmServer } from "../../support/fake-llm.ts"
import { as, json } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"
import { awaitExit, freePort, startService } from "../../support/processes.ts"

const alice = as("acme", "alice")

describe("a gateway killed mid-request", () => {
  it.scoped("leaves no request RUNNING after a restart on the embedded database", () =>
    Effect.gen(function*() {
      const fake = yield* FakeLlmServer.scoped
      const env = { DATA_DIR: newDataDir(), DATABASE_URL: "" }
      const port = yield* freePort
      const first = yield* startService("gateway", env, port)
      yield* call(
        `${first.base}/api/v1/admin/llm/provider-conf`,
        json(alice, { id: "local", type: "openai-compatible", model: "m", baseUrl: `${fake.url}/v1` })
      )
      fake.script({ text: "Never seen.", wholeDelayMs: 30_000 })
      void fetch(
        `${first.base}/api/v1/requests`,
        json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "Cut off" }] }] })
      ).catch(() => undefined)
      yield* eventually(() => fake.requests.length === 1, 10_000, "the request to reach the provider")
      // Records are written behind the requests (within REQUEST_RECORD_DELAY); a read waits for them,
      // so the RUNNING request is in the database when the process dies.
      expect((yield* call(`${first.base}/api/v1/conversations`, { headers: alice })).json.content).toHaveLength(1)
      first.child.kill("SIGKILL")
      yield* awaitExit(first.child)

      const second = yield* startService("gateway", env, port)
      const conversation = (yield* call(`${second.base}/api/v1/conversations`, { headers: alice })).json.content[0]
      expect(conversation.title).toBe("Cut off")
      const request =
        (yield* call(`${second.base}/api/v1/requests?conversation=${conversation.id}`, { headers: alice })).json
          .content[0]
      expect(request).toMatchObject({
        status: "FAILED",
        errorMessage: "The gateway stopped before the answer was complete"
      })
      expect(request.completedAt).not.toBeNull()
    }), { timeout: 120_000 })

  it.scoped(
    "a gateway stopped gracefully writes the records it still held before it exits",
    () =>
      Effect.gen(function*() {
        const fake = yield* FakeLlmServer.scoped
        // Records wait a minute to be written: the answer's record is certainly still held at the stop.
        const env = { DATA_DIR: newDataDir(), DATABASE_URL: "", REQUEST_RECORD_DELAY: "1 minute" }
        const port = yield* freePort
        const first = yield* startService("gateway", env, port)
        yield* call(
          `${first.base}/api/v1/admin/llm/provider-conf`,
          json(alice, { id: "local", type: "openai-compatible", model: "m", baseUrl: `${fake.url}/v1` })
        )
        fake.script({ text: "Kept through the stop." })
        const answer = yield* call(
          `${first.base}/api/v1/requests`,
          json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "Before the stop" }] }] })
        )
        expect(answer.status).toBe(201)
        first.child.kill("SIGTERM")
        yield* awaitExit(first.child)

        const second = yield* startService("gateway", env, port)
        expect((yield* call(`${second.base}/api/v1/requests/${answer.json.id}`, { headers: alice })).json).toEqual(
          answer.json
        )
      }),
    { timeout: 120_000 }
  )
})
