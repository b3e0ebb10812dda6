/**
 * Several gateways on one PostgreSQL database, behind a load balancer: a user's WebSocket on one
 * instance sees the generations another instance streams. The instances talk on one NOTIFY
 * channel. Each tells the others which users have a channel open on it (when the first opens,
 * the last closes, every CHANNEL_RELAY_ANNOUNCE_INTERVAL, and to an instance that has just
 * started), and an instance passes a generation's events on only for a user with a channel open
 * elsewhere: nobody else's events cross the database. PGlite is one process's database: nothing
 * to relay.
 *
 * What NOTIFY guarantees and what it does not: a notification arrives once its statement
 * commits, in commit order, so one sender writing its notifications one after another keeps its
 * events in order; a payload holds at most 8000 bytes, so a larger message (a long delta, a tool
 * call's arguments, many users) is sent in pieces, base64 so that no escaping can grow them, and
 * put together on arrival.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Config, Duration, Effect, Option, Queue, Schedule, Stream } from "effect"
import { createHash } from "node:crypto"
import type { GenerationEvent } from "../../../schemas/gateway/Requests.ts"
import { durationConfig } from "../../common/DurationConfig.ts"

/**
 * The NOTIFY channel of the gateways whose tables are in `schema`. A channel is the whole
 * database's, and two deployments may share a database, each in a schema of its own (their
 * tenants and users may have the same names); PostgreSQL takes at most 63 bytes for its name.
 */
export const relayChannelName = (schema: string) =>
  `gateway_channels_${createHash("sha256").update(schema).digest("hex").slice(0, 16)}`
/** PostgreSQL's limit on a payload is 8000 bytes; this leaves room for the piece's own fields. */
const PAYLOAD_BYTES = 7900
const PIECE_CHARS = 7600

export const ChannelRelayConfig = Config.all({
  /** How often an instance tells the others whose channels it holds; an instance silent for three of these is taken as gone. */
  announceEvery: durationConfig("CHANNEL_RELAY_ANNOUNCE_INTERVAL", "30 seconds"),
  /** Messages waiting for the database past which a user's relayed channels are reset rather than the messages kept. */
  queue: Config.integer("CHANNEL_RELAY_QUEUE").pipe(Config.withDefault(10_000))
})

export interface Owner {
  readonly tenantId: string
  readonly userId: string
}
export interface Generation {
  readonly requestId: string
  readonly conversationId: string
}
type UserKey = readonly [tenantId: string, userId: string]

/** What the instances say to each other. */
type Message =
  /** An instance has just started (or listens again): everyone says whose channels they hold. */
  | { readonly k: "hello" }
  | { readonly k: "present"; readonly users: ReadonlyArray<UserKey> }
  | { readonly k: "closed"; readonly user: UserKey }
  /** The instance stops: it holds no channel any more. */
  | { readonly k: "bye" }
  | {
    readonly k: "events"
    readonly user: UserKey
    readonly generation: Generation
    readonly events: ReadonlyArray<GenerationEvent>
  }
  /** Events of the user were lost on the way (the queue was full): their channels there close, and their clients reconnect. */
  | { readonly k: "reset"; readonly user: UserKey }

type Payload =
  | { readonly from: string; readonly messages: ReadonlyArray<Message> }
  | {
    readonly from: string
    readonly piece: { readonly id: number; readonly index: number; readonly count: number; readonly data: string }
  }

/** Where relayed messages arrive in this instance: its own channels of the user. */
export interface LocalChannels {
  readonly deliver: (owner: Owner, generation: Generation, events: ReadonlyArray<GenerationEvent>) => void
  readonly reset: (owner: Owner) => void
  readonly users: () => Iterable<Owner>
}

