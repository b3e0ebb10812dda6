/**
 * Plan definitions (spec: "Admin: applications, agents, plans", "Other records"): a graph of nodes
 * that a plan execution runs from an `inputPayload`. The shapes of the nodes are here; the rules
 * across nodes (references, cycles, stored records) are checked by the plans service. The model,
 * with examples of every node type, is docs/gateway-plans.md.
 */
import { Schema } from "effect"
import { ConfigurationName } from "./Applications.ts"
import { PromptLlm } from "./Prompts.ts"

/** A node's ID: what other nodes write in `nodes.<id>` (so no dots). */
export const NodeId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, {
    message: () => "a node ID is 1-64 letters, digits, '_' or '-', starting with a letter"
  })
)

/** A template (docs/gateway-prompts.md), rendered with the node's context into text. */
const Template = Schema.String.pipe(Schema.maxLength(200_000))

/**
 * A place in a node's context, as dot-separated names: `input` (the execution's inputPayload),
 * `nodes.<id>.output` (an earlier node's output), `item` and `index` (inside a PARALLEL node's run),
 * followed by fields or list indices (`nodes.search.output.json.hits.0`).
 */
export const ContextPath = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/, {
    message: () => "a path is dot-separated names, such as input.topic or nodes.search.output.json"
  })
)

/** One value given to a node: a template rendered to text, or `{from: path}` passing a value as it is (any JSON). */
export const Binding = Schema.Union(Template, Schema.Struct({ from: ContextPath }))
export type Binding = typeof Binding.Type

/** Named values given to a node (a prompt's variables, a tool's arguments, a nested plan's input). */
const Bindings = Schema.Record({ key: Schema.String, value: Binding })

/** Fields every node has. */
const common = {
  id: NodeId,
  /** Shown in traces; the ID when absent. */
  name: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  /** Nodes that must be done first, besides those the node reads (which are implied). */
  dependsOn: Schema.optional(Schema.Array(NodeId))
}

/** A stored prompt rendered with `variables` and sent to its LLM. Output `{text, json?}`. */
const promptWork = {
  type: Schema.Literal("PROMPT"),
  promptId: Schema.String,
  /** A version of the prompt (a draft, say); the active one when absent. */
  version: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  variables: Schema.optional(Bindings),
  /** Overrides the prompt version's LLM settings, field by field. */
  llm: Schema.optional(PromptLlm),
  /** The answer is JSON: parsed into `output.json` (the node fails if it does not parse). */
  json: Schema.optional(Schema.Boolean)
}

/** An inline template sent to an LLM. Output `{text, json?}`. */
const llmWork = {
  type: Schema.Literal("LLM"),
  template: Template,
  llm: Schema.optional(PromptLlm),
  json: Schema.optional(Schema.Boolean)
}

/** An agent configuration run on the rendered `input` (its tool loop included). Output `{text, json?}`. */
const agentWork = {
  type: Schema.Literal("AGENT"),
  agentId: Schema.String,
  input: Template,
  json: Schema.optional(Schema.Boolean)
}

/** One tool called with `arguments`. Output `{result}`: what the tool answered. */
const toolWork = {
  type: Schema.Literal("TOOL"),
  tool: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  arguments: Schema.optional(Bindings)
}

/** Another plan run as a nested execution with `input` as its inputPayload. Output `{output, executionId}`. */
const planWork = {
  type: Schema.Literal("PLAN"),
  planId: Schema.String,
  input: Schema.optional(Bindings)
}

export class PromptNode extends Schema.Class<PromptNode>("PromptNode")({ ...common, ...promptWork }) {}
export class LlmNode extends Schema.Class<LlmNode>("LlmNode")({ ...common, ...llmWork }) {}
export class AgentNode extends Schema.Class<AgentNode>("AgentNode")({ ...common, ...agentWork }) {}
export class ToolNode extends Schema.Class<ToolNode>("ToolNode")({ ...common, ...toolWork }) {}
export class PlanNode extends Schema.Class<PlanNode>("PlanNode")({ ...common, ...planWork }) {}

/**
 * A test on the context: `if` rendered, true unless the text is empty, "false", "0", "no" or
 * "null" (trimmed, any case). The nodes of the branch not taken are SKIPPED, and so are the nodes
 * that depend on them. Output `{value, branch}`.
 */
export class ConditionNode extends Schema.Class<ConditionNode>("ConditionNode")({
  ...common,
  type: Schema.Literal("CONDITION"),
  if: Template,
  then: Schema.optional(Schema.Array(NodeId)),
  else: Schema.optional(Schema.Array(NodeId))
}) {}

/** What a PARALLEL node runs for each item: a PROMPT, LLM, AGENT, TOOL or PLAN node's work, without ID. */
export const ParallelWork = Schema.Union(
  Schema.Struct(promptWork),
  Schema.Struct(llmWork),
  Schema.Struct(agentWork),
  Schema.Struct(toolWork),
  Schema.Struct(planWork)
)
export type ParallelWork = typeof ParallelWork.Type

/**
 * A fan-out: `run` once for each element of the list at `items`, at most `maxConcurrency` at a
 * time, each run seeing `item` and `index`. Output `{items: [each run's output, in order]}`.
 */
export class ParallelNode extends Schema.Class<ParallelNode>("ParallelNode")({
  ...common,
  type: Schema.Literal("PARALLEL"),
  items: ContextPath,
  run: ParallelWork,
  maxConcurrency: Schema.optional(Schema.Int.pipe(Schema.between(1, 16)))
}) {}

export const PlanGraphNode = Schema.Union(
  PromptNode,
  LlmNode,
  AgentNode,
  ToolNode,
  ConditionNode,
  ParallelNode,
  PlanNode
)
export type PlanGraphNode = typeof PlanGraphNode.Type

export const NODE_TYPES = ["PROMPT", "LLM", "AGENT", "TOOL", "CONDITION", "PARALLEL", "PLAN"] as const

const Nodes = Schema.Array(PlanGraphNode).pipe(Schema.minItems(1), Schema.maxItems(500))
const Description = Schema.String.pipe(Schema.maxLength(2000))

/** Body of POST /admin/plans. */
export class PlanCreate extends Schema.Class<PlanCreate>("PlanCreate")({
  title: ConfigurationName,
  description: Schema.optional(Schema.NullOr(Description)),
  nodes: Nodes,
  /** The node whose output is the execution's output; without it, the output is every node's, by ID. */
  output: Schema.optional(Schema.NullOr(NodeId))
}) {}

/** Body of PUT /admin/plans/{id}: the fields given replace those stored (`nodes` as a whole), `null` clears. */
export class PlanUpdate extends Schema.Class<PlanUpdate>("PlanUpdate")({
  title: Schema.optional(ConfigurationName),
  description: Schema.optional(Schema.NullOr(Description)),
  nodes: Schema.optional(Nodes),
  output: Schema.optional(Schema.NullOr(NodeId))
}) {}

export class Plan extends Schema.Class<Plan>("Plan")({
  id: Schema.String,
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  nodes: Schema.Array(PlanGraphNode),
  output: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}
