/**
 * SQL pieces every service writes the same way.
 */
import type { SqlClient, Statement } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import type { Reach } from "../../../schemas/gateway/Tenancy.ts"

/** A timestamp column as ISO 8601 UTC with milliseconds, the form every API answers. */
export const isoUtc = (sql: SqlClient.SqlClient, column: string) =>
  sql.literal(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`)

/** PostgreSQL's (and PGlite's) SQLSTATE for a row a unique index refuses. */
export const isUniqueViolation = (error: SqlError) => (error.cause as { code?: string } | undefined)?.code === "23505"

/**
 * A write that a unique index may refuse fails with `clash()` then, any other SQL failure being a
 * defect: a check before the write cannot see a row another request is writing at that moment.
 */
export const failOnUniqueViolation = <E>(clash: () => E) => <A, R>(write: Effect.Effect<A, SqlError, R>) =>
  Effect.catchTag(write, "SqlError", (error) => isUniqueViolation(error) ? Effect.fail(clash()) : Effect.die(error))

/** One page of a list, in the shape of every paginated answer (docs/gateway-conversations.md). */
export const pageOf = <A>(content: ReadonlyArray<A>, page: number, size: number, total: number) => ({
  content,
  page,
  size,
  totalElements: total,
  totalPages: Math.ceil(total / size)
})

/** The rows a reach covers, in a table with `tenant_id` and `user_id`. */
export const reachFilter = (sql: SqlClient.SqlClient, reach: Reach) =>
  reach.userId === undefined
    ? sql`tenant_id = ${reach.tenantId}`
    : sql`tenant_id = ${reach.tenantId} AND user_id = ${reach.userId}`

/**
 * A tenant's records in `table` (keyed by `tenant_id` and `id`), read as `Row`: all of them in
 * `orderBy`'s order, and one by ID, failing with `notFound(id)` when the tenant has none such.
 */
export const tenantRecords = <A, I, E>(sql: SqlClient.SqlClient, options: {
  readonly table: string
  readonly columns: Statement.Fragment
  readonly Row: Schema.Schema<A, I>
  readonly orderBy: string
  readonly notFound: (id: string) => E
}) => {
  const { columns, Row, table } = options
  const findAll = SqlSchema.findAll({
    Request: Schema.String,
    Result: Row,
    execute: (tenantId) =>
      sql`SELECT ${columns} FROM ${sql(table)} WHERE tenant_id = ${tenantId} ORDER BY ${sql.literal(options.orderBy)}`
  })
  const findOne = SqlSchema.findOne({
    Request: Schema.Struct({ tenantId: Schema.String, id: Schema.String }),
    Result: Row,
    execute: ({ id, tenantId }) =>
      sql`SELECT ${columns} FROM ${sql(table)} WHERE tenant_id = ${tenantId} AND id = ${id}`
  })
  return {
    all: (tenantId: string) => findAll(tenantId).pipe(Effect.orDie),
    load: (tenantId: string, id: string): Effect.Effect<A, E> =>
      findOne({ tenantId, id }).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(options.notFound(id)), onSome: Effect.succeed }))
      )
  }
}
