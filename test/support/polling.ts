/**
 * Waiting in tests on the real clock (it.effect runs on the test clock, where Effect.sleep would
 * never end): a value polled until it is what the test waits for.
 */
import { Effect } from "effect"
import { sleep } from "./processes.ts"

/**
 * `probe` run every 100 ms until `done` holds of its value, for up to 10 s. The last value either
 * way: the test asserts on it, so a value that never came shows as what came instead.
 */
export const pollUntil = <A, E, R>(probe: Effect.Effect<A, E, R>, done: (value: A) => boolean) =>
  Effect.gen(function*() {
    let value = yield* probe
    for (let attempt = 0; attempt < 100 && !done(value); attempt++) {
      yield* sleep(100)
      value = yield* probe
    }
    return value
  })
