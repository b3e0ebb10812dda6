/**
 * An in-process PostgreSQL (PGlite) behind the same `SqlClient` as @effect/sql-pg, on a worker
 * thread of its own so that its statements never block the event loop.
 *
 * PGlite is one session: a semaphore of one serialises every statement, and a transaction holds it
 * from BEGIN to COMMIT so no other fiber's statement lands inside it.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import * as SqlError from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { Effect, Layer, Stream, String as Str } from "effect"
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { Worker } from "node:worker_threads"
import { storableConnection } from "./StorableText.ts"

const execFileAsync = promisify(execFile)

const toSqlError = (cause: unknown) =>
  new SqlError.SqlError({ cause, message: cause instanceof Error ? cause.message : "PGlite statement failed" })

/**
 * PGlite's own start parameters plus smaller memory settings: its defaults (shared_buffers 128 MB)
 * made an idle broker hold about 330 MB for the database; with these, about 200 MB.
 */
const startParams = (sharedBuffers: string) => [
  ...PGLITE_DEFAULT_START_PARAMS,
  "-c",
  `shared_buffers=${sharedBuffers}`,
  "-c",
  "wal_buffers=1MB",
  "-c",
  "work_mem=4MB"
]

// As in @electric-sql/pglite 0.5 (not exported): single-user mode, no parallel workers, synchronous I/O.
const PGLITE_DEFAULT_START_PARAMS = [
  "--single",
  "-F",
  "-O",
  "-j",
  "-c",
  "search_path=public",
  "-c",
  "exit_on_error=false",
  "-c",
  "log_checkpoints=false",
  "-c",
  "max_worker_processes=0",
  "-c",
  "max_parallel_workers=0",
  "-c",
  "max_parallel_workers_per_gather=0",
  "-c",
  "io_method=sync",
  "-c",
  "max_parallel_maintenance_workers=0"
]

const initialise = (dataDir: string) =>
  Effect.tryPromise({
    try: () => execFileAsync(process.execPath, [fileURLToPath(new URL("./pglite-init.mjs", import.meta.url)), dataDir]),
    catch: toSqlError
  })

/** What the worker sends back of a failed statement: PostgreSQL's fields, SQLSTATE `code` first. */
interface WorkerError {
  readonly message: string
  readonly code?: string
  readonly [field: string]: unknown
}

type WorkerMessage =
  | { readonly ready: true }
  | { readonly ready: false; readonly error: WorkerError }
  | {
    readonly id: number
    readonly result: { readonly rows: Array<unknown>; readonly fields: Array<unknown>; readonly affectedRows?: number }
  }
  | { readonly id: number; readonly error: WorkerError }
  | { readonly id: number; readonly closed: true }

/** Statement IDs, to match each answer of the worker with its caller. */
let nextId = 0

/** An Error carrying PostgreSQL's fields, as the pg driver's errors do (callers read `code`). */
const databaseError = (fields: WorkerError) => Object.assign(new Error(fields.message), fields)

/**
 * PGlite on a worker thread of its own (src/services/common/sql/pglite-worker.mjs): its statements run
 * there, not on the event loop, which only posts them and takes their rows.
 */
const startWorker = (dataDir: string, sharedBuffers: string) =>
  Effect.acquireRelease(
    Effect.async<
      {
        readonly worker: Worker
        readonly pending: Map<number, (message: WorkerMessage) => void>
        readonly stopped: () => Error | undefined
      },
      SqlError.SqlError
    >((resume) => {
      const worker = new Worker(new URL("./pglite-worker.mjs", import.meta.url), {
        workerData: { dataDir, startParams: startParams(sharedBuffers) },
        // Plain JavaScript: the TypeScript loader the process may run with is not needed there.
        execArgv: []
      })
      const pending = new Map<number, (message: WorkerMessage) => void>()
      let stopped: Error | undefined
      worker.on("message", (message: WorkerMessage) => {
        if ("ready" in message) {
          resume(
            message.ready
              ? Effect.succeed({ worker, pending, stopped: () => stopped })
              : Effect.fail(toSqlError(databaseError(message.error)))
          )
          return
        }
        const waiting = pending.get(message.id)
        pending.delete(message.id)
        waiting?.(message)
      })
      // The thread died: the statements waiting on it fail, and so do later ones (nothing would answer them).
      const gone = (error: Error) => {
        stopped ??= new Error(`The embedded database stopped: ${error.message}`)
        resume(Effect.fail(toSqlError(error)))
        for (const waiting of pending.values()) {
          waiting({ id: -1, error: { message: `The embedded database stopped: ${error.message}` } })
        }
        pending.clear()
      }
      worker.on("error", gone)
      worker.on("exit", (code) => gone(new Error(`its thread exited (${code})`)))
    }),
    ({ pending, worker }) =>
      Effect.async<void>((resume) => {
        const id = nextId++
        pending.set(id, () => resume(Effect.void))
        worker.postMessage({ id, close: true })
      }).pipe(
        Effect.timeout("10 seconds"),
        Effect.ignore,
        Effect.zipRight(Effect.promise(() => worker.terminate()))
      )
  )

const make = (dataDir: string, sharedBuffers: string) =>
  Effect.gen(function*() {
    if (!existsSync(path.join(dataDir, "PG_VERSION"))) yield* initialise(dataDir)
    const { pending, stopped, worker } = yield* startWorker(dataDir, sharedBuffers)
    const run = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
      Effect.async<
        { readonly rows: Array<unknown>; readonly fields: Array<unknown>; readonly affectedRows?: number },
        SqlError.SqlError
      >((resume) => {
        const death = stopped()
        if (death !== undefined) return resume(Effect.fail(toSqlError(death)))
        const id = nextId++
        pending.set(id, (message) => {
          if ("result" in message) resume(Effect.succeed(message.result))
          else if ("error" in message) resume(Effect.fail(toSqlError(databaseError(message.error))))
        })
        worker.postMessage({ id, sql, params, rowMode })
        // PGlite cannot cancel a statement: an interrupted caller just stops waiting for it.
        return Effect.sync(() => pending.delete(id))
      })

    const connection: Connection = {
      execute: (sql, params, transformRows) =>
        run(sql, params, "object").pipe(
          Effect.map((r) => (transformRows ? transformRows(r.rows as Array<object>) : r.rows))
        ),
      executeRaw: (sql, params) => run(sql, params, "object"),
      executeValues: (sql, params) =>
        run(sql, params, "array").pipe(Effect.map((r) => r.rows as Array<Array<unknown>>)),
      executeUnprepared: (sql, params, transformRows) => connection.execute(sql, params, transformRows),
      executeStream: (sql, params, transformRows) =>
        Stream.fromIterableEffect(connection.execute(sql, params, transformRows))
    }

    const lock = yield* Effect.makeSemaphore(1)
    const acquirer = Effect.acquireRelease(lock.take(1), () => lock.release(1)).pipe(
      Effect.as(storableConnection(connection))
    )

    return yield* SqlClient.make({
      acquirer,
      transactionAcquirer: acquirer,
      compiler: makeCompiler(Str.camelToSnake),
      spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", "pglite"]],
      transformRows: Statement.defaultTransforms(Str.snakeToCamel).array
    })
  })

/** A `SqlClient` over a PGlite database stored in `dataDir`. */
export const layer = (dataDir: string, sharedBuffers: string): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.scoped(SqlClient.SqlClient, make(dataDir, sharedBuffers)).pipe(Layer.provide(Reactivity.layer))
