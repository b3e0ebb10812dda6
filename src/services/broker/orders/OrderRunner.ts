/**
 * The workers that carry out orders: each claims an order, runs the handler of its kind while
 * renewing the lease, and records the outcome. A handler's failure message becomes the order's
 * `errorMessage`; an interrupted handler (order deleted, process stopping) records nothing, and
 * the lease decides what happens next.
 */
import { Cause, Config, Duration, Effect, Exit, Fiber, Layer, Option, Schedule } from "effect"
import { availableParallelism } from "node:os"
import { type OrderKind, type OrderRecord, Orders } from "./Orders.ts"

/** Carries out one kind of order; the value is stored as the order's result. */
export type OrderHandler = (order: OrderRecord) => Effect.Effect<unknown, { readonly message: string }>

const describeDefect = (cause: Cause.Cause<unknown>) => {
  const defect = Cause.squash(cause)
  return `Internal error: ${defect instanceof Error ? defect.message : String(defect)}`
}

export const OrderRunnerConfig = Config.integer("ORDER_WORKERS").pipe(
  Config.withDefault(Math.max(2, availableParallelism()))
)

/** Starts the workers for the given handlers; they stop with the layer's scope. */
export const orderRunner = (handlers: Readonly<Partial<Record<OrderKind, OrderHandler>>>) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const orders = yield* Orders
    const workers = yield* OrderRunnerConfig
    const heartbeatEvery = Duration.millis(Math.max(50, Duration.toMillis(orders.config.lease) / 3))

    const carryOut = (order: OrderRecord) =>
      Effect.gen(function*() {
        if (order.attempts > orders.config.maxAttempts) {
          return yield* orders.fail(
            order.id,
            `Abandoned after ${
              order.attempts - 1
            } attempts: the process working on it stopped each time (ORDER_MAX_ATTEMPTS)`
          )
        }
        const handler = handlers[order.kind as OrderKind]
        if (!handler) return yield* orders.fail(order.id, `This broker cannot carry out ${order.kind} orders`)
        const job = yield* Effect.fork(handler(order))
        const heartbeat = yield* orders.heartbeat(order.id).pipe(
          Effect.flatMap((ours) => (ours ? Effect.void : Fiber.interrupt(job))),
          Effect.repeat(Schedule.spaced(heartbeatEvery)),
          Effect.delay(heartbeatEvery),
          Effect.fork
        )
        const exit = yield* orders.tracking(order.id, job, Fiber.await(job))
        yield* Fiber.interrupt(heartbeat)
        if (Exit.isSuccess(exit)) return yield* orders.complete(order.id, exit.value)
        if (Cause.isInterruptedOnly(exit.cause)) return false
        const failure = Cause.failureOption(exit.cause)
        return yield* orders.fail(order.id, Option.isSome(failure) ? failure.value.message : describeDefect(exit.cause))
      }).pipe(Effect.withSpan("OrderRunner.carryOut", { attributes: { orderId: order.id, kind: order.kind } }))

    const worker = Effect.gen(function*() {
      while (true) {
        const claimed = yield* orders.claim
        if (Option.isSome(claimed)) yield* carryOut(claimed.value)
        else yield* orders.awaitWork
      }
    }).pipe(
      // A worker must outlive any one bad order or database hiccup.
      // Pausing a poll interval, so that a database that is down is not hammered.
      Effect.catchAllCause((cause) =>
        Effect.logError("order worker failed; restarting", cause).pipe(
          Effect.zipRight(Effect.sleep(orders.config.pollInterval))
        )
      ),
      Effect.forever
    )

    // Runs after the workers below are interrupted (finalizers run in reverse order).
    yield* Effect.addFinalizer(() =>
      orders.releaseOwn.pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("orders could not be given back", cause))
      )
    )
    yield* Effect.forkScoped(
      Effect.all(Array.from({ length: workers }, () => worker), { concurrency: "unbounded", discard: true })
    )
    yield* Effect.logInfo(`order workers started: ${workers}`)
  }))
