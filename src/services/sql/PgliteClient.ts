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

const toSqlError = (cause: unknown) =>
  new SqlError.SqlError({ cause, message: cause instanceof Error ? cause.message : "PGlite statement failed" })

const make = (dataDir: string) =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => PGlite.create(dataDir), catch: toSqlError }),
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
export const layer = (dataDir: string): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.scoped(SqlClient.SqlClient, make(dataDir)).pipe(Layer.provide(Reactivity.layer))
