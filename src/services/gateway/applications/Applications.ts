/**
 * A tenant's Application configurations, in SQL (spec: "Admin: applications, agents, plans").
 * Every statement is scoped to the tenant. A name is unique in the tenant whatever its case, and
 * every prompt an Application lists must exist: both are BAD_REQUEST, as the spec says for an
 * invalid configuration or a name that exists. Whether a prompt may be deleted is decided by the
 * prompts service (Prompts.usage), which reads application_prompts.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Application, type ApplicationCreate, type ApplicationUpdate } from "../../../schemas/gateway/Applications.ts"
import { BadRequest, NotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import { PromptLlm } from "../../../schemas/gateway/Prompts.ts"
import { failOnUniqueViolation, isoUtc } from "../../common/sql/Fragments.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"
import { Prompts } from "../prompts/Prompts.ts"
import { currentTenant } from "../tenancy/CurrentReach.ts"

const JsonObject = Schema.Union(
  Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
)

class ApplicationRow extends Schema.Class<ApplicationRow>("ApplicationRow")({
  id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  llm: JsonObject,
  enabled: Schema.Boolean,
  settings: JsonObject,
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}

class ReferenceRow extends Schema.Class<ReferenceRow>("ReferenceRow")({
  applicationId: Schema.String,
  promptId: Schema.String
}) {}

const decodeLlm = Schema.decodeUnknownSync(PromptLlm)

/** What is stored for an Application besides its identity and timestamps. */
interface Content {
  readonly name: string
  readonly description: string | null
  readonly prompts: ReadonlyArray<string>
  readonly llm: PromptLlm
  readonly enabled: boolean
  readonly settings: Readonly<Record<string, unknown>>
}

/** The body over `base`: an omitted field is kept, `null` clears it. */
const merge = (base: Content, input: ApplicationCreate | ApplicationUpdate): Content => ({
  name: input.name ?? base.name,
  description: input.description === undefined ? base.description : input.description,
  prompts: input.prompts ?? base.prompts,
  llm: input.llm === undefined ? base.llm : input.llm ?? new PromptLlm({}),
  enabled: input.enabled ?? base.enabled,
  settings: input.settings ?? base.settings
})

const EMPTY: Content = {
  name: "",
  description: null,
  prompts: [],
  llm: new PromptLlm({}),
  enabled: true,
  settings: {}
}

const notFound = (id: string) => new NotFound({ message: `No Application configuration '${id}'` })

