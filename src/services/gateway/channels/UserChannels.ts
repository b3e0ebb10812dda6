/**
 * Each user's live channels (WebSocket /ws/{userId}): the events of the user's streamed
 * generations in this process, handed to every channel that user has open. A channel is only ever
 * the caller's own: asking for another user's is FORBIDDEN, whatever the roles.
 */
import { Config, Effect, Queue, Stream } from "effect"
import type { ChannelMessage } from "../../../schemas/gateway/Channels.ts"
import { Forbidden } from "../../../schemas/gateway/GatewayErrors.ts"
import type { GenerationEvent } from "../../../schemas/gateway/Requests.ts"
import { CurrentPrincipal } from "../../../schemas/gateway/Tenancy.ts"

/** Events a channel may hold for a client that reads slower than the model writes; past it the channel closes. */
const ChannelBuffer = Config.integer("USER_CHANNEL_BUFFER").pipe(Config.withDefault(10_000))

const keyOf = (tenantId: string, userId: string) => `${tenantId}\u0000${userId}`

export class UserChannels extends Effect.Service<UserChannels>()("gateway/UserChannels", {
  effect: Effect.gen(function*() {
    const capacity = yield* Effect.orDie(ChannelBuffer)
    /** The open channels by tenant and user. */
    const open = new Map<string, Set<Queue.Queue<ChannelMessage>>>()

    return {
      /**
       * Hands a generation's events to its user's open channels, at once (called where the events
       * are emitted, so it must not wait). A channel that cannot take them is closed: its client
       * reconnects and reads the conversation, rather than showing an answer with a hole in it.
       */
      publish: (
        owner: { readonly tenantId: string; readonly userId: string },
        generation: { readonly requestId: string; readonly conversationId: string },
        events: ReadonlyArray<GenerationEvent>
      ) => {
        const channels = open.get(keyOf(owner.tenantId, owner.userId))
        if (channels === undefined) return
        for (const channel of channels) {
          for (const event of events) {
            if (!channel.unsafeOffer({ ...generation, ...event } as ChannelMessage)) {
              channels.delete(channel)
              Effect.runFork(Queue.shutdown(channel))
              break
            }
          }
        }
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
        const key = keyOf(principal.tenantId, userId)
        const channel = yield* Queue.dropping<ChannelMessage>(capacity)
        const channels = open.get(key) ?? new Set()
        open.set(key, channels.add(channel))
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            channels.delete(channel)
            if (channels.size === 0 && open.get(key) === channels) open.delete(key)
          })
        )
        return Stream.fromQueue(channel)
      })
    }
  })
}) {}
