/**
 * The order book: asynchronous work (conversions, transformations, comparisons) kept in SQL, so an
 * order survives the process that accepted it. Orders are claimed with a lease that the worker
 * renews while it works: an order whose worker died is claimed again once its lease runs out, and
 * `FOR UPDATE SKIP LOCKED` lets several broker processes on one database share the work without
 * any order running twice at once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Config, Duration, Effect, Fiber, Option, PubSub, Queue, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { OrderNotFound, type OrderState, OrderState as OrderStateSchema } from "../../../schemas/broker/Orders.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import { isoUtc } from "../../common/sql/Fragments.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"

export const OrdersConfig = Config.all({
  /** How long a claimed order stays with its worker without a heartbeat. */
  lease: durationConfig("ORDER_LEASE", Duration.seconds(30)),
  /** How often idle workers and waiting requests look at the table for work done by other processes. */
  pollInterval: durationConfig("ORDER_POLL_INTERVAL", Duration.seconds(1)),
  /** Claims of one order before it is failed: a document that kills its worker every time must not loop forever. */
  maxAttempts: Config.integer("ORDER_MAX_ATTEMPTS").pipe(Config.withDefault(3))
})

export type OrderKind = "conversion" | "transformation" | "comparison"

export class OrderRecord extends Schema.Class<OrderRecord>("OrderRecord")({
  id: Schema.String,
  kind: Schema.String,
  state: OrderStateSchema,
  documentId: Schema.NullOr(Schema.String),
  format: Schema.NullOr(Schema.String),
  request: Schema.Unknown,
  result: Schema.NullOr(Schema.Unknown),
  errorMessage: Schema.NullOr(Schema.String),
  queuedDate: Schema.String,
  processedDate: Schema.NullOr(Schema.String),
  processingMs: Schema.NullOr(Schema.Number),
  queuedMs: Schema.Number,
  attempts: Schema.Number
}) {
  get finished() {
    return this.state === "PROCESSED" || this.state === "FAILED"
  }
}

export interface NewOrder {
  readonly kind: OrderKind
  readonly documentId: string | null
  readonly format: string | null
  readonly request?: unknown
}

/** What changed, for waiting requests and idle workers of this process (others poll). */
type OrderEvent = { readonly type: "queued" } | { readonly type: "finished"; readonly id: string }

const newOrderId = () => randomBytes(12).toString("base64url")