export interface ChannelRelay {
  /** The first channel of the user opened in this instance. */
  readonly opened: (owner: Owner) => void
  /** The last channel of the user closed in this instance. */
  readonly closed: (owner: Owner) => void
  /** Passes the events on to the instances holding a channel of their user; must not wait. */
  readonly forward: (owner: Owner, generation: Generation, events: ReadonlyArray<GenerationEvent>) => void
}

const noRelay: ChannelRelay = { opened: () => {}, closed: () => {}, forward: () => {} }

const keyOf = (tenantId: string, userId: string) => `${tenantId}\u0000${userId}`
const ownerOf = ([tenantId, userId]: UserKey): Owner => ({ tenantId, userId })

/** The notifications that carry `messages`: as many to one as fit, a message too large for one in pieces. */
const payloadsOf = (from: string, messages: ReadonlyArray<Message>, nextPieceId: () => number) => {
  const payloads: Array<string> = []
  let batch: Array<Message> = []
  const flush = () => {
    if (batch.length > 0) payloads.push(JSON.stringify({ from, messages: batch } satisfies Payload))
    batch = []
  }
  for (const message of messages) {
    const alone = JSON.stringify({ from, messages: [message] } satisfies Payload)
    if (Buffer.byteLength(alone) > PAYLOAD_BYTES) {
      flush()
      const data = Buffer.from(alone).toString("base64")
      const count = Math.ceil(data.length / PIECE_CHARS)
      const id = nextPieceId()
      for (let index = 0; index < count; index++) {
        const piece = { id, index, count, data: data.slice(index * PIECE_CHARS, (index + 1) * PIECE_CHARS) }
        payloads.push(JSON.stringify({ from, piece } satisfies Payload))
      }
      continue
    }
    const together = JSON.stringify({ from, messages: [...batch, message] } satisfies Payload)
    if (Buffer.byteLength(together) > PAYLOAD_BYTES) flush()
    batch.push(message)
  }
  flush()
  return payloads
}

