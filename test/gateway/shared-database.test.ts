/**
 * Two gateways on one PostgreSQL database, as behind a load balancer: a stop that reaches the
 * instance that is not generating still stops the generation (passed on with NOTIFY), and the
 * upstream call is cancelled; a user's WebSocket on one instance carries what the other streams.
 * PGlite is one process's database, so this runs only when DATABASE_URL is set (as in CI).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted, Stream } from "effect"
import { gatewayTestLayer, GatewayUrl, isolatedDatabaseUrl, newDataDir } from "../../src/layers/Test.ts"
import { relayChannelName } from "../../src/services/gateway/channels/ChannelRelay.ts"
import { eventually, FakeLlmServer } from "../support/fake-llm.ts"
import { as, json, readEvents, useFakeProvider } from "../support/gateway.ts"
import { call } from "../support/http.ts"
import { openChannel } from "../support/websocket.ts"

const databaseUrl = process.env.DATABASE_URL
const alice = as("acme", "alice")

const gatewayAt = (config: Record<string, string>) =>
  Layer.build(gatewayTestLayer(config)).pipe(Effect.map((context) => Context.get(context, GatewayUrl)))

/** The fake provider, and two gateways on one fresh schema of the database, as behind a load balancer. */
const twoGateways = (firstConfig: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const fake = yield* FakeLlmServer.scoped
    const database = yield* isolatedDatabaseUrl(databaseUrl!)
    const config = { DATABASE_URL: database.url, GATEWAY_MASTER_KEY: "shared-master-key" }
    const first = yield* gatewayAt({ ...config, ...firstConfig, DATA_DIR: newDataDir() })
    const second = yield* gatewayAt({ ...config, DATA_DIR: newDataDir() })
    return { fake, database, config, first, second }
  })

/** What the gateways of `schema` say to each other, as a listener of their NOTIFY channel hears it. */
const overhear = (url: string, schema: string) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
    const pg = Context.get(context, PgClient.PgClient)
    const channel = relayChannelName(schema)
    const heard: Array<any> = []
    yield* pg.listen(channel).pipe(
      Stream.runForEach((payload) => Effect.sync(() => heard.push(JSON.parse(payload)))),
      Effect.forkScoped
    )
    // Listening once it hears itself.
    yield* pg`SELECT pg_notify(${channel}, '{"from":"test","messages":[]}')`.pipe(
      Effect.zipRight(Effect.sleep("50 millis")),
      Effect.repeat({ until: () => heard.length > 0 }),
      Effect.orDie
    )
    heard.length = 0
    return heard
  })

/** Whether an instance has said it holds a channel of `user`. */
const says = (heard: ReadonlyArray<any>, user: string) =>
  heard.some((p) => (p.messages ?? []).some((m: any) => m.k === "present" && m.users.some((u: any) => u[1] === user)))

/** The users whose events were passed on whole (a piece's message is not read here). */
const relayedUsers = (heard: ReadonlyArray<any>) =>
  heard.flatMap((p) => (p.messages ?? []).filter((m: any) => m.k === "events").map((m: any) => m.user.join("/")))

/** A streamed answer's events as the SSE client saw them, as a channel carries them. */
const streamedOn = (base: string, headers: Record<string, string>, question: string) =>
  readEvents(`${base}/api/v1/requests/stream`, json(headers, text(question))).pipe(
    Effect.map(({ events }) => {
      const all = events.map((e) => ({ event: e.event, data: JSON.parse(e.data) }))
      const { conversationId, requestId } = all[0]!.data
      return all.map((e) => ({ requestId, conversationId, ...e }))
    })
  )

