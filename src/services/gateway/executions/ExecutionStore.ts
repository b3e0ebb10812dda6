/**
 * Plan executions in SQL, where their durability lives. An execution is driven by the one gateway
 * holding its lease (renewed while it works; once it runs out, any gateway on the database may
 * claim the execution, `FOR UPDATE SKIP LOCKED`). Every write a driver makes is guarded by its
 * lease in the same statement, so a gateway that lost the execution writes nothing more. A node's
 * output is written by the statement that marks it COMPLETED: a finished node is never run again,
 * and a node found RUNNING when an execution is claimed was cut off, so it runs again.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Config, Duration, Effect, Option, PubSub, Queue } from "effect"
import { randomUUID } from "node:crypto"
import { Conflict, NotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import {
  ExecutionNode,
  type ExecutionState,
  NestedExecution,
  type NodeState,
  PlanExecution,
  PlanExecutionSummary
} from "../../../schemas/gateway/PlanExecutions.ts"
import type { PlanGraphNode } from "../../../schemas/gateway/Plans.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import { isoUtc } from "../../common/sql/Fragments.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"

export const ExecutionsConfig = Config.all({
  /** How long an execution stays with its gateway without a heartbeat; then another may take it over. */
  lease: durationConfig("PLAN_EXECUTION_LEASE", Duration.seconds(30)),
  /** How often a gateway looks for executions to take up, and for changes made by other gateways. */
  pollInterval: durationConfig("PLAN_EXECUTION_POLL_INTERVAL", Duration.seconds(1)),
  /** Main executions one gateway drives at once (nested ones are always taken up: their parents wait for them). */
  perInstance: Config.integer("PLAN_EXECUTIONS_PER_INSTANCE").pipe(Config.withDefault(16)),
  /** Nodes of one execution running at once. */
  nodeConcurrency: Config.integer("PLAN_NODE_CONCURRENCY").pipe(Config.withDefault(4)),
  /** Starts of one node before it fails: a node that kills its gateway every time must not loop forever. */
  nodeMaxAttempts: Config.integer("PLAN_NODE_MAX_ATTEMPTS").pipe(Config.withDefault(3))
})

/** What a driver needs of an execution it claimed. */
export interface ClaimedExecution {
  readonly id: string
  /** The gateway driving it (the lease's owner): every write of the driver names it. */
  readonly owner: string
  /** Not nested: counted against PLAN_EXECUTIONS_PER_INSTANCE. */
  readonly isMain: boolean
  readonly tenantId: string
  readonly userId: string
  /** The plan's title as it was at run (the title of the conversation that holds its LLM calls). */
  readonly planTitle: string
  readonly nodes: ReadonlyArray<PlanGraphNode>
  readonly outputNode: string | null
  readonly inputPayload: Readonly<Record<string, unknown>>
}

export interface StoredNode {
  readonly nodeId: string
  readonly state: NodeState
  readonly output: unknown
  readonly attempts: number
}

/** Where a nested execution belongs: its parent, the node, and the item of a PARALLEL node. */
export interface Place {
  readonly parentId: string
  readonly nodeId: string
  readonly item: number | null
}

/** The spec's state table: what pause, resume and stop move an execution from, and to. */
const TRANSITIONS: Readonly<
  Record<"pause" | "resume" | "stop", { readonly from: ReadonlyArray<ExecutionState>; readonly to: ExecutionState }>
> = {
  pause: { from: ["RUNNING"], to: "PAUSED" },
  resume: { from: ["PAUSED"], to: "RUNNING" },
  stop: { from: ["RUNNING", "PAUSED"], to: "CANCELLED" }
}

/** jsonb comes back parsed from PostgreSQL and as text from PGlite; every value kept here is an object, a list or null. */
const parsed = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value)

const notFound = (id: string) => new NotFound({ message: `No plan execution '${id}'` })

