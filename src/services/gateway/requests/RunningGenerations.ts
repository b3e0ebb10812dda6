/**
 * The generations running, where a stop finds them: in this process by tenant and conversation,
 * and on PostgreSQL in whichever gateway sharing the database generates the answer (a stop that
 * reaches another instance is passed on with NOTIFY; PGlite is one process's database).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Fiber, Option, Schedule, Stream } from "effect"

/** The PostgreSQL channel on which a stop reaches the instance generating the answer. */
const STOP_CHANNEL = "gateway_stop"

const keyOf = (tenantId: string, conversationId: string) => `${tenantId}/${conversationId}`

/** The registry of this process's generations, listening for stops from other instances for the life of the scope. */
export const runningGenerations = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  /** The generations running in this process, by `tenant/conversation`: a stop interrupts the fiber (and its upstream call). */
  const running = new Map<string, Fiber.RuntimeFiber<unknown, unknown>>()
  const pg = yield* Effect.serviceOption(PgClient.PgClient)
  if (Option.isSome(pg)) {
    yield* pg.value.listen(STOP_CHANNEL).pipe(
      Stream.runForEach((key) => {
        const generation = running.get(key)
        return generation ? Fiber.interruptFork(generation) : Effect.void
      }),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )
  } else {
    // The embedded database is this process's alone: a request still RUNNING was cut off by a crash.
    yield* sql`UPDATE llm_requests SET status = 'FAILED', error_message = 'The gateway stopped before the answer was complete',
        completed_at = clock_timestamp() WHERE status = 'RUNNING'`.pipe(Effect.orDie)
  }

  return {
    /**
     * Runs `effect` as the conversation's generation, in a fiber of its own that a stop interrupts;
     * its exit (interrupted when stopped). A child of the caller's fiber: it ends with it too.
     */
    run: <A, E, R>(tenantId: string, conversationId: string, effect: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const key = keyOf(tenantId, conversationId)
        const fiber = yield* Effect.fork(effect)
        running.set(key, fiber)
        return yield* Fiber.await(fiber).pipe(
          Effect.ensuring(Effect.sync(() => running.get(key) === fiber && running.delete(key)))
        )
      }),

    /** Stops the generation in progress in the conversation, here or in another instance; false when there is none. */
    stop: (tenantId: string, conversationId: string) =>
      Effect.gen(function*() {
        const key = keyOf(tenantId, conversationId)
        const current = running.get(key)
        if (current) return yield* Fiber.interrupt(current).pipe(Effect.as(true))
        if (Option.isNone(pg)) return false
        return yield* sql`SELECT 1 FROM llm_requests WHERE tenant_id = ${tenantId} AND conversation_id = ${conversationId} AND status = 'RUNNING' LIMIT 1`
          .pipe(
            // pg_notify, not PgClient.notify: on this Effect line it sends `NOTIFY channel, $1`, which PostgreSQL refuses
            // (fixed only in Effect 4, Effect-TS/effect-smol#1835).
            Effect.flatMap((rows) => (rows.length === 0
              ? Effect.succeed(false)
              : sql`SELECT pg_notify(${STOP_CHANNEL}, ${key})`.pipe(Effect.as(true)))
            ),
            Effect.orDie
          )
      })
  }
})
