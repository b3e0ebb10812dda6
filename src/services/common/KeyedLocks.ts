/**
 * One lock per key (a file, a document ID), made when first needed and dropped when nobody holds or
 * waits for it, so that a long-running service does not keep a lock for every key it ever saw.
 */
import { Effect } from "effect"

export interface KeyedLocks {
  /** Runs `effect` alone among the effects run under the same key. */
  readonly withLock: (key: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const makeKeyedLocks = (): KeyedLocks => {
  const locks = new Map<string, { readonly semaphore: Effect.Semaphore; users: number }>()
  return {
    withLock: (key) => (effect) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const lock = locks.get(key) ?? { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
          lock.users++
          locks.set(key, lock)
          return lock
        }),
        (lock) => lock.semaphore.withPermits(1)(effect),
        (lock) =>
          Effect.sync(() => {
            if (--lock.users === 0) locks.delete(key)
          })
      )
  }
}
