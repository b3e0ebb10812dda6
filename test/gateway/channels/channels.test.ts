/**
 * The WebSocket /ws/{userId}: a user's streamed generations arrive on their channel as they are
 * generated, the same events as the SSE answer; nobody else's channel sees them, and asking for
 * another user's channel is refused before any upgrade.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SignJWT } from "jose"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { eventually, FakeLlmServer } from "../../support/fake-llm.ts"
import { as, expectErrorBody, json, readEvents, useFakeProvider } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"
import { handshake, openChannel } from "../../support/websocket.ts"

const alice = as("acme", "alice")
const bob = as("acme", "bob")

const ask = (question: string) => ({ inputs: [{ role: "user", content: [{ type: "text", value: question }] }] })

const setup = Effect.gen(function*() {
  const base = yield* GatewayUrl
  const fake = yield* FakeLlmServer
  for (const tenant of ["acme", "other"]) {
    yield* useFakeProvider(base, fake.url, as(tenant, "admin"))
  }
  return { base, ws: base.replace(/^http/, "ws"), fake }
})

/** A streamed answer's events as the SSE client saw them: name and data. */
const streamed = (base: string, headers: Record<string, string>, question: string) =>
  readEvents(`${base}/api/v1/requests/stream`, json(headers, ask(question))).pipe(
    Effect.map(({ events }) => events.map((e) => ({ event: e.event, data: JSON.parse(e.data) })))
  )

layer(Layer.provideMerge(gatewayTestLayer(defaultBackend.config), FakeLlmServer.layer), { timeout: 60_000 })(
  "the user's WebSocket channel",
  (it) => {
    it.scoped("carries the user's streamed generation as it is generated, the same events as the SSE answer", () =>
      Effect.gen(function*() {
        const { base, fake, ws } = yield* setup
        const channel = yield* openChannel(`${ws}/ws/alice`, alice)
        expect(channel.opened()).toBe(true)
        fake.script({ text: "Streamed to every window of Alice.", chunks: 4 })
        const sse = yield* streamed(base, alice, "Stream it")
        yield* eventually(() => channel.messages.some((m) => m.event === "done"), 5_000, "the channel's done event")
        const { conversationId, requestId } = sse[0]!.data
        expect(channel.messages).toEqual(sse.map((e) => ({ requestId, conversationId, ...e })))
        expect(channel.messages.filter((m) => m.event === "delta").map((m) => m.data.text).join("")).toBe(
          "Streamed to every window of Alice."
        )
      }))

    it.scoped("refuses another user's channel, and one user's events never reach another's", () =>
      Effect.gen(function*() {
        const { base, ws } = yield* setup
        const refused = yield* handshake(`${base}/ws/alice`, bob)
        expectErrorBody(refused, 403, "FORBIDDEN")
        // Bob tries it with a real WebSocket too, and opens his own; Alice's namesake in another tenant hers.
        const stolen = yield* openChannel(`${ws}/ws/alice`, bob)
        const bobs = yield* openChannel(`${ws}/ws/bob`, bob)
        const namesake = yield* openChannel(`${ws}/ws/alice`, as("other", "alice"))
        expect(stolen.opened()).toBe(false)
        expect([bobs.opened(), namesake.opened()]).toEqual([true, true])

        const alices = yield* openChannel(`${ws}/ws/alice`, alice)
        yield* streamed(base, alice, "Private question")
        yield* eventually(() => alices.messages.some((m) => m.event === "done"), 5_000, "Alice's done event")
        // Bob's own generation reaches his channel: once it has, Alice's would have too.
        yield* streamed(base, bob, "Bob's question")
        yield* eventually(() => bobs.messages.some((m) => m.event === "done"), 5_000, "Bob's done event")
        const bobsRequest = bobs.messages[0].requestId
        expect(bobs.messages.every((m) => m.requestId === bobsRequest)).toBe(true)
        expect(alices.messages.every((m) => m.requestId !== bobsRequest)).toBe(true)
        expect(stolen.messages).toEqual([])
        expect(namesake.messages).toEqual([])
      }))

    it.scoped("is authenticated like REST, and is a WebSocket only", () =>
      Effect.gen(function*() {
        const { base } = yield* setup
        expectErrorBody(yield* handshake(`${base}/ws/alice`, { "x-tenant-id": "acme" }), 400, "MISSING_USER")
        expectErrorBody(yield* handshake(`${base}/ws/alice`, { "x-user-id": "alice" }), 400, "MISSING_TENANT")
        expect((yield* handshake(`${base}/ws/alice`, alice)).status).toBe(101)
        expectErrorBody(yield* call(`${base}/ws/alice`, { headers: alice }), 400, "BAD_REQUEST")
      }))
  }
)

const secret = "a-secret-of-at-least-32-bytes-for-hs256!"
const token = (claims: Record<string, unknown>) =>
  Effect.promise(() =>
    new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime("5m").sign(
      new TextEncoder().encode(secret)
    )
  )

layer(gatewayTestLayer({ ...defaultBackend.config, GATEWAY_AUTH: "jwt", JWT_SECRET: secret }), { timeout: 60_000 })(
  "the user's WebSocket channel with JWT",
  (it) => {
    it.scoped("takes the token as access_token, since a browser cannot set headers on a WebSocket", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const alices = yield* token({ tenant: "acme", sub: "alice" })
        expect((yield* handshake(`${base}/ws/alice?access_token=${alices}`, {})).status).toBe(101)
        expect((yield* handshake(`${base}/ws/alice`, { authorization: `Bearer ${alices}` })).status).toBe(101)
        expectErrorBody(yield* handshake(`${base}/ws/bob?access_token=${alices}`, {}), 403, "FORBIDDEN")
        expectErrorBody(yield* handshake(`${base}/ws/alice?access_token=forged`, {}), 401, "UNAUTHORIZED")
      }))
  }
)
