/**
 * A tenant's plan definitions, in SQL (spec: "Admin: applications, agents, plans"). A plan is
 * checked whole on every write, and every problem found is named in one BAD_REQUEST: the graph's
 * own rules (PlanGraph), the syntax of each template, the prompts, agents and nested plans its
 * nodes name (they must exist in the tenant, and no plan may nest itself, directly or through
 * others), and a title unique in the tenant whatever its case. Plans are not run here: executions
 * are a later part of issue 20. The model is docs/gateway-plans.md.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { BadRequest, Conflict, NotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import { Plan, type PlanCreate, PlanGraphNode, type PlanUpdate } from "../../../schemas/gateway/Plans.ts"
import { CurrentPrincipal } from "../../../schemas/gateway/Tenancy.ts"
import { failOnUniqueViolation, isoUtc } from "../../common/sql/Fragments.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"
import { Agents } from "../agents/Agents.ts"
import { Prompts } from "../prompts/Prompts.ts"
import { Templates } from "../prompts/Templates.ts"
import { currentTenant } from "../tenancy/CurrentReach.ts"
import { graphProblems, recordsOf } from "./PlanGraph.ts"

const JsonNodes = Schema.Union(Schema.Array(Schema.Unknown), Schema.parseJson(Schema.Array(Schema.Unknown)))

class PlanRow extends Schema.Class<PlanRow>("PlanRow")({
  id: Schema.String,
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  nodes: JsonNodes,
  output: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}

const decodeNodes = Schema.decodeUnknownSync(Schema.Array(PlanGraphNode))
const encodeNodes = Schema.encodeSync(Schema.Array(PlanGraphNode))

/** What is stored for a plan besides its identity and timestamps. */
interface Content {
  readonly title: string
  readonly description: string | null
  readonly nodes: ReadonlyArray<PlanGraphNode>
  readonly output: string | null
}

const merge = (base: Content, input: PlanCreate | PlanUpdate): Content => ({
  title: input.title ?? base.title,
  description: input.description === undefined ? base.description : input.description,
  nodes: input.nodes ?? base.nodes,
  output: input.output === undefined ? base.output : input.output
})

const planOf = (row: PlanRow) =>
  new Plan({
    id: row.id,
    title: row.title,
    description: row.description,
    nodes: decodeNodes(row.nodes),
    output: row.output,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  })

const notFound = (id: string) => new NotFound({ message: `No plan '${id}'` })

