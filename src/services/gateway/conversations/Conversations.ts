/**
 * Conversations, each owned by one user of one tenant: every statement filters by the caller's
 * reach, so a user sees only their own and an admin view the whole tenant's.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Conversation, type PageParams } from "../../../schemas/gateway/Conversations.ts"
import { NotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import type { Principal, Reach } from "../../../schemas/gateway/Tenancy.ts"
import { isoUtc, pageOf, reachFilter } from "../../common/sql/Fragments.ts"
import { afterRecords, RequestRecorder } from "../records/RequestRecorder.ts"

const ConversationRow = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  userId: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.String
})

export class Conversations extends Effect.Service<Conversations>()("gateway/Conversations", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const recorder = yield* RequestRecorder
    const iso = (column: string) => isoUtc(sql, column)
    const columns = sql`id, title, user_id, ${iso("created_at")} AS created_at, ${iso("updated_at")} AS updated_at`
    const toConversation = (row: typeof ConversationRow.Type) => new Conversation(row)

    const find = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, userId: Schema.optional(Schema.String), id: Schema.String }),
      Result: ConversationRow,
      execute: ({ id, ...reach }) => sql`SELECT ${columns} FROM conversations WHERE ${reachFilter(sql, reach)} AND id = ${id}`
    })

    /** The conversation if the reach covers it; NOT_FOUND otherwise (another user's is not revealed). */
    const own = (reach: Reach, id: string) =>
      find({ tenantId: reach.tenantId, userId: reach.userId, id }).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new NotFound({ message: `No conversation '${id}'` })),
          onSome: (row) => Effect.succeed(toConversation(row))
        }))
      )

    // Readers and writers of conversations come after this process's pending records (RequestRecorder).
    return afterRecords("Conversations", recorder.settled, {
      own,

      create: (principal: Principal, title: string | undefined) =>
        Effect.gen(function*() {
          const rows = yield* sql`INSERT INTO conversations ${
            sql.insert({ tenantId: principal.tenantId, id: randomUUID(), userId: principal.userId, title: title?.trim() || "New conversation" })
          } RETURNING ${columns}`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(ConversationRow))), Effect.orDie)
          return toConversation(rows[0]!)
        }),

      /** Most recently active first; `search` in titles. */
      list: (reach: Reach, params: PageParams & { readonly search?: string | undefined }) =>
        Effect.gen(function*() {
          const pattern = params.search ? `%${params.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null
          const filter = sql`${reachFilter(sql, reach)} AND (${pattern}::text IS NULL OR title ILIKE ${pattern})`
          const [{ total }] = yield* sql<{ total: number }>`SELECT count(*)::int AS total FROM conversations WHERE ${filter}`.pipe(Effect.orDie) as Effect.Effect<ReadonlyArray<{ total: number }>>
          const rows = yield* sql`SELECT ${columns} FROM conversations WHERE ${filter}
            ORDER BY updated_at DESC, id LIMIT ${params.size} OFFSET ${params.page * params.size}`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(ConversationRow))),
            Effect.orDie
          )
          return pageOf(rows.map(toConversation), params.page, params.size, total)
        }),

      remove: (reach: Reach, id: string) =>
        own(reach, id).pipe(
          Effect.zipRight(sql`DELETE FROM conversations WHERE ${reachFilter(sql, reach)} AND id = ${id}`.pipe(Effect.orDie)),
          Effect.asVoid
        )
    })
  })
}) {}
