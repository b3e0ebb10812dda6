/**
 * Each user's live channels (WebSocket /ws/{userId}): the events of the user's streamed
 * generations, handed to every channel that user has open, in this process and, on a PostgreSQL
 * shared by several gateways, in the others (ChannelRelay.ts). A channel is only ever the
 * caller's own: asking for another user's is FORBIDDEN, whatever the roles.
 */
import { Config, Effect, Queue, Stream } from "effect"
import type { ChannelMessage } from "../../../schemas/gateway/Channels.ts"
import { Forbidden } from "../../../schemas/gateway/GatewayErrors.ts"
import type { GenerationEvent } from "../../../schemas/gateway/Requests.ts"
import { CurrentPrincipal } from "../../../schemas/gateway/Tenancy.ts"
import { channelRelay, type Generation, type Owner } from "./ChannelRelay.ts"

/** Events a channel may hold for a client that reads slower than the model writes; past it the channel closes. */
const ChannelBuffer = Config.integer("USER_CHANNEL_BUFFER").pipe(Config.withDefault(10_000))

const keyOf = (tenantId: string, userId: string) => `${tenantId}\u0000${userId}`

interface UserChannelSet {
  readonly owner: Owner
  readonly channels: Set<Queue.Queue<ChannelMessage>>
}

export class UserChannels extends Effect.Service<UserChannels>()("gateway/UserChannels", {
  scoped: Effect.gen(function*() {
    const capacity = yield* Effect.orDie(ChannelBuffer)
    /** The open channels by tenant and user. */
    const open = new Map<string, UserChannelSet>()

    const close = (set: UserChannelSet, channel: Queue.Queue<ChannelMessage>) => {
      set.channels.delete(channel)
      Effect.runFork(Queue.shutdown(channel))
    }

    /**
     * Hands the events to the user's channels in this process, at once. A channel that cannot
     * take them is closed: its client reconnects and reads the conversation, rather than showing
     * an answer with a hole in it.
     */
    const deliver = (owner: Owner, generation: Generation, events: ReadonlyArray<GenerationEvent>) => {
      const set = open.get(keyOf(owner.tenantId, owner.userId))
      if (set === undefined) return
      for (const channel of set.channels) {
        for (const event of events) {
          if (!channel.unsafeOffer({ ...generation, ...event } as ChannelMessage)) {
            close(set, channel)
            break
          }
        }
      }
    }

    const relay = yield* channelRelay({
      deliver,
      reset: (owner) => {
        const set = open.get(keyOf(owner.tenantId, owner.userId))
        if (set !== undefined) { for (const channel of set.channels) close(set, channel) }
      },
      users: () => [...open.values()].map((set) => set.owner)
    })

    return {
      /** Hands a generation's events to its user's channels, here and elsewhere (called where the events are emitted: it does not wait). */
      publish: (owner: Owner, generation: Generation, events: ReadonlyArray<GenerationEvent>) => {
        deliver(owner, generation, events)
        relay.forward(owner, generation, events)
      },

      /**
       * The caller's channel for the life of the scope: the events of their generations from now
       * on. `userId` must be the caller's own.
       */
      subscribe: Effect.fn("UserChannels.subscribe")(function*(userId: string) {
        const principal = yield* CurrentPrincipal
        if (principal.userId !== userId) {
          return yield* new Forbidden({ message: `The channel of user '${userId}' is not yours` })
        }
        const owner = { tenantId: principal.tenantId, userId }
        const key = keyOf(owner.tenantId, userId)
        const channel = yield* Queue.dropping<ChannelMessage>(capacity)
        const set = open.get(key) ?? { owner, channels: new Set() }
        if (set.channels.size === 0) relay.opened(owner)
        open.set(key, set)
        set.channels.add(channel)
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            set.channels.delete(channel)
            if (set.channels.size === 0 && open.get(key) === set) {
              open.delete(key)
              relay.closed(owner)
            }
          })
        )
        return Stream.fromQueue(channel)
      })
    }
  })
}) {}
