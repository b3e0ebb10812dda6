/**
 * Agent configurations (spec: "Admin: applications, agents, plans", "Other records"): a reusable
 * LLM agent (instructions, model, tools) that an AGENT node of a plan runs. The spec names no
 * field; see docs/gateway-applications.md for the choices.
 */
import { Schema } from "effect"
import { ConfigurationName } from "./Applications.ts"
import { PromptLlm } from "./Prompts.ts"

const Description = Schema.String.pipe(Schema.maxLength(2000))
/** A template (docs/gateway-prompts.md), rendered with the node's input when the agent runs. */
const Instructions = Schema.String.pipe(Schema.maxLength(200_000))

/** Tools the agent may call, by name (a native tool, or `mcp:<server>/<tool>`); no name twice. */
const ToolNames = Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))).pipe(
  Schema.maxItems(100),
  Schema.filter((names) => new Set(names).size === names.length || "a tool is listed twice")
)

/** Most tool-calling rounds one run of the agent may take. */
const MaxToolCycles = Schema.Int.pipe(Schema.between(1, 50))

/** Body of POST /admin/agent/agent-conf. */
export class AgentCreate extends Schema.Class<AgentCreate>("AgentCreate")({
  title: ConfigurationName,
  description: Schema.optional(Schema.NullOr(Description)),
  instructions: Instructions,
  llm: Schema.optional(Schema.NullOr(PromptLlm)),
  tools: Schema.optional(ToolNames),
  maxToolCycles: Schema.optional(Schema.NullOr(MaxToolCycles))
}) {}

/** Body of PUT /admin/agent/agent-conf/{id}: the fields given replace those stored, `null` clears. */
export class AgentUpdate extends Schema.Class<AgentUpdate>("AgentUpdate")({
  title: Schema.optional(ConfigurationName),
  description: Schema.optional(Schema.NullOr(Description)),
  instructions: Schema.optional(Instructions),
  llm: Schema.optional(Schema.NullOr(PromptLlm)),
  tools: Schema.optional(ToolNames),
  maxToolCycles: Schema.optional(Schema.NullOr(MaxToolCycles))
}) {}

export class Agent extends Schema.Class<Agent>("Agent")({
  id: Schema.String,
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  instructions: Schema.String,
  llm: PromptLlm,
  tools: Schema.Array(Schema.String),
  /** `null`: the gateway's limit of the tool loop. */
  maxToolCycles: Schema.NullOr(Schema.Int),
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}
