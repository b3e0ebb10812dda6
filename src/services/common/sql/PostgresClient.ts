/**
 * PostgreSQL through @effect/sql-pg, with every statement's parameters made storable first
 * (StorableText.ts), as PGlite's client does. sql-pg builds its `SqlClient` on connections of its
 * own that take no such step, so the `SqlClient` here is made anew on the pool's connections, with
 * sql-pg's own compiler and name transforms. The `PgClient` stays available beside it for LISTEN.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import type { SqlError } from "@effect/sql"
import * as PgClient from "@effect/sql-pg/PgClient"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import { Context, Effect, Layer, type Redacted, String as Str } from "effect"
import { storableConnection } from "./StorableText.ts"

const make = (url: Redacted.Redacted) =>
  Effect.gen(function*() {
    const pg = yield* PgClient.make({ url, applicationName: "docstack" })
    const acquirer = Effect.map(pg.reserve, storableConnection)
    const sql = yield* SqlClient.make({
      acquirer,
      transactionAcquirer: acquirer,
      compiler: makeCompiler(Str.camelToSnake),
      spanAttributes: [["db.system.name", "postgresql"]],
      transformRows: Statement.defaultTransforms(Str.snakeToCamel).array
    })
    return Context.make(PgClient.PgClient, pg).pipe(Context.add(SqlClient.SqlClient, sql))
  })

/** A `SqlClient` (and the `PgClient` it stands on) for the database at `url`. */
export const layer = (
  url: Redacted.Redacted
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, SqlError.SqlError> =>
  Layer.scopedContext(make(url)).pipe(Layer.provide(Reactivity.layer))