export class Orders extends Effect.Service<Orders>()("docstack/Orders", {
  effect: Effect.gen(function*() {
    const config = yield* OrdersConfig
    const sql = yield* SqlClient.SqlClient
    const events = yield* PubSub.unbounded<OrderEvent>()
    /** Orders this process is working on, so that a DELETE stops the work at once. */
    const running = new Map<string, Fiber.RuntimeFiber<unknown, unknown>>()
    const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`
    const leaseMs = Duration.toMillis(config.lease)

    const iso = (column: string) => isoUtc(sql, column)
    const columns = sql`id, kind, state, document_id, format, request, result, error_message, attempts,
      ${iso("queued_at")} AS queued_date, ${iso("processed_at")} AS processed_date,
      CASE WHEN started_at IS NULL THEN NULL
           ELSE COALESCE(processing_ms, EXTRACT(EPOCH FROM (now() - started_at)) * 1000)::float8 END AS processing_ms,
      (EXTRACT(EPOCH FROM (COALESCE(started_at, now()) - queued_at)) * 1000)::float8 AS queued_ms`

    const decodeRows = Schema.decodeUnknown(Schema.Array(OrderRecord))
    const rows = (query: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
      query.pipe(Effect.flatMap(decodeRows), Effect.orDie)

    const findById = SqlSchema.findOne({
      Request: Schema.String,
      Result: OrderRecord,
      execute: (id) => sql`SELECT ${columns} FROM orders WHERE id = ${id}`
    })
    const find = (id: string) => findById(id).pipe(Effect.orDie)

    const finish = (
      id: string,
      state: OrderState,
      fields: { readonly result?: unknown; readonly errorMessage?: string }
    ) =>
      sql`UPDATE orders SET state = ${state}, result = ${fields.result === undefined ? null : sqlJson(fields.result)},
            error_message = ${fields.errorMessage ?? null}, processed_at = now(),
            processing_ms = (EXTRACT(EPOCH FROM (now() - started_at)) * 1000)::bigint, processed_by = ${owner},
            lease_owner = NULL, lease_until = NULL
          WHERE id = ${id} AND lease_owner = ${owner} AND state = 'PROCESSING' RETURNING id`.pipe(
        Effect.orDie,
        Effect.tap((updated) => (updated.length > 0 ? PubSub.publish(events, { type: "finished", id }) : Effect.void)),
        Effect.map((updated) => updated.length > 0)
      )

    const interruptLocal = (ids: Iterable<string>) =>
      Effect.forEach([...ids], (id) => {
        const fiber = running.get(id)
        return fiber ? Fiber.interruptFork(fiber) : Effect.void
      }, { discard: true })

    const existing = (kind: OrderKind, id: string) =>
      find(id).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(OrderNotFound.of(id)), onSome: Effect.succeed })),
        Effect.filterOrFail((order) => order.kind === kind, () => OrderNotFound.of(id))
      )

    /** Removes an order; a running one is stopped (here at once, in another process at its next heartbeat). */
    const remove = Effect.fn("Orders.remove")(function*(id: string) {
      const deleted = yield* sql<{ id: string }>`DELETE FROM orders WHERE id = ${id} RETURNING id`.pipe(Effect.orDie)
      yield* interruptLocal(deleted.map((r) => r.id))
      return deleted.length > 0
    })

    /**
     * Waits until the order is PROCESSED or FAILED, or `timeout` passes; None when it does not
     * exist (any more). Finishing in this process wakes the waiter at once; other processes' work
     * is seen at the next poll.
     */
    const awaitFinished = (id: string, timeout: Duration.DurationInput = Duration.infinity) =>
      Effect.scoped(Effect.gen(function*() {
        const subscription = yield* PubSub.subscribe(events)
        const finishedHere = Queue.take(subscription).pipe(
          Effect.repeat({ until: (e) => e.type === "finished" && e.id === id })
        )
        const look = find(id)
        const wait = Effect.gen(function*() {
          while (true) {
            const order = yield* look
            if (Option.isNone(order) || order.value.finished) return order
            yield* Effect.raceFirst(finishedHere, Effect.sleep(config.pollInterval))
          }
        })
        return yield* wait.pipe(
          Effect.timeoutTo({ duration: timeout, onTimeout: () => look, onSuccess: Effect.succeed }),
          Effect.flatten
        )
      }))

    return {
      owner,
      config,

      submit: Effect.fn("Orders.submit")(function*(order: NewOrder) {
        const id = newOrderId()
        yield* sql`INSERT INTO orders ${
          sql.insert({
            id,
            kind: order.kind,
            state: "QUEUED",
            documentId: order.documentId,
            format: order.format,
            request: sqlJson(order.request ?? {})
          })
        }`.pipe(Effect.orDie)
        yield* PubSub.publish(events, { type: "queued" })
        return id
      }),

      /** The order of that kind, or OrderNotFound (404): what GET and DELETE on an order answer. */
      existing,

      /** The order of that kind once it is finished or `timeoutMs` passed (at once without one): GET with `timeoutMs`. */
      poll: Effect.fn("Orders.poll")(function*(kind: OrderKind, id: string, timeoutMs: number | undefined) {
        yield* existing(kind, id)
        if (timeoutMs !== undefined && timeoutMs > 0) yield* awaitFinished(id, timeoutMs)
        return yield* existing(kind, id)
      }),

      /** Removes the order of that kind (404 when there is none); a running one is stopped. */
      removeOne: Effect.fn("Orders.removeOne")(function*(kind: OrderKind, id: string) {
        yield* existing(kind, id)
        yield* remove(id)
      }),

      list: Effect.fn("Orders.list")((kind: OrderKind) =>
        rows(sql`SELECT ${columns} FROM orders WHERE kind = ${kind} ORDER BY seq`)
      ),

      /** Orders of a document and, with `withParts`, of its parts. */
      forDocument: Effect.fn("Orders.forDocument")((kind: OrderKind, documentId: string, withParts = false) =>
        rows(
          withParts
            ? sql`SELECT ${columns} FROM orders WHERE kind = ${kind} AND (document_id = ${documentId} OR document_id LIKE ${
              likePrefix(documentId)
            }) ORDER BY seq`
            : sql`SELECT ${columns} FROM orders WHERE kind = ${kind} AND document_id = ${documentId} ORDER BY seq`
        )
      ),

      removeAll: Effect.fn("Orders.removeAll")(function*(kind: OrderKind) {
        const deleted = yield* sql<{ id: string }>`DELETE FROM orders WHERE kind = ${kind} RETURNING id`.pipe(
          Effect.orDie
        )
        yield* interruptLocal(deleted.map((r) => r.id))
      }),

      /**
       * Removes the conversion orders of a document and of its parts (the document is being
       * deleted). Transformation and comparison orders that took it as a source stay: they are
       * resources of their own, with results of their own (one still queued fails, its source gone).
       */
      removeForDocument: Effect.fn("Orders.removeForDocument")(function*(documentId: string) {
        const deleted = yield* sql<
          { id: string }
        >`DELETE FROM orders WHERE kind = 'conversion' AND (document_id = ${documentId} OR document_id LIKE ${
          likePrefix(documentId)
        }) RETURNING id`.pipe(Effect.orDie)
        yield* interruptLocal(deleted.map((r) => r.id))
      }),

      awaitFinished,

      /** Waits until an order may be there to claim: one queued here, or a poll interval. */
      awaitWork: Effect.scoped(
        PubSub.subscribe(events).pipe(
          Effect.flatMap((subscription) =>
            Effect.raceFirst(
              Queue.take(subscription).pipe(Effect.repeat({ until: (e) => e.type === "queued" })),
              Effect.sleep(config.pollInterval)
            )
          )
        )
      ),

      /** Takes the oldest waiting order, or one whose worker's lease ran out. */
      claim: sql`UPDATE orders SET state = 'PROCESSING', lease_owner = ${owner},
                   lease_until = now() + ${leaseMs} * interval '1 millisecond', attempts = attempts + 1,
                   started_at = now(), processed_at = NULL, processing_ms = NULL
                 WHERE id = (SELECT id FROM orders
                             WHERE state = 'QUEUED' OR (state = 'PROCESSING' AND lease_until < now())
                             ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
                 RETURNING id`.pipe(
        Effect.orDie,
        Effect.flatMap((claimed) => (claimed[0] ? find((claimed[0] as { id: string }).id) : Effect.succeedNone))
      ),

      /** Extends the lease; false when the order was deleted or taken over, and the work must stop. */
      heartbeat: (id: string) =>
        sql`UPDATE orders SET lease_until = now() + ${leaseMs} * interval '1 millisecond'
            WHERE id = ${id} AND lease_owner = ${owner} AND state = 'PROCESSING' RETURNING id`.pipe(
          Effect.orDie,
          Effect.map((updated) => updated.length > 0)
        ),

      /**
       * Gives back the orders this process holds (it is stopping): queued again at once rather than
       * after their lease, and the interrupted attempt not counted.
       */
      releaseOwn: sql`UPDATE orders SET state = 'QUEUED', lease_owner = NULL, lease_until = NULL, started_at = NULL,
                        attempts = GREATEST(attempts - 1, 0)
                      WHERE lease_owner = ${owner} AND state = 'PROCESSING'`.pipe(Effect.asVoid, Effect.orDie),

      complete: (id: string, result: unknown) => finish(id, "PROCESSED", { result }),
      fail: (id: string, errorMessage: string) => finish(id, "FAILED", { errorMessage }),

      /** Marks the order as worked on by `fiber` in this process, for the duration of `effect`. */
      tracking: <A, E, R>(id: string, fiber: Fiber.RuntimeFiber<unknown, unknown>, effect: Effect.Effect<A, E, R>) =>
        Effect.acquireUseRelease(
          Effect.sync(() => running.set(id, fiber)),
          () => effect,
          () => Effect.sync(() => running.delete(id))
        )
    } as const
  })
}) {}

/** `LIKE` pattern for the parts of a document: its ID followed by '/', with LIKE's wildcards escaped. */
const likePrefix = (documentId: string) => `${documentId.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`
