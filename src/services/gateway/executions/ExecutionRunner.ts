/**
 * The gateway's side of durable plan executions: takes up executions that no live gateway drives
 * (new ones, resumed ones, and those whose gateway died: their lease ran out) and drives each
 * until it ends or pauses. Any gateway on the same database may take any execution; a gateway
 * stopping gives back what it drives at once, and on the embedded database (one process's alone)
 * whatever a dead process held is free again at start. When idle, it also frees paused
 * executions whose gateway died while their last nodes ran.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, FiberSet, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { executionDriver } from "./ExecutionDriver.ts"
import { ExecutionStore } from "./ExecutionStore.ts"

export const ExecutionRunnerLive = Layer.scopedDiscard(Effect.gen(function*() {
  const store = yield* ExecutionStore
  const drive = yield* executionDriver
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`
  if (Option.isNone(yield* Effect.serviceOption(PgClient.PgClient))) yield* store.expireAll

  // Runs after the drivers below are interrupted (finalizers run in reverse order).
  yield* Effect.addFinalizer(() =>
    store.releaseAll(owner).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("plan executions could not be given back", cause))
    )
  )
  const drivers = yield* FiberSet.make()
  let mainDriven = 0

  const takeUp = Effect.gen(function*() {
    while (true) {
      const claimed = yield* store.claim(owner, mainDriven < store.config.perInstance)
      if (Option.isNone(claimed)) {
        yield* store.freeAbandonedPauses
        return yield* store.awaitChange("any")
      }
      const execution = claimed.value
      if (execution.isMain) mainDriven++
      yield* FiberSet.run(
        drivers,
        drive(execution).pipe(
          // A driver that fails leaves the execution to its lease: taken up again once it runs out.
          Effect.catchAllCause((cause) => Effect.logError(`plan execution ${execution.id} stopped`, cause)),
          Effect.ensuring(Effect.sync(() => execution.isMain && mainDriven--))
        )
      )
    }
  }).pipe(
    // Pausing a poll interval, so that a database that is down is not hammered.
    Effect.catchAllCause((cause) =>
      Effect.logError("taking up plan executions failed; trying again", cause).pipe(
        Effect.zipRight(Effect.sleep(store.config.pollInterval))
      )
    ),
    Effect.forever
  )
  yield* FiberSet.run(drivers, takeUp)
}))
