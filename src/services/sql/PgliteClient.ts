/**
 * An in-process PostgreSQL (PGlite) behind the same `SqlClient` as @effect/sql-pg.
 *
 * PGlite is one session: a semaphore of one serialises every statement, and a transaction holds it
 * from BEGIN to COMMIT so no other fiber's statement lands inside it.
 */
import { PGlite } from "@electric-sql/pglite"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, SqlError, Statement } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { Effect, Layer, Stream, String as Str } from "effect"
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const execFileAsync = promisify(execFile)

const toSqlError = (cause: unknown) =>
  new SqlError.SqlError({ cause, message: cause instanceof Error ? cause.message : "PGlite statement failed" })

/**
 * PGlite's own start parameters plus smaller memory settings: its defaults (shared_buffers 128 MB)
 * made an idle broker hold about 330 MB for the database; with these, about 200 MB.
 */
const startParams = (sharedBuffers: string) => [
  ...PGLITE_DEFAULT_START_PARAMS,
  "-c", `shared_buffers=${sharedBuffers}`,
  "-c", "wal_buffers=1MB",
  "-c", "work_mem=4MB"
]

// As in @electric-sql/pglite 0.5 (not exported): single-user mode, no parallel workers, synchronous I/O.
const PGLITE_DEFAULT_START_PARAMS = [
  "--single", "-F", "-O", "-j",
  "-c", "search_path=public",
  "-c", "exit_on_error=false",
  "-c", "log_checkpoints=false",
  "-c", "max_worker_processes=0",
  "-c", "max_parallel_workers=0",
  "-c", "max_parallel_workers_per_gather=0",
  "-c", "io_method=sync",
  "-c", "max_parallel_maintenance_workers=0"
]

const initialise = (dataDir: string) =>
  Effect.tryPromise({
    try: () => execFileAsync(process.execPath, [fileURLToPath(new URL("./pglite-init.mjs", import.meta.url)), dataDir]),
    catch: toSqlError
  })

const make = (dataDir: string, sharedBuffers: string) =>
  Effect.gen(function*() {
    if (!existsSync(path.join(dataDir, "PG_VERSION"))) yield* initialise(dataDir)
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => PGlite.create(dataDir, { startParams: startParams(sharedBuffers) }), catch: toSqlError }),
      (db) => Effect.promise(() => db.close())
    )
    const run = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
      Effect.tryPromise({ try: () => db.query(sql, params as Array<unknown>, { rowMode }), catch: toSqlError })

    const connection: Connection = {
      execute: (sql, params, transformRows) =>
        run(sql, params, "object").pipe(
          Effect.map((r) => (transformRows ? transformRows(r.rows as Array<object>) : r.rows))
        ),
      executeRaw: (sql, params) => run(sql, params, "object"),
      executeValues: (sql, params) => run(sql, params, "array").pipe(Effect.map((r) => r.rows as Array<Array<unknown>>)),
      executeUnprepared: (sql, params, transformRows) => connection.execute(sql, params, transformRows),
      executeStream: (sql, params, transformRows) =>
        Stream.fromIterableEffect(connection.execute(sql, params, transformRows))
    }

    const lock = yield* Effect.makeSemaphore(1)
    const acquirer = Effect.acquireRelease(lock.take(1), () => lock.release(1)).pipe(Effect.as(connection))

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
