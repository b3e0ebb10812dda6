/**
 * Values kept in memory within a weight (bytes), most recently used first (Lru.ts), with lookups
 * shared: requests for a key that is being looked up wait for that one lookup instead of starting
 * another. A failed lookup is not kept; every request waiting on it gets its failure.
 *
 * A lookup runs in the scope that made the cache, not in the fiber of its first request: a client
 * that goes away does not take the lookup from the others waiting on it.
 */
import { Deferred, Effect, Exit, FiberId, type Scope } from "effect"
import { Lru } from "./Lru.ts"

export interface MemoryCache<A, E> {
  /** The value of `key`: kept, being looked up (that lookup's result), or looked up now. */
  readonly get: (key: string) => Effect.Effect<A, E>
  /** What is kept: how many values, and their total weight (never above the capacity). */
  readonly stats: Effect.Effect<{ readonly entries: number; readonly weight: number; readonly capacity: number }>
}

export const makeMemoryCache = <A, E>(options: {
  /** The largest total weight kept; 0 keeps nothing (lookups are still shared). */
  readonly capacity: number
  readonly weigh: (value: A) => number
  readonly lookup: (key: string) => Effect.Effect<A, E>
}): Effect.Effect<MemoryCache<A, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const capacity = Math.max(0, options.capacity)
    const kept = new Lru<A>(capacity, undefined, options.weigh)
    const running = new Map<string, Deferred.Deferred<A, E>>()

    const lookUp = (key: string, deferred: Deferred.Deferred<A, E>) =>
      options.lookup(key).pipe(
        Effect.onExit((exit) =>
          Effect.suspend(() => {
            running.delete(key)
            if (Exit.isSuccess(exit)) kept.set(key, exit.value)
            return Deferred.done(deferred, exit)
          })
        ),
        Effect.forkIn(scope)
      )

    return {
      get: (key) =>
        Effect.suspend(() => {
          const value = kept.get(key)
          if (value !== undefined) return Effect.succeed(value)
          const pending = running.get(key)
          if (pending !== undefined) return Deferred.await(pending)
          // Made and registered in one step, so that no other request can start a second lookup.
          const deferred = Deferred.unsafeMake<A, E>(FiberId.none)
          running.set(key, deferred)
          return lookUp(key, deferred).pipe(Effect.zipRight(Deferred.await(deferred)))
        }),
      stats: Effect.sync(() => ({ entries: kept.size, weight: kept.weight, capacity }))
    }
  })
