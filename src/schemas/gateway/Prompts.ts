/**
 * Prompts (spec: "Prompt aggregate", "Prompt versions"): a prompt of a tenant with an ordered
 * version history; each version is draft, published or archived. The spec leaves most fields
 * open; see docs/gateway-prompts.md for the choices.
 */
import { Schema } from "effect"

export const PromptId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, {
    message: () => "id must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit"
  })
)

export const VersionState = Schema.Literal("draft", "published", "archived")
export type VersionState = typeof VersionState.Type

/** How an LLM is called for this prompt; every field optional (the tenant's default provider otherwise). */
export class PromptLlm extends Schema.Class<PromptLlm>("PromptLlm")({
  providerId: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  temperature: Schema.optional(Schema.Number.pipe(Schema.between(0, 2))),
  topP: Schema.optional(Schema.Number.pipe(Schema.between(0, 1))),
  maxTokens: Schema.optional(Schema.Int.pipe(Schema.positive())),
  systemPrompt: Schema.optional(Schema.String)
}) {}

/** Quick Prompt display settings: how the prompt shows as a button in the Quick Prompt UI. */
export class QuickPrompt extends Schema.Class<QuickPrompt>("QuickPrompt")({
  enabled: Schema.Boolean,
  label: Schema.NonEmptyString,
  icon: Schema.optional(Schema.String),
  order: Schema.optional(Schema.Int)
}) {}

const Text = Schema.String.pipe(Schema.maxLength(1000))

/** The versioned content: everything but the prompt's identity and whether it is a base prompt. `null` clears a field. */
const contentFields = {
  name: Schema.optional(Schema.NullOr(Text)),
  description: Schema.optional(Schema.NullOr(Text)),
  /** Quick Prompt category. */
  category: Schema.optional(Schema.NullOr(Text)),
  quickPrompt: Schema.optional(Schema.NullOr(QuickPrompt)),
  llm: Schema.optional(Schema.NullOr(PromptLlm)),
  /** Estimated seconds of work one use of this version saves (the "time saved" statistics). */
  timeSavedSeconds: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.between(0, 86_400))))
}

/** Body of POST /admin/prompts: the prompt and its version v0 (created published). */
export class PromptCreate extends Schema.Class<PromptCreate>("PromptCreate")({
  id: PromptId,
  base: Schema.optional(Schema.Boolean),
  template: Schema.String.pipe(Schema.maxLength(200_000)),
  ...contentFields
}) {}

/** Body of POST /admin/prompts/{id}/versions: a new draft; what is omitted is copied from the active version. */
export class DraftCreate extends Schema.Class<DraftCreate>("DraftCreate")({
  template: Schema.optional(Schema.String.pipe(Schema.maxLength(200_000))),
  ...contentFields
}) {}

/**
 * Body of PUT /admin/prompts/{id}/versions/{version}: `draft: true` edits the draft (the fields given
 * replace those stored), `draft: false` publishes it (after applying the fields given).
 */
export class VersionUpdate extends Schema.Class<VersionUpdate>("VersionUpdate")({
  draft: Schema.Boolean,
  template: Schema.optional(Schema.String.pipe(Schema.maxLength(200_000))),
  ...contentFields
}) {}

export class PromptVersion extends Schema.Class<PromptVersion>("PromptVersion")({
  version: Schema.Int,
  /** True while editable: the one draft of the prompt. */
  draft: Schema.Boolean,
  state: VersionState,
  template: Schema.String,
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  quickPrompt: Schema.NullOr(QuickPrompt),
  llm: PromptLlm,
  timeSavedSeconds: Schema.NullOr(Schema.Int),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  publishedAt: Schema.NullOr(Schema.String)
}) {}

const summaryFields = {
  id: Schema.String,
  base: Schema.Boolean,
  /** The published version's fields. */
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  quickPrompt: Schema.NullOr(QuickPrompt),
  activeVersion: Schema.Int,
  draftVersion: Schema.NullOr(Schema.Int),
  createdAt: Schema.String,
  updatedAt: Schema.String
}

/** A prompt in the admin list: the active version's fields, without templates. */
export class PromptSummary extends Schema.Class<PromptSummary>("PromptSummary")(summaryFields) {}

/** The prompt aggregate: `{id, ..., versions}` ordered by version number. */
export class Prompt
  extends Schema.Class<Prompt>("Prompt")({ ...summaryFields, versions: Schema.Array(PromptVersion) })
{}

export class RenderedPrompt extends Schema.Class<RenderedPrompt>("RenderedPrompt")({
  promptId: Schema.String,
  version: Schema.Int,
  text: Schema.String
}) {}

export class ApplicationRef
  extends Schema.Class<ApplicationRef>("ApplicationRef")({ id: Schema.String, name: Schema.NullOr(Schema.String) })
{}

export class PromptUsage extends Schema.Class<PromptUsage>("PromptUsage")({
  promptId: Schema.String,
  deletable: Schema.Boolean,
  /** Why not deletable (empty when deletable). */
  reasons: Schema.Array(Schema.String),
  applications: Schema.Array(ApplicationRef)
}) {}

export class VersionStatistics extends Schema.Class<VersionStatistics>("VersionStatistics")({
  promptId: Schema.String,
  version: Schema.Int,
  uses: Schema.Int,
  lastUsedAt: Schema.NullOr(Schema.String)
}) {}

export class PromptStatistics extends Schema.Class<PromptStatistics>("PromptStatistics")({
  promptId: Schema.String,
  uses: Schema.Int,
  lastUsedAt: Schema.NullOr(Schema.String),
  versions: Schema.Array(VersionStatistics)
}) {}

/** A prompt as users see it (GET /api/v1/prompts): never the template or the LLM configuration. */
export class AvailablePrompt extends Schema.Class<AvailablePrompt>("AvailablePrompt")({
  id: Schema.String,
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  activeVersion: Schema.Int
}) {}

/** Quick Prompt display settings (GET /api/v1/prompts/display): never the template or the LLM configuration. */
export class PromptDisplay extends Schema.Class<PromptDisplay>("PromptDisplay")({
  id: Schema.String,
  label: Schema.String,
  icon: Schema.NullOr(Schema.String),
  order: Schema.NullOr(Schema.Int),
  category: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String)
}) {}

export class CompletionItem extends Schema.Class<CompletionItem>("CompletionItem")({
  name: Schema.String,
  description: Schema.String,
  /** How it is written in a template. */
  example: Schema.String
}) {}

/** GET /admin/templating/completion: what the template editor can offer. */
export class TemplatingCompletion extends Schema.Class<TemplatingCompletion>("TemplatingCompletion")({
  engine: Schema.String,
  helpers: Schema.Array(CompletionItem),
  variables: Schema.Array(CompletionItem)
}) {}