export class Applications extends Effect.Service<Applications>()("gateway/Applications", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const prompts = yield* Prompts
    const columns = sql`id, name, description, llm, enabled, settings,
      ${isoUtc(sql, "created_at")} AS created_at, ${isoUtc(sql, "updated_at")} AS updated_at`

    const findAll = SqlSchema.findAll({
      Request: Schema.String,
      Result: ApplicationRow,
      execute: (tenantId) => sql`SELECT ${columns} FROM applications WHERE tenant_id = ${tenantId} ORDER BY lower(name)`
    })
    const findOne = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.String }),
      Result: ApplicationRow,
      execute: ({ id, tenantId }) =>
        sql`SELECT ${columns} FROM applications WHERE tenant_id = ${tenantId} AND id = ${id}`
    })
    const findReferences = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.optional(Schema.String) }),
      Result: ReferenceRow,
      execute: ({ id, tenantId }) =>
        sql`SELECT application_id, prompt_id FROM application_prompts WHERE tenant_id = ${tenantId} ${
          id === undefined ? sql.literal("") : sql`AND application_id = ${id}`
        } ORDER BY application_id, position`
    })

    const applicationOf = (row: ApplicationRow, references: ReadonlyArray<ReferenceRow>) =>
      new Application({
        id: row.id,
        name: row.name,
        description: row.description,
        prompts: references.filter((r) => r.applicationId === row.id).map((r) => r.promptId),
        llm: decodeLlm(row.llm),
        enabled: row.enabled,
        settings: row.settings,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt
      })

    const load = (tenantId: string, id: string) =>
      Effect.gen(function*() {
        const row = yield* findOne({ tenantId, id }).pipe(Effect.orDie)
        if (Option.isNone(row)) return yield* notFound(id)
        return applicationOf(row.value, yield* findReferences({ tenantId, id }).pipe(Effect.orDie))
      })

    const nameTaken = (content: Content) =>
      new BadRequest({ message: `An Application configuration named '${content.name}' already exists` })

    /** The checks a stored configuration must pass: its name free (but for `self`), its prompts existing. */
    const validate = (tenantId: string, content: Content, self?: string) =>
      Effect.gen(function*() {
        const clash = yield* sql<{ id: string }>`SELECT id FROM applications
          WHERE tenant_id = ${tenantId} AND lower(name) = lower(${content.name})`.pipe(Effect.orDie)
        if (clash.some((row) => row.id !== self)) {
          return yield* nameTaken(content)
        }
        for (const promptId of content.prompts) {
          yield* prompts.get(promptId).pipe(
            Effect.catchTag(
              "NOT_FOUND",
              () => new BadRequest({ message: `The Application lists the prompt '${promptId}', which does not exist` })
            )
          )
        }
      })

    const write = (tenantId: string, id: string, content: Content) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM application_prompts WHERE tenant_id = ${tenantId} AND application_id = ${id}`
        if (content.prompts.length > 0) {
          yield* sql`INSERT INTO application_prompts ${
            sql.insert(
              content.prompts.map((promptId, position) => ({ tenantId, applicationId: id, promptId, position }))
            )
          }`
        }
      }).pipe(Effect.orDie)

    const fields = (content: Content) => ({
      name: content.name,
      description: content.description,
      llm: sqlJson(content.llm),
      enabled: content.enabled,
      settings: sqlJson(content.settings)
    })

    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))

    return {
      list: Effect.fn("Applications.list")(function*() {
        const tenantId = yield* currentTenant
        const rows = yield* findAll(tenantId).pipe(Effect.orDie)
        const references = yield* findReferences({ tenantId }).pipe(Effect.orDie)
        return rows.map((row) => applicationOf(row, references))
      }),

      get: Effect.fn("Applications.get")(function*(id: string) {
        return yield* load(yield* currentTenant, id)
      }),

      create: Effect.fn("Applications.create")(function*(input: ApplicationCreate) {
        const tenantId = yield* currentTenant
        const id = randomUUID()
        const content = merge(EMPTY, input)
        yield* inTransaction(Effect.gen(function*() {
          yield* validate(tenantId, content)
          yield* sql`INSERT INTO applications ${sql.insert({ tenantId, id, ...fields(content) })}`.pipe(
            failOnUniqueViolation(() => nameTaken(content))
          )
          yield* write(tenantId, id, content)
        }))
        return yield* load(tenantId, id)
      }),

      update: Effect.fn("Applications.update")(function*(id: string, input: ApplicationUpdate) {
        const tenantId = yield* currentTenant
        yield* inTransaction(Effect.gen(function*() {
          const current = yield* load(tenantId, id)
          const content = merge(current, input)
          yield* validate(tenantId, content, id)
          yield* sql`UPDATE applications SET ${sql.update(fields(content))}, updated_at = now()
                     WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(failOnUniqueViolation(() => nameTaken(content)))
          yield* write(tenantId, id, content)
        }))
        return yield* load(tenantId, id)
      }),

      remove: Effect.fn("Applications.remove")(function*(id: string) {
        const tenantId = yield* currentTenant
        const deleted = yield* sql<{ id: string }>`DELETE FROM applications
          WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING id`.pipe(Effect.orDie)
        if (deleted.length === 0) return yield* notFound(id)
      })
    }
  }),
  dependencies: [Prompts.Default]
}) {}
