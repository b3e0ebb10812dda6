/**
 * Application configurations (spec: "Admin: applications, agents, plans", "Other records"): a
 * named configuration of a tenant that groups the prompts an application offers and the LLM it
 * uses. The spec names no field; see docs/gateway-applications.md for the choices.
 */
import { Schema } from "effect"
import { PromptId, PromptLlm } from "./Prompts.ts"

/** A name shown to people; unique in the tenant, whatever its case. */
export const ConfigurationName = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "the name must not be empty" }),
  Schema.maxLength(200)
)

const Description = Schema.String.pipe(Schema.maxLength(2000))

/** The prompts an Application offers, by ID: each must exist; no ID twice. */
const PromptIds = Schema.Array(PromptId).pipe(
  Schema.maxItems(200),
  Schema.filter((ids) => new Set(ids).size === ids.length || "a prompt is listed twice")
)

/** Free settings for the client application (display, feature switches); JSON, at most 64 KiB. */
const Settings = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  Schema.filter((settings) => JSON.stringify(settings).length <= 65_536 || "settings are larger than 64 KiB")
)

/** Body of POST /admin/application/application-conf. */
export class ApplicationCreate extends Schema.Class<ApplicationCreate>("ApplicationCreate")({
  name: ConfigurationName,
  description: Schema.optional(Schema.NullOr(Description)),
  prompts: Schema.optional(PromptIds),
  llm: Schema.optional(Schema.NullOr(PromptLlm)),
  enabled: Schema.optional(Schema.Boolean),
  settings: Schema.optional(Settings)
}) {}

/** Body of PUT /admin/application/application-conf/{id}: the fields given replace those stored, `null` clears. */
export class ApplicationUpdate extends Schema.Class<ApplicationUpdate>("ApplicationUpdate")({
  name: Schema.optional(ConfigurationName),
  description: Schema.optional(Schema.NullOr(Description)),
  prompts: Schema.optional(PromptIds),
  llm: Schema.optional(Schema.NullOr(PromptLlm)),
  enabled: Schema.optional(Schema.Boolean),
  settings: Schema.optional(Settings)
}) {}

export class Application extends Schema.Class<Application>("Application")({
  id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  /** IDs of the prompts offered, in the order given. */
  prompts: Schema.Array(Schema.String),
  llm: PromptLlm,
  enabled: Schema.Boolean,
  settings: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}