type ExecutionRow = {
  readonly id: string
  readonly planId: string
  readonly planTitle: string
  readonly parentId: string | null
  readonly state: ExecutionState
  readonly inputPayload: unknown
  readonly output: unknown
  readonly errorMessage: string | null
  readonly nodes: unknown
  readonly createdAt: string
  readonly updatedAt: string
  readonly finishedAt: string | null
}

type NodeRow = {
  readonly nodeId: string
  readonly state: NodeState
  readonly output: unknown
  readonly errorMessage: string | null
  readonly attempts: number
  readonly itemsDone: number | null
  readonly startedAt: string | null
  readonly finishedAt: string | null
}

export class ExecutionStore extends Effect.Service<ExecutionStore>()("gateway/ExecutionStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* ExecutionsConfig
    const leaseMs = Duration.toMillis(config.lease)
    /** Executions changed by this process (paused, resumed, stopped, finished, created): drivers and waiters here react at once. */
    const changes = yield* PubSub.unbounded<string>()
    const changed = (id: string) => PubSub.publish(changes, id)
    const iso = (column: string) => isoUtc(sql, column)
    const leaseEnd = sql`now() + ${leaseMs} * interval '1 millisecond'`

    const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => effect.pipe(Effect.orDie)
    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))

    /** The guard of a driver's writes: the execution is still its own and not ended. */
    const stillOwned = (id: string, owner: string) =>
      sql`EXISTS (SELECT 1 FROM plan_executions WHERE id = ${id} AND lease_owner = ${owner}
                    AND state IN ('RUNNING', 'PAUSED'))`

    const row = (tenantId: string, id: string) =>
      run(sql<ExecutionRow>`SELECT id, plan_id, plan_title, parent_id, state, input_payload, output, error_message,
            nodes, ${iso("created_at")} AS created_at, ${iso("updated_at")} AS updated_at,
            ${iso("finished_at")} AS finished_at
          FROM plan_executions WHERE tenant_id = ${tenantId} AND id = ${id}`).pipe(
        Effect.flatMap(([found]) => (found ? Effect.succeed(found) : Effect.fail(notFound(id))))
      )

    const view = (tenantId: string, id: string) =>
      Effect.gen(function*() {
        const execution = yield* row(tenantId, id)
        const nodes = yield* run(sql<NodeRow>`SELECT n.node_id, n.state, n.output, n.error_message, n.attempts,
              (SELECT count(*)::int FROM plan_execution_items i
                WHERE i.execution_id = n.execution_id AND i.node_id = n.node_id) AS items_done,
              ${iso("n.started_at")} AS started_at, ${iso("n.finished_at")} AS finished_at
            FROM plan_execution_nodes n WHERE n.execution_id = ${id} ORDER BY n.position`)
        const children = yield* run(sql<
          { id: string; planId: string; parentNode: string; parentItem: number | null; state: ExecutionState }
        >`SELECT id, plan_id, parent_node, parent_item, state FROM plan_executions
            WHERE parent_id = ${id} ORDER BY parent_node, parent_item`)
        const definitions = parsed(execution.nodes) as ReadonlyArray<PlanGraphNode>
        return new PlanExecution({
          id: execution.id,
          planId: execution.planId,
          planTitle: execution.planTitle,
          parentId: execution.parentId,
          state: execution.state,
          inputPayload: parsed(execution.inputPayload) as Record<string, unknown>,
          output: parsed(execution.output) ?? null,
          errorMessage: execution.errorMessage,
          nodes: nodes.map((node) => {
            const definition = definitions.find((d) => d.id === node.nodeId)
            return new ExecutionNode({
              id: node.nodeId,
              type: definition?.type ?? "UNKNOWN",
              name: definition?.name ?? null,
              state: node.state,
              output: parsed(node.output) ?? null,
              errorMessage: node.errorMessage,
              attempts: node.attempts,
              itemsDone: definition?.type === "PARALLEL" && node.startedAt !== null ? node.itemsDone : null,
              startedAt: node.startedAt,
              finishedAt: node.finishedAt
            })
          }),
          children: children.map((child) =>
            new NestedExecution({
              id: child.id,
              planId: child.planId,
              nodeId: child.parentNode,
              item: child.parentItem,
              state: child.state
            })
          ),
          createdAt: execution.createdAt,
          updatedAt: execution.updatedAt,
          finishedAt: execution.finishedAt
        })
      })

    const nestedAt = (place: Place) =>
      sql<{ id: string }>`SELECT id FROM plan_executions
          WHERE parent_id = ${place.parentId} AND parent_node = ${place.nodeId}
            AND COALESCE(parent_item, -1) = ${place.item ?? -1}`

    /** The execution and every nested execution under it (for stop and failure, which end them all). */
    const withDescendants = (id: string) =>
      sql<{ id: string }>`WITH RECURSIVE tree AS (
              SELECT id FROM plan_executions WHERE id = ${id}
              UNION ALL SELECT e.id FROM plan_executions e JOIN tree t ON e.parent_id = t.id)
            SELECT id FROM tree`

    /**
     * Ends the execution and the nested ones under it that are not ended yet: `state` for the
     * execution itself, CANCELLED for the nested ones, their running nodes CANCELLED. The partial
     * trace (nodes finished, their outputs) stays.
     */
    const end = (
      id: string,
      state: ExecutionState,
      fields: { readonly output?: unknown; readonly errorMessage?: string | null }
    ) =>
      Effect.gen(function*() {
        const ids = (yield* withDescendants(id)).map((r) => r.id)
        yield* sql`UPDATE plan_execution_nodes SET state = 'CANCELLED', finished_at = now()
                     WHERE execution_id IN ${sql.in(ids)} AND state = 'RUNNING'`
        yield* sql`UPDATE plan_executions SET state = 'CANCELLED', finished_at = now(), updated_at = now(),
                       error_message = 'Stopped with the execution it is nested in', lease_owner = NULL, lease_until = NULL
                     WHERE id IN ${sql.in(ids)} AND id <> ${id} AND state IN ('RUNNING', 'PAUSED')`
        yield* sql`UPDATE plan_executions SET state = ${state}, finished_at = now(), updated_at = now(),
                       output = ${fields.output === undefined ? null : sqlJson(fields.output)},
                       error_message = ${fields.errorMessage ?? null}, lease_owner = NULL, lease_until = NULL
                     WHERE id = ${id}`
        return ids
      })

    /** A state change asked by a client: the execution moves only from the states the spec's table allows, else 409 (404 when there is none). */
    const move = (tenantId: string, id: string, action: keyof typeof TRANSITIONS) =>
      Effect.gen(function*() {
        const { from, to } = TRANSITIONS[action]
        const refused = (state: ExecutionState) =>
          new Conflict({
            message: `The execution '${id}' cannot ${action}: it is ${state} (${action} needs ${from.join(" or ")})`
          })
        const current = yield* row(tenantId, id)
        if (!from.includes(current.state)) return yield* refused(current.state)
        const moved = to === "CANCELLED"
          ? yield* inTransaction(
            sql`SELECT id FROM plan_executions WHERE id = ${id} AND state IN ${sql.in(from)} FOR UPDATE`.pipe(
              Effect.flatMap((locked) => (locked.length === 0 ? Effect.succeed([]) : end(id, "CANCELLED", {})))
            )
          )
          : (yield* run(sql<{ id: string }>`UPDATE plan_executions SET state = ${to}, updated_at = now()
                WHERE id = ${id} AND state IN ${sql.in(from)} RETURNING id`)).map((r) => r.id)
        // Moved meanwhile by another request: answered as if it had come first.
        if (moved.length === 0) return yield* refused((yield* row(tenantId, id)).state)
        yield* Effect.forEach(moved, changed, { discard: true })
      })

    return {
      config,

      /** Waits until one of `ids` changes in this process, or a poll interval passes (changes made elsewhere). */
      awaitChange: (ids: ReadonlySet<string> | "any") =>
        Effect.scoped(
          PubSub.subscribe(changes).pipe(
            Effect.flatMap((subscription) =>
              Effect.raceFirst(
                Queue.take(subscription).pipe(Effect.repeat({ until: (id) => ids === "any" || ids.has(id) })),
                Effect.sleep(config.pollInterval)
              )
            ),
            Effect.asVoid
          )
        ),

      changed,

      /**
       * A new execution of the plan, RUNNING, every node PENDING. With a place, the nested
       * execution already there is answered instead: a PLAN node run again finds its own.
       */
      create: (
        execution: {
          readonly tenantId: string
          readonly userId: string
          readonly planId: string
          readonly planTitle: string
          readonly nodes: ReadonlyArray<PlanGraphNode>
          readonly outputNode: string | null
          readonly inputPayload: Readonly<Record<string, unknown>>
        },
        place?: Place
      ) =>
        inTransaction(Effect.gen(function*() {
          if (place) {
            const [existing] = yield* nestedAt(place)
            if (existing) return existing.id
          }
          const id = randomUUID()
          yield* sql`INSERT INTO plan_executions ${
            sql.insert({
              id,
              tenantId: execution.tenantId,
              planId: execution.planId,
              planTitle: execution.planTitle,
              nodes: sqlJson(execution.nodes),
              outputNode: execution.outputNode,
              userId: execution.userId,
              parentId: place?.parentId ?? null,
              parentNode: place?.nodeId ?? null,
              parentItem: place?.item ?? null,
              inputPayload: sqlJson(execution.inputPayload),
              state: "RUNNING"
            })
          }`
          yield* sql`INSERT INTO plan_execution_nodes ${
            sql.insert(execution.nodes.map((node, position) => ({
              executionId: id,
              nodeId: node.id,
              position,
              state: "PENDING"
            })))
          }`
          return id
        })).pipe(Effect.tap(changed)),

      view,

      /** The nested execution at a place, if one was started there. */
      nestedAt: (place: Place) => run(nestedAt(place)).pipe(Effect.map(([found]) => Option.fromNullable(found?.id))),

      list: (tenantId: string) =>
        run(sql<PlanExecutionSummary>`SELECT id, plan_id, plan_title, state, error_message,
              ${iso("created_at")} AS created_at, ${iso("updated_at")} AS updated_at, ${
          iso("finished_at")
        } AS finished_at
            FROM plan_executions WHERE tenant_id = ${tenantId} AND parent_id IS NULL ORDER BY seq DESC`).pipe(
          Effect.map((rows) => rows.map((r) => new PlanExecutionSummary(r)))
        ),

      /** RUNNING to PAUSED, PAUSED to RUNNING, not ended to CANCELLED (with the nested executions under it). */
      move,

      /** Deletes the execution and the nested ones under it; a driver of one of them stops at once here, at its next heartbeat elsewhere. */
      remove: (tenantId: string, id: string) =>
        Effect.gen(function*() {
          yield* row(tenantId, id)
          const ids = (yield* run(withDescendants(id))).map((r) => r.id)
          yield* run(sql`DELETE FROM plan_executions WHERE id = ${id}`)
          yield* Effect.forEach(ids, changed, { discard: true })
        }),

      /**
       * Takes an execution to drive: RUNNING, and nobody's or its lease run out. Nested executions
       * first (their parents wait for them), main ones only when `withMain`. Its nodes found
       * RUNNING were cut off with the gateway that ran them: PENDING again.
       */
      claim: (owner: string, withMain: boolean) =>
        inTransaction(Effect.gen(function*() {
          const [claimed] = yield* sql<
            {
              id: string
              tenantId: string
              userId: string
              planTitle: string
              parentId: string | null
              nodes: unknown
              outputNode: string | null
              inputPayload: unknown
            }
          >`UPDATE plan_executions SET lease_owner = ${owner}, lease_until = ${leaseEnd}
              WHERE id = (SELECT id FROM plan_executions
                          WHERE state = 'RUNNING' AND (lease_owner IS NULL OR lease_until < now())
                            AND (parent_id IS NOT NULL OR ${withMain})
                          ORDER BY parent_id IS NULL, seq LIMIT 1 FOR UPDATE SKIP LOCKED)
              RETURNING id, tenant_id, user_id, plan_title, parent_id, nodes, output_node, input_payload`
          if (!claimed) return Option.none<ClaimedExecution>()
          yield* sql`UPDATE plan_execution_nodes SET state = 'PENDING'
                       WHERE execution_id = ${claimed.id} AND state = 'RUNNING'`
          return Option.some<ClaimedExecution>({
            id: claimed.id,
            owner,
            isMain: claimed.parentId === null,
            tenantId: claimed.tenantId,
            userId: claimed.userId,
            planTitle: claimed.planTitle,
            nodes: parsed(claimed.nodes) as ReadonlyArray<PlanGraphNode>,
            outputNode: claimed.outputNode,
            inputPayload: parsed(claimed.inputPayload) as Record<string, unknown>
          })
        })),

      /** Extends the lease; the execution's state, or None when it is no longer this driver's (ended, deleted, taken over). */
      heartbeat: (id: string, owner: string) =>
        run(sql<{ state: ExecutionState }>`UPDATE plan_executions SET lease_until = ${leaseEnd}
              WHERE id = ${id} AND lease_owner = ${owner} AND state IN ('RUNNING', 'PAUSED') RETURNING state`).pipe(
          Effect.map(([updated]) => Option.fromNullable(updated?.state))
        ),

      /** Gives the execution up (paused with nothing running): whoever resumes it finds it free to claim. */
      release: (id: string, owner: string) =>
        run(sql`UPDATE plan_executions SET lease_owner = NULL, lease_until = NULL
                  WHERE id = ${id} AND lease_owner = ${owner}`),

      /**
       * Gives back every execution this process drives (it is stopping): free to claim at once
       * rather than after the lease, the interrupted nodes' starts not counted.
       */
      releaseAll: (owner: string) =>
        inTransaction(Effect.gen(function*() {
          yield* sql`UPDATE plan_execution_nodes SET state = 'PENDING', attempts = GREATEST(attempts - 1, 0)
                       WHERE state = 'RUNNING' AND execution_id IN (SELECT id FROM plan_executions WHERE lease_owner = ${owner})`
          yield* sql`UPDATE plan_executions SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ${owner}`
        })),

      /**
       * The embedded database is this process's alone: whatever is leased when it starts was
       * leased by a process that died, its lease ended now rather than when it runs out.
       */
      expireAll: run(sql`UPDATE plan_executions SET lease_until = now() - interval '1 second'
                           WHERE lease_owner IS NOT NULL`),

      /**
       * A PAUSED execution whose gateway died while nodes were still running (they would have
       * finished): those nodes were cut off, PENDING again to run on resume, and the lease freed.
       * Otherwise they would show RUNNING for as long as the execution stays paused.
       */
      freeAbandonedPauses: inTransaction(Effect.gen(function*() {
        const abandoned = sql`SELECT id FROM plan_executions
          WHERE state = 'PAUSED' AND lease_owner IS NOT NULL AND lease_until < now()`
        yield* sql`UPDATE plan_execution_nodes SET state = 'PENDING'
                   WHERE state = 'RUNNING' AND execution_id IN (${abandoned})`
        yield* sql`UPDATE plan_executions SET lease_owner = NULL, lease_until = NULL WHERE id IN (${abandoned})`
      })),

      nodes: (id: string) =>
        run(sql<StoredNode>`SELECT node_id, state, output, attempts FROM plan_execution_nodes
              WHERE execution_id = ${id}`).pipe(
          Effect.map((rows) => rows.map((r) => ({ ...r, output: parsed(r.output) })))
        ),

      /**
       * Marks a PENDING node RUNNING and counts the start, if the execution is this driver's and
       * RUNNING: the execution's row is locked first, so a pause committed before is seen and no
       * node starts after it. The node's starts so far, or None.
       */
      startNode: (id: string, owner: string, nodeId: string) =>
        inTransaction(Effect.gen(function*() {
          const [execution] = yield* sql<{ state: ExecutionState }>`SELECT state FROM plan_executions
              WHERE id = ${id} AND lease_owner = ${owner} FOR UPDATE`
          if (execution?.state !== "RUNNING") return Option.none<number>()
          const [started] = yield* sql<{ attempts: number }>`UPDATE plan_execution_nodes
              SET state = 'RUNNING', attempts = attempts + 1, started_at = now(), finished_at = NULL
              WHERE execution_id = ${id} AND node_id = ${nodeId} AND state = 'PENDING' RETURNING attempts`
          return Option.fromNullable(started?.attempts)
        })),

      /** Writes a node's end (its output with COMPLETED) in one statement; false when the execution is no longer this driver's. */
      finishNode: (
        id: string,
        owner: string,
        nodeId: string,
        state: "COMPLETED" | "FAILED" | "SKIPPED",
        result: { readonly output?: unknown; readonly errorMessage?: string }
      ) =>
        run(sql`UPDATE plan_execution_nodes SET state = ${state}, finished_at = now(),
                    output = ${result.output === undefined ? null : sqlJson(result.output)},
                    error_message = ${result.errorMessage ?? null}
                  WHERE execution_id = ${id} AND node_id = ${nodeId} AND state IN ('PENDING', 'RUNNING')
                    AND ${stillOwned(id, owner)} RETURNING node_id`).pipe(
          Effect.tap(() => changed(id)),
          Effect.map((updated) => updated.length > 0)
        ),

      /** The finished items of a PARALLEL node, by index. */
      items: (id: string, nodeId: string) =>
        run(sql<{ itemIndex: number; output: unknown }>`SELECT item_index, output FROM plan_execution_items
              WHERE execution_id = ${id} AND node_id = ${nodeId}`).pipe(
          Effect.map((rows) => new Map(rows.map((r) => [r.itemIndex, parsed(r.output)])))
        ),

      /** Keeps one item's output as it finishes; false when the execution is no longer this driver's. */
      finishItem: (id: string, owner: string, nodeId: string, index: number, output: unknown) =>
        run(sql`INSERT INTO plan_execution_items (execution_id, node_id, item_index, output)
                  SELECT ${id}, ${nodeId}, ${index}, ${sqlJson(output)} WHERE ${stillOwned(id, owner)}
                  ON CONFLICT DO NOTHING RETURNING item_index`).pipe(Effect.map((inserted) => inserted.length > 0)),

      /** Ends the execution this driver holds: COMPLETED with its output, or FAILED (its running nodes and nested executions cancelled). */
      finish: (
        id: string,
        owner: string,
        state: "COMPLETED" | "FAILED",
        fields: { readonly output?: unknown; readonly errorMessage?: string }
      ) =>
        inTransaction(Effect.gen(function*() {
          const [locked] = yield* sql`SELECT id FROM plan_executions WHERE id = ${id} AND lease_owner = ${owner}
                                          AND state IN ('RUNNING', 'PAUSED') FOR UPDATE`
          return locked ? yield* end(id, state, fields) : []
        })).pipe(Effect.tap((ids) => Effect.forEach(ids, changed, { discard: true }))),

      /** A nested execution's state and outcome, or None when it was deleted. */
      outcome: (id: string) =>
        run(sql<{ state: ExecutionState; output: unknown; errorMessage: string | null }>`SELECT state, output,
              error_message FROM plan_executions WHERE id = ${id}`).pipe(
          Effect.map(([found]) =>
            Option.fromNullable(found).pipe(Option.map((f) => ({ ...f, output: parsed(f.output) })))
          )
        )
    } as const
  })
}) {}