/** The relay of this instance for the life of the scope: on PostgreSQL, else none. */
export const channelRelay = (local: LocalChannels) =>
  Effect.gen(function*() {
    const pg = yield* Effect.serviceOption(PgClient.PgClient)
    if (Option.isNone(pg)) return noRelay
    const sql = yield* SqlClient.SqlClient
    const config = yield* Effect.orDie(ChannelRelayConfig)
    const [where] = yield* sql<{ readonly schema: string }>`SELECT current_schema() AS schema`.pipe(Effect.orDie)
    const channel = relayChannelName(where?.schema ?? "public")
    const self = crypto.randomUUID()
    const goneAfterMs = 3 * Duration.toMillis(config.announceEvery)

    /** Which other instances hold a channel of each user, and when they last said so. */
    const elsewhere = new Map<string, Map<string, number>>()
    const outbox: Array<Message> = []
    const resets = new Map<string, UserKey>()
    const wake = yield* Queue.sliding<void>(1)
    /** This instance's own hello came back: it was listening by then. */
    let heard = false
    let pieceId = 0
    /** Pieces arriving from each instance: its notifications come in the order it sent them. */
    const arriving = new Map<string, { id: number; parts: Array<string> }>()

    const send = (message: Message) => {
      outbox.push(message)
      Queue.unsafeOffer(wake, undefined)
    }
    /** Whether another instance still holds a channel of the user; forgets the instances silent too long. */
    const listenedElsewhere = (key: string) => {
      const instances = elsewhere.get(key)
      if (instances === undefined) return false
      const now = Date.now()
      for (const [instance, seen] of instances) if (now - seen > goneAfterMs) instances.delete(instance)
      if (instances.size === 0) elsewhere.delete(key)
      return instances.size > 0
    }
    const forgetSilent = () => {
      for (const key of elsewhere.keys()) listenedElsewhere(key)
    }
    const present = () => {
      const users = [...local.users()].map((o) => [o.tenantId, o.userId] as const)
      if (users.length > 0) send({ k: "present", users })
    }

    const receive = (from: string, message: Message) => {
      if (from === self) {
        if (message.k === "hello") heard = true
        return
      }
      switch (message.k) {
        case "hello":
          return present()
        case "present":
          for (const [tenantId, userId] of message.users) {
            const key = keyOf(tenantId, userId)
            const instances = elsewhere.get(key) ?? new Map<string, number>()
            elsewhere.set(key, instances.set(from, Date.now()))
          }
          return
        case "closed":
          elsewhere.get(keyOf(...message.user))?.delete(from)
          return
        case "bye":
          for (const instances of elsewhere.values()) instances.delete(from)
          return
        case "events":
          return local.deliver(ownerOf(message.user), message.generation, message.events)
        case "reset":
          return local.reset(ownerOf(message.user))
      }
    }

    const arrived = (text: string) => {
      let payload: Payload
      try {
        payload = JSON.parse(text) as Payload
      } catch {
        return Effect.logWarning("A channel relay notification is not JSON; it is ignored")
      }
      if ("piece" in payload) {
        const { id, index, count, data } = payload.piece
        const partial = index === 0 ? { id, parts: [] } : arriving.get(payload.from)
        if (partial === undefined || partial.id !== id || partial.parts.length !== index) {
          arriving.delete(payload.from)
          return Effect.logWarning(`A piece of a channel relay message from ${payload.from} is out of order; dropped`)
        }
        partial.parts.push(data)
        if (partial.parts.length < count) {
          arriving.set(payload.from, partial)
          return Effect.void
        }
        arriving.delete(payload.from)
        return arrived(Buffer.from(partial.parts.join(""), "base64").toString())
      }
      for (const message of payload.messages) receive(payload.from, message)
      return Effect.void
    }

    // One notification after another, each awaited: they then arrive in the order they were sent.
    const notify = (payload: string) => sql`SELECT pg_notify(${channel}, ${payload})`
    const sender = Effect.gen(function*() {
      while (true) {
        yield* Queue.take(wake)
        const messages: Array<Message> = [...[...resets.values()].map((user) => ({ k: "reset", user }) as const)]
        resets.clear()
        messages.push(...outbox.splice(0))
        for (const payload of payloadsOf(self, messages, () => ++pieceId)) {
          yield* notify(payload).pipe(
            Effect.tapError((error) => Effect.logWarning("A channel relay notification failed; trying again", error)),
            Effect.retry(Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("5 seconds"))))
          )
        }
      }
    })

    yield* pg.value.listen(channel).pipe(
      Stream.runForEach(arrived),
      Effect.tapError((error) =>
        Effect.logWarning("Listening for relayed channel events failed; listening again", error)
      ),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )
    yield* Effect.forkScoped(sender)
    // Hello until this instance hears its own: then it was listening when the others answered.
    yield* Effect.sync(() => send({ k: "hello" })).pipe(
      Effect.zipRight(Effect.sleep("250 millis")),
      Effect.repeat({ until: () => heard, times: 40 }),
      Effect.zipRight(
        Effect.sync(() => (forgetSilent(), present())).pipe(Effect.repeat(Schedule.spaced(config.announceEvery)))
      ),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() =>
      notify(JSON.stringify({ from: self, messages: [{ k: "bye" }] })).pipe(Effect.ignore)
    )

    return {
      opened: (owner) => send({ k: "present", users: [[owner.tenantId, owner.userId]] }),
      closed: (owner) => send({ k: "closed", user: [owner.tenantId, owner.userId] }),
      forward: (owner, generation, events) => {
        const key = keyOf(owner.tenantId, owner.userId)
        if (!listenedElsewhere(key)) return
        if (outbox.length >= config.queue) {
          resets.set(key, [owner.tenantId, owner.userId])
          Queue.unsafeOffer(wake, undefined)
          return
        }
        send({ k: "events", user: [owner.tenantId, owner.userId], generation, events })
      }
    } satisfies ChannelRelay
  })