describe("several gateways on one database", () => {
  it.scoped.skipIf(!databaseUrl)(
    "a stop sent to another instance stops the generation and closes the upstream call",
    () =>
      Effect.gen(function*() {
        const { fake, first, second } = yield* twoGateways()
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

  it.scoped.skipIf(!databaseUrl)(
    "a user's WebSocket on one instance carries what another streams, in order and whole; only users with a channel there cross the database",
    () =>
      Effect.gen(function*() {
        const { config, database, fake, first, second } = yield* twoGateways()
        // Another deployment in another schema of the same database, with a user of the same name.
        const elsewhere = yield* isolatedDatabaseUrl(databaseUrl!)
        const other = yield* gatewayAt({ ...config, DATABASE_URL: elsewhere.url, DATA_DIR: newDataDir() })
        yield* useFakeProvider(first, fake.url, as("acme", "admin"))
        const heard = yield* overhear(database.url, database.schema)
        const ws = (base: string) => base.replace(/^http/, "ws")
        const bob = as("acme", "bob")
        const alices = yield* openChannel(`${ws(second)}/ws/alice`, alice)
        const bobs = yield* openChannel(`${ws(second)}/ws/bob`, bob)
        const namesake = yield* openChannel(`${ws(other)}/ws/alice`, alice)
        expect([alices.opened(), bobs.opened(), namesake.opened()]).toEqual([true, true, true])
        yield* eventually(
          () => says(heard, "alice") && says(heard, "bob"),
          10_000,
          "the second instance to say whose channels it holds"
        )

        // Deltas longer than a notification can hold, in characters of one to four bytes.
        const long = Array.from({ length: 3000 }, (_, i) => `ż${i}🙂é `).join("")
        fake.script({ text: long, chunks: 2, delayMs: 50 })
        const sse = yield* streamedOn(first, alice, "Write at length")
        yield* eventually(
          () => alices.messages.some((m) => m.event === "done"),
          10_000,
          "Alice's done event on the second instance"
        )
        expect(alices.messages).toEqual(sse)
        expect(alices.messages.filter((m) => m.event === "delta").map((m) => m.data.text).join("")).toBe(long)
        expect(heard.some((p) => p.piece !== undefined)).toBe(true)

        // Carol has no channel anywhere: her events stay on the first instance.
        fake.script({ text: "Nobody is listening." })
        yield* streamedOn(first, as("acme", "carol"), "Unheard")
        // Bob's generation reaches his channel: once it has, Carol's would have been passed on before it.
        const bobsAnswer = yield* streamedOn(first, bob, "Bob's question")
        yield* eventually(() => bobs.messages.some((m) => m.event === "done"), 10_000, "Bob's done event")
        expect(bobs.messages).toEqual(bobsAnswer)
        expect(relayedUsers(heard)).not.toContain("acme/carol")
        expect(relayedUsers(heard)).toContain("acme/bob")
        expect(namesake.messages).toEqual([])
      }),
    { timeout: 120_000 }
  )

  it.scoped.skipIf(!databaseUrl)(
    "events that cannot wait for the database close the user's channels on the other instance rather than leave a hole",
    () =>
      Effect.gen(function*() {
        // No room at all for messages waiting on the first instance: every relayed event overflows.
        const { database, fake, first, second } = yield* twoGateways({ CHANNEL_RELAY_QUEUE: "0" })
        yield* useFakeProvider(first, fake.url, as("acme", "admin"))
        const heard = yield* overhear(database.url, database.schema)
        const alices = yield* openChannel(`${second.replace(/^http/, "ws")}/ws/alice`, alice)
        expect(alices.opened()).toBe(true)
        yield* eventually(() => says(heard, "alice"), 10_000, "the second instance to say it holds Alice's channel")
        fake.script({ text: "Lost on the way.", chunks: 3, delayMs: 20 })
        yield* streamedOn(first, alice, "Overflow")
        yield* eventually(() => alices.closed(), 10_000, "Alice's channel on the second instance to close")
        expect(alices.messages).toEqual([])
      }),
    { timeout: 120_000 }
  )
})

const text = (value: string) => ({ inputs: [{ role: "user", content: [{ type: "text", value }] }] })
