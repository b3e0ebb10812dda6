import { expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { makeMemoryCache } from "../../src/services/common/MemoryCache.ts"

const bytes = (n: number) => new Uint8Array(n)

it.scoped("keeps values within its weight, most recently used first", () =>
  Effect.gen(function*() {
    const lookups: Array<string> = []
    const cache = yield* makeMemoryCache({
      capacity: 1000,
      weigh: (value: Uint8Array) => value.byteLength,
      lookup: (key) => Effect.sync(() => (lookups.push(key), bytes(400)))
    })
    for (const key of ["a", "b", "a", "c"]) yield* cache.get(key)
    expect(yield* cache.stats).toEqual({ entries: 2, weight: 800, capacity: 1000 })
    yield* cache.get("a")
    yield* cache.get("b") // pushed out by c, looked up again
    expect(lookups).toEqual(["a", "b", "c", "b"])
    expect((yield* cache.stats).weight).toBeLessThanOrEqual(1000)
  }))

it.scoped("requests at the same moment share one lookup, which outlives a request that gives up", () =>
  Effect.gen(function*() {
    const gate = yield* Deferred.make<void>()
    let lookups = 0
    const cache = yield* makeMemoryCache({
      capacity: 1000,
      weigh: (value: Uint8Array) => value.byteLength,
      lookup: () => Effect.sync(() => lookups++).pipe(Effect.zipRight(Deferred.await(gate)), Effect.as(bytes(10)))
    })
    const first = yield* Effect.fork(cache.get("k"))
    const second = yield* Effect.fork(cache.get("k"))
    yield* Effect.yieldNow()
    yield* Fiber.interrupt(first)
    yield* Deferred.succeed(gate, undefined)
    expect((yield* Fiber.join(second)).byteLength).toBe(10)
    expect((yield* cache.get("k")).byteLength).toBe(10)
    expect(lookups).toBe(1)
  }))

it.scoped("a failed lookup reaches every request waiting on it and is not kept", () =>
  Effect.gen(function*() {
    let lookups = 0
    const cache = yield* makeMemoryCache<Uint8Array, string>({
      capacity: 1000,
      weigh: (value) => value.byteLength,
      lookup: () => Effect.suspend(() => (++lookups === 1 ? Effect.fail("broken") : Effect.succeed(bytes(5))))
    })
    const [a, b] = yield* Effect.all([Effect.exit(cache.get("k")), Effect.exit(cache.get("k"))], {
      concurrency: "unbounded"
    })
    expect(a).toEqual(Exit.fail("broken"))
    expect(b).toEqual(Exit.fail("broken"))
    expect((yield* cache.get("k")).byteLength).toBe(5)
    expect(lookups).toBe(2)
  }))
