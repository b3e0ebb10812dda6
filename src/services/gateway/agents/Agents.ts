/**
 * A tenant's agent configurations, in SQL (spec: "Admin: applications, agents, plans"): what an
 * AGENT node of a plan runs. Every statement is scoped to the tenant. A title is unique in the
 * tenant whatever its case (BAD_REQUEST otherwise, as the spec says); the instructions are a
 * template, checked on every write as prompt templates are; its tools must be native tools or
 * tools of the tenant's MCP servers (ToolRegistry.check).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Agent, type AgentCreate, type AgentUpdate } from "../../../schemas/gateway/Agents.ts"
import { BadRequest, Conflict, NotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import { PromptLlm } from "../../../schemas/gateway/Prompts.ts"
import { failOnUniqueViolation, isoUtc, tenantRecords } from "../../common/sql/Fragments.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"
import { Templates } from "../prompts/Templates.ts"
import { currentTenant } from "../tenancy/CurrentReach.ts"
import { ToolRegistry } from "../tools/ToolRegistry.ts"

const JsonObject = Schema.Union(
  Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
)
const JsonStrings = Schema.Union(Schema.Array(Schema.String), Schema.parseJson(Schema.Array(Schema.String)))

class AgentRow extends Schema.Class<AgentRow>("AgentRow")({
  id: Schema.String,
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  instructions: Schema.String,
  llm: JsonObject,
  tools: JsonStrings,
  maxToolCycles: Schema.NullOr(Schema.Number),
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}

const decodeLlm = Schema.decodeUnknownSync(PromptLlm)

/** What is stored for an agent besides its identity and timestamps. */
interface Content {
  readonly title: string
  readonly description: string | null
  readonly instructions: string
  readonly llm: PromptLlm
  readonly tools: ReadonlyArray<string>
  readonly maxToolCycles: number | null
}

/** The body over `base`: an omitted field is kept, `null` clears it. */
const merge = (base: Content, input: AgentCreate | AgentUpdate): Content => ({
  title: input.title ?? base.title,
  description: input.description === undefined ? base.description : input.description,
  instructions: input.instructions ?? base.instructions,
  llm: input.llm === undefined ? base.llm : input.llm ?? new PromptLlm({}),
  tools: input.tools ?? base.tools,
  maxToolCycles: input.maxToolCycles === undefined ? base.maxToolCycles : input.maxToolCycles
})

const EMPTY: Content = {
  title: "",
  description: null,
  instructions: "",
  llm: new PromptLlm({}),
  tools: [],
  maxToolCycles: null
}

const agentOf = (row: AgentRow) =>
  new Agent({
    id: row.id,
    title: row.title,
    description: row.description,
    instructions: row.instructions,
    llm: decodeLlm(row.llm),
    tools: row.tools,
    maxToolCycles: row.maxToolCycles,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  })

const notFound = (id: string) => new NotFound({ message: `No agent configuration '${id}'` })

export class Agents extends Effect.Service<Agents>()("gateway/Agents", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const templates = yield* Templates
    const tools = yield* ToolRegistry
    const columns = sql`id, title, description, instructions, llm, tools, max_tool_cycles,
      ${isoUtc(sql, "created_at")} AS created_at, ${isoUtc(sql, "updated_at")} AS updated_at`

    const records = tenantRecords(sql, {
      table: "agents",
      columns,
      Row: AgentRow,
      orderBy: "lower(title)",
      notFound
    })
    const load = (tenantId: string, id: string) => records.load(tenantId, id).pipe(Effect.map(agentOf))

    /** The checks a stored configuration must pass: its title free (but for `self`), its instructions a template. */
    const titleTaken = (content: Content) =>
      new BadRequest({ message: `An agent configuration titled '${content.title}' already exists` })

    const validate = (tenantId: string, content: Content, self?: string) =>
      Effect.gen(function*() {
        const clash = yield* sql<{ id: string }>`SELECT id FROM agents
          WHERE tenant_id = ${tenantId} AND lower(title) = lower(${content.title})`.pipe(Effect.orDie)
        if (clash.some((row) => row.id !== self)) {
          return yield* titleTaken(content)
        }
        yield* templates.check(content.instructions).pipe(
          Effect.mapError((error) => new BadRequest({ message: `The agent's instructions: ${error.message}` }))
        )
        yield* tools.check(content.tools)
      })

    const fields = (content: Content) => ({
      title: content.title,
      description: content.description,
      instructions: content.instructions,
      llm: sqlJson(content.llm),
      tools: sqlJson(content.tools),
      maxToolCycles: content.maxToolCycles
    })

    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))

    return {
      list: Effect.fn("Agents.list")(function*() {
        return (yield* records.all(yield* currentTenant)).map(agentOf)
      }),

      get: Effect.fn("Agents.get")(function*(id: string) {
        return yield* load(yield* currentTenant, id)
      }),

      create: Effect.fn("Agents.create")(function*(input: AgentCreate) {
        const tenantId = yield* currentTenant
        const id = randomUUID()
        const content = merge(EMPTY, input)
        yield* inTransaction(Effect.gen(function*() {
          yield* validate(tenantId, content)
          yield* sql`INSERT INTO agents ${sql.insert({ tenantId, id, ...fields(content) })}`.pipe(
            failOnUniqueViolation(() => titleTaken(content))
          )
        }))
        return yield* load(tenantId, id)
      }),

      update: Effect.fn("Agents.update")(function*(id: string, input: AgentUpdate) {
        const tenantId = yield* currentTenant
        yield* inTransaction(Effect.gen(function*() {
          const content = merge(yield* load(tenantId, id), input)
          yield* validate(tenantId, content, id)
          yield* sql`UPDATE agents SET ${sql.update(fields(content))}, updated_at = now()
                     WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            failOnUniqueViolation(() => titleTaken(content))
          )
        }))
        return yield* load(tenantId, id)
      }),

      /**
       * 204; 409 while a plan runs it (its AGENT node would name nothing). The plans' references are
       * read here from their table rather than through their service, which stands on this one.
       */
      remove: Effect.fn("Agents.remove")(function*(id: string) {
        const tenantId = yield* currentTenant
        yield* load(tenantId, id)
        const plans = yield* sql<{ title: string }>`SELECT p.title FROM plan_references r
          JOIN plans p ON p.tenant_id = r.tenant_id AND p.id = r.plan_id
          WHERE r.tenant_id = ${tenantId} AND r.kind = 'agent' AND r.ref_id = ${id} ORDER BY lower(p.title)`.pipe(
          Effect.orDie
        )
        if (plans.length > 0) {
          return yield* new Conflict({
            message: `Agent configuration '${id}' cannot be deleted: the plans ${
              plans.map((plan) => `'${plan.title}'`).join(", ")
            } run it`
          })
        }
        const deleted = yield* sql<{ id: string }>`DELETE FROM agents
          WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING id`.pipe(Effect.orDie)
        if (deleted.length === 0) return yield* notFound(id)
      })
    }
  }),
  dependencies: [Templates.Default, ToolRegistry.Default]
}) {}