export class Plans extends Effect.Service<Plans>()("gateway/Plans", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const templates = yield* Templates
    const prompts = yield* Prompts
    const agents = yield* Agents
    const columns = sql`id, title, description, nodes, output,
      ${isoUtc(sql, "created_at")} AS created_at, ${isoUtc(sql, "updated_at")} AS updated_at`

    const findAll = SqlSchema.findAll({
      Request: Schema.String,
      Result: PlanRow,
      execute: (tenantId) => sql`SELECT ${columns} FROM plans WHERE tenant_id = ${tenantId} ORDER BY lower(title)`
    })
    const findOne = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.String }),
      Result: PlanRow,
      execute: ({ id, tenantId }) => sql`SELECT ${columns} FROM plans WHERE tenant_id = ${tenantId} AND id = ${id}`
    })

    const load = (tenantId: string, id: string) =>
      findOne({ tenantId, id }).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(notFound(id)),
          onSome: (row) => Effect.succeed(planOf(row))
        }))
      )

    /** The plans `planId` nests, from the references kept beside each plan. */
    const nestedIn = (tenantId: string, planId: string) =>
      sql<{ refId: string }>`SELECT ref_id FROM plan_references
        WHERE tenant_id = ${tenantId} AND plan_id = ${planId} AND kind = 'plan'`.pipe(
        Effect.map((rows) => rows.map((row) => row.refId)),
        Effect.orDie
      )

    /** Whether `from` nests `target`, directly or through other plans. */
    const reaches = (tenantId: string, from: string, target: string) =>
      Effect.gen(function*() {
        const seen = new Set<string>()
        const queue = [from]
        while (queue.length > 0) {
          const next = queue.shift()!
          if (next === target) return true
          if (seen.has(next)) continue
          seen.add(next)
          queue.push(...(yield* nestedIn(tenantId, next)))
        }
        return false
      })

    /** Every problem of the plan `self` (a new plan's ID on creation) would have if stored with `content`. */
    const problemsOf = (tenantId: string, content: Content, self: string) =>
      Effect.gen(function*() {
        const problems = [...graphProblems(content.nodes, content.output)]
        const records = recordsOf(content.nodes)
        for (const { node, template } of records.templates) {
          yield* templates.check(template).pipe(
            Effect.catchAll((error) => Effect.sync(() => problems.push(`node '${node}': ${error.message}`)))
          )
        }
        for (const { node, promptId, version } of records.prompts) {
          const exists: Effect.Effect<unknown, NotFound, CurrentPrincipal> = version === undefined
            ? prompts.get(promptId)
            : prompts.version(promptId, version)
          yield* exists.pipe(
            Effect.catchTag("NOT_FOUND", (error) =>
              Effect.sync(() =>
                problems.push(`node '${node}' uses a prompt that does not exist: ${error.message}`)
              ))
          )
        }
        for (const { agentId, node } of records.agents) {
          yield* agents.get(agentId).pipe(
            Effect.catchTag("NOT_FOUND", () =>
              Effect.sync(() =>
                problems.push(`node '${node}' runs the agent '${agentId}', which does not exist`)
              ))
          )
        }
        for (const { node, planId } of records.plans) {
          if (planId === self) {
            problems.push(`node '${node}' nests the plan itself`)
          } else if (Option.isNone(yield* findOne({ tenantId, id: planId }).pipe(Effect.orDie))) {
            problems.push(`node '${node}' nests the plan '${planId}', which does not exist`)
          } else if (yield* reaches(tenantId, planId, self)) {
            problems.push(
              `node '${node}' nests the plan '${planId}', which nests this plan: plans would nest in a loop`
            )
          }
        }
        const clash = yield* sql<{ id: string }>`SELECT id FROM plans
          WHERE tenant_id = ${tenantId} AND lower(title) = lower(${content.title})`.pipe(Effect.orDie)
        if (clash.some((row) => row.id !== self)) problems.push(`a plan titled '${content.title}' already exists`)
        return problems
      })

    const titleTaken = (content: Content) =>
      new BadRequest({ message: `The plan is invalid: a plan titled '${content.title}' already exists` })

    const validate = (tenantId: string, content: Content, self: string) =>
      problemsOf(tenantId, content, self).pipe(
        Effect.flatMap((problems) =>
          problems.length === 0
            ? Effect.void
            : Effect.fail(new BadRequest({ message: `The plan is invalid: ${problems.join("; ")}` }))
        )
      )

    const write = (tenantId: string, id: string, content: Content) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM plan_references WHERE tenant_id = ${tenantId} AND plan_id = ${id}`
        const records = recordsOf(content.nodes)
        const references = [
          ...records.prompts.map((r) => ({ kind: "prompt", refId: r.promptId })),
          ...records.agents.map((r) => ({ kind: "agent", refId: r.agentId })),
          ...records.plans.map((r) => ({ kind: "plan", refId: r.planId }))
        ].filter((r, i, all) => all.findIndex((o) => o.kind === r.kind && o.refId === r.refId) === i)
        if (references.length > 0) {
          yield* sql`INSERT INTO plan_references ${sql.insert(references.map((r) => ({ tenantId, planId: id, ...r })))}`
        }
      }).pipe(Effect.orDie)

    const fields = (content: Content) => ({
      title: content.title,
      description: content.description,
      nodes: sqlJson(encodeNodes(content.nodes)),
      output: content.output
    })

    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))

    return {
      list: Effect.fn("Plans.list")(function*() {
        return (yield* findAll(yield* currentTenant).pipe(Effect.orDie)).map(planOf)
      }),

      get: Effect.fn("Plans.get")(function*(id: string) {
        return yield* load(yield* currentTenant, id)
      }),

      create: Effect.fn("Plans.create")(function*(input: PlanCreate) {
        const tenantId = yield* currentTenant
        const id = randomUUID()
        const content = merge({ title: "", description: null, nodes: [], output: null }, input)
        yield* inTransaction(Effect.gen(function*() {
          yield* validate(tenantId, content, id)
          yield* sql`INSERT INTO plans ${sql.insert({ tenantId, id, ...fields(content) })}`.pipe(
            failOnUniqueViolation(() => titleTaken(content))
          )
          yield* write(tenantId, id, content)
        }))
        return yield* load(tenantId, id)
      }),

      update: Effect.fn("Plans.update")(function*(id: string, input: PlanUpdate) {
        const tenantId = yield* currentTenant
        yield* inTransaction(Effect.gen(function*() {
          const content = merge(yield* load(tenantId, id), input)
          yield* validate(tenantId, content, id)
          yield* sql`UPDATE plans SET ${sql.update(fields(content))}, updated_at = now()
                     WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            failOnUniqueViolation(() => titleTaken(content))
          )
          yield* write(tenantId, id, content)
        }))
        return yield* load(tenantId, id)
      }),

      /** 204; 409 while another plan nests it (its PLAN node would name nothing). */
      remove: Effect.fn("Plans.remove")(function*(id: string) {
        const tenantId = yield* currentTenant
        yield* load(tenantId, id)
        const nesting = yield* sql<{ planId: string }>`SELECT plan_id FROM plan_references
          WHERE tenant_id = ${tenantId} AND kind = 'plan' AND ref_id = ${id} ORDER BY plan_id`.pipe(Effect.orDie)
        if (nesting.length > 0) {
          return yield* new Conflict({
            message: `Plan '${id}' cannot be deleted: the plans ${
              nesting.map((row) => `'${row.planId}'`).join(", ")
            } nest it`
          })
        }
        yield* sql`DELETE FROM plans WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(Effect.orDie)
      })
    }
  }),
  dependencies: [Templates.Default, Prompts.Default, Agents.Default]
}) {}
