/**
 * Plan executions (spec: "Plan execution", "Plan executions", "Admin: plan executions"): a run of
 * a plan from `{planId, inputPayload}`, holding the state of every node. The states the spec leaves
 * unnamed (the one right after run, the ends other than CANCELLED) and what each node shows are
 * this gateway's: docs/gateway-plan-executions.md.
 */
import { Schema } from "effect"

/** Body of POST /admin/plan-executions/run. */
export class RunPlan extends Schema.Class<RunPlan>("RunPlan")({
  planId: Schema.String,
  inputPayload: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}) {}

/**
 * RUNNING from the run on (there is no queued state: some gateway drives it as soon as one is
 * free), PAUSED, and three ends: COMPLETED, FAILED (a node failed), CANCELLED (stopped).
 */
export const ExecutionState = Schema.Literal("RUNNING", "PAUSED", "COMPLETED", "FAILED", "CANCELLED")
export type ExecutionState = typeof ExecutionState.Type

export const TERMINAL_STATES: ReadonlyArray<ExecutionState> = ["COMPLETED", "FAILED", "CANCELLED"]

/**
 * PENDING (not started), RUNNING, and four ends: COMPLETED (its output kept), FAILED, SKIPPED (a
 * condition's branch not taken, or every node it runs after skipped), CANCELLED (running when the
 * execution was stopped or failed).
 */
export const NodeState = Schema.Literal("PENDING", "RUNNING", "COMPLETED", "FAILED", "SKIPPED", "CANCELLED")
export type NodeState = typeof NodeState.Type

export class ExecutionNode extends Schema.Class<ExecutionNode>("ExecutionNode")({
  id: Schema.String,
  type: Schema.String,
  name: Schema.NullOr(Schema.String),
  state: NodeState,
  /** The node's output once COMPLETED (docs/gateway-plans.md gives each type's shape). */
  output: Schema.NullOr(Schema.Unknown),
  errorMessage: Schema.NullOr(Schema.String),
  /** Times the node was started: more than 1 when a gateway died while it ran. */
  attempts: Schema.Int,
  /** A PARALLEL node's items finished so far, and how many there are (null before it starts). */
  itemsDone: Schema.NullOr(Schema.Int),
  startedAt: Schema.NullOr(Schema.String),
  finishedAt: Schema.NullOr(Schema.String)
}) {}

/** A nested execution, as its parent lists it. */
export class NestedExecution extends Schema.Class<NestedExecution>("NestedExecution")({
  id: Schema.String,
  planId: Schema.String,
  /** The PLAN node (or PARALLEL node running a plan) that started it, and the item for a PARALLEL node. */
  nodeId: Schema.String,
  item: Schema.NullOr(Schema.Int),
  state: ExecutionState
}) {}

export class PlanExecution extends Schema.Class<PlanExecution>("PlanExecution")({
  id: Schema.String,
  planId: Schema.String,
  planTitle: Schema.String,
  /** The execution whose PLAN node started this one; null for a main execution. */
  parentId: Schema.NullOr(Schema.String),
  state: ExecutionState,
  inputPayload: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  /** Once COMPLETED: the output node's output, or every completed node's by ID. */
  output: Schema.NullOr(Schema.Unknown),
  errorMessage: Schema.NullOr(Schema.String),
  /** Every node of the plan (as it was at run), in the plan's order. */
  nodes: Schema.Array(ExecutionNode),
  children: Schema.Array(NestedExecution),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  finishedAt: Schema.NullOr(Schema.String)
}) {}

/** A main execution in the list: its nodes are read one execution at a time. */
export class PlanExecutionSummary extends Schema.Class<PlanExecutionSummary>("PlanExecutionSummary")({
  id: Schema.String,
  planId: Schema.String,
  planTitle: Schema.String,
  state: ExecutionState,
  errorMessage: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  finishedAt: Schema.NullOr(Schema.String)
}) {}
