/**
 * An internal failure (here: a table the gateway needs is gone) as a client and an operator see it:
 * 500 with exactly the spec's error body, whose message names the step that failed and why and
 * carries an error identifier, also in `X-Error-Id` and in the log line (docs/gateway-requests.md).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../src/layers/Test.ts"
import { defaultBackend } from "../support/backends.ts"
import { as, expectErrorBody, json } from "../support/gateway.ts"
import { call } from "../support/http.ts"

const logged: Array<string> = []
const captureLogs = Logger.add(Logger.make(({ message }) => void logged.push(JSON.stringify(message))))
const alice = as("acme", "alice")

layer(gatewayTestLayer(defaultBackend.config).pipe(Layer.provide(captureLogs)), { timeout: 120_000 })(
  "gateway internal errors",
  (it) => {
    it.effect("a defect: INTERNAL_ERROR naming the step that failed, with an identifier the log line carries", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        expect((yield* call(`${base}/api/v1/conversations`, json(alice, { title: "before" }))).status).toBe(201)
        const sql = yield* SqlClient.SqlClient
        yield* sql`ALTER TABLE conversations RENAME TO conversations_elsewhere`
        const reply = yield* call(`${base}/api/v1/conversations`, { headers: alice })
        yield* sql`ALTER TABLE conversations_elsewhere RENAME TO conversations`
        expectErrorBody(reply, 500, "INTERNAL_ERROR")
        const errorId = reply.headers.get("x-error-id")
        expect(errorId).toMatch(/^[0-9a-f]{12}$/)
        expect(reply.json.message).toMatch(
          /^Internal error in Conversations\.\w+: SqlError: .*conversations.* \(error [0-9a-f]{12}\)$/
        )
        expect(reply.json.message).toContain(errorId)
        expect(logged.some((line) => line.includes(`Error ${errorId}`) && line.includes("GET /api/v1/conversations")))
          .toBe(true)
        expect((yield* call(`${base}/api/v1/conversations`, { headers: alice })).status).toBe(200)
      }))
  }
)
