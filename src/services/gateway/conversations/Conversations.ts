/**
 * Conversations, each owned by one user of one tenant: every statement filters by the caller's
 * reach, so a user sees only their own and an admin view the whole tenant's. A conversation may be
 * about a document of the broker (its `documentId`, checked with the broker when it is created),
 * which the document tools read.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Conversation, type PageParams } from "../../../schemas/gateway/Conversations.ts"
import { BadRequest, NotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import { CurrentPrincipal, type Reach } from "../../../schemas/gateway/Tenancy.ts"
import { isoUtc, pageOf, reachFilter } from "../../common/sql/Fragments.ts"
import { afterRecords, RequestRecorder } from "../records/RequestRecorder.ts"
import { tenantReach } from "../tenancy/CurrentReach.ts"
import { BrokerDocuments } from "../tools/BrokerDocuments.ts"

/** A page of conversations, and the words to look for in their titles. */
type ListParams = PageParams & { readonly search?: string | undefined }

const ConversationRow = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  userId: Schema.String,
  documentId: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
})

export class Conversations extends Effect.Service<Conversations>()("gateway/Conversations", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const recorder = yield* RequestRecorder
    const broker = yield* BrokerDocuments
    const iso = (column: string) => isoUtc(sql, column)
    const columns = sql`id, title, user_id, document_id, ${iso("created_at")} AS created_at, ${
      iso("updated_at")
    } AS updated_at`
    const toConversation = (row: typeof ConversationRow.Type) => new Conversation(row)

    const find = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, userId: Schema.optional(Schema.String), id: Schema.String }),
      Result: ConversationRow,
      execute: ({ id, ...reach }) =>
        sql`SELECT ${columns} FROM conversations WHERE ${reachFilter(sql, reach)} AND id = ${id}`
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

    /** Most recently active first; `search` in titles. */
    const list = (reach: Reach, params: ListParams) =>
      Effect.gen(function*() {
        const pattern = params.search ? `%${params.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null
        const filter = sql`${reachFilter(sql, reach)} AND (${pattern}::text IS NULL OR title ILIKE ${pattern})`
        const [{ total }] = yield* sql<
          { total: number }
        >`SELECT count(*)::int AS total FROM conversations WHERE ${filter}`.pipe(Effect.orDie) as Effect.Effect<
          ReadonlyArray<{ total: number }>
        >
        const rows = yield* sql`SELECT ${columns} FROM conversations WHERE ${filter}
          ORDER BY updated_at DESC, id LIMIT ${params.size} OFFSET ${params.page * params.size}`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(ConversationRow))),
          Effect.orDie
        )
        return pageOf(rows.map(toConversation), params.page, params.size, total)
      })

    const remove = (reach: Reach, id: string) =>
      own(reach, id).pipe(
        Effect.zipRight(
          sql`DELETE FROM conversations WHERE ${reachFilter(sql, reach)} AND id = ${id}`.pipe(Effect.orDie)
        ),
        Effect.asVoid
      )

    // The caller's own conversations, and the admin views of the tenant's (`InTenant`). Readers and
    // writers of conversations come after this process's pending records (RequestRecorder).
    return afterRecords("Conversations", recorder.settled, {
      get: (id: string) => Effect.flatMap(CurrentPrincipal, (principal) => own(principal, id)),

      create: (
        { documentId, title }: { readonly title?: string | undefined; readonly documentId?: string | undefined }
      ) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          if (documentId !== undefined) {
            yield* broker.metadata(documentId).pipe(
              Effect.mapError((error) => new BadRequest({ message: `The conversation's document: ${error.message}` }))
            )
          }
          const rows = yield* sql`INSERT INTO conversations ${
            sql.insert({
              tenantId: principal.tenantId,
              id: randomUUID(),
              userId: principal.userId,
              title: title?.trim() || "New conversation",
              documentId: documentId ?? null
            })
          } RETURNING ${columns}`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(ConversationRow))),
            Effect.orDie
          )
          return toConversation(rows[0]!)
        }),

      list: (params: ListParams) => Effect.flatMap(CurrentPrincipal, (principal) => list(principal, params)),

      remove: (id: string) => Effect.flatMap(CurrentPrincipal, (principal) => remove(principal, id)),

      /** A conversation of the tenant, or of `userId` when given. */
      getInTenant: (id: string, userId?: string) => Effect.flatMap(tenantReach(userId), (reach) => own(reach, id)),

      /** The tenant's conversations, or those of `userId`. */
      listInTenant: (params: ListParams & { readonly userId?: string | undefined }) =>
        Effect.flatMap(tenantReach(params.userId), (reach) => list(reach, params)),

      removeInTenant: (id: string) => Effect.flatMap(tenantReach(), (reach) => remove(reach, id)),

      /**
       * The conversation that holds a plan execution's LLM calls, under the execution's ID and
       * owned by the caller (the user who ran the plan): made the first time one of its calls is
       * recorded, as it is after that (docs/gateway-plan-executions.md).
       */
      forExecution: (executionId: string, planTitle: string) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          sql`INSERT INTO conversations ${
            sql.insert({
              tenantId: principal.tenantId,
              id: executionId,
              userId: principal.userId,
              title: `Plan: ${planTitle}`,
              documentId: null
            })
          } ON CONFLICT (tenant_id, id) DO NOTHING`.pipe(Effect.orDie, Effect.asVoid))
    })
  }),
  dependencies: [RequestRecorder.Default, BrokerDocuments.Default]
}) {}
