/**
 * LLM provider configurations (admin): the types the gateway speaks, their extra parameters, and a
 * tenant's configurations. The spec leaves the record's fields open; see docs/gateway-providers.md.
 */
import { Schema } from "effect"

export const ProviderType = Schema.Literal("openai", "anthropic", "gemini", "openai-compatible")
export type ProviderType = typeof ProviderType.Type

export class ExtraParamDescriptor extends Schema.Class<ExtraParamDescriptor>("ExtraParamDescriptor")({
  name: Schema.String,
  type: Schema.Literal("string", "number", "integer", "boolean"),
  description: Schema.String,
  required: Schema.Boolean,
  defaultValue: Schema.optional(Schema.Union(Schema.String, Schema.Number, Schema.Boolean))
}) {}

const ConfigId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, {
    message: () => "id must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit"
  })
)

/** What a model can take; requests that need more are refused with LLM_CAPABILITY_ERROR. */
export class ProviderCapabilities extends Schema.Class<ProviderCapabilities>("ProviderCapabilities")({
  vision: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  tools: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {}

const ExtraParams = Schema.Record({
  key: Schema.String,
  value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean)
})

/** Body of POST /provider-conf. */
export class ProviderConfigInput extends Schema.Class<ProviderConfigInput>("ProviderConfigInput")({
  id: ConfigId,
  type: ProviderType,
  name: Schema.optional(Schema.String),
  model: Schema.NonEmptyString,
  /** Sent once, stored encrypted, never read back (reads give it masked). Omitted on update: kept. */
  apiKey: Schema.optional(Schema.String),
  baseUrl: Schema.optional(
    Schema.String.pipe(Schema.pattern(/^https?:\/\//, { message: () => "baseUrl must be an http(s) URL" }))
  ),
  /** Extra HTTP headers for the provider (e.g. Azure OpenAI's api-key). */
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  extraParams: Schema.optional(ExtraParams),
  capabilities: Schema.optional(ProviderCapabilities),
  /** Another configuration of the tenant to use when this one keeps failing. */
  fallbackProviderId: Schema.optional(ConfigId),
  /** The tenant's provider when a request names none. */
  isDefault: Schema.optional(Schema.Boolean)
}) {}

/** Body of PUT /provider-conf/{id}: the same, its `id` optional (the path names it; a different one is BAD_REQUEST). */
export class ProviderConfigUpdate extends Schema.Class<ProviderConfigUpdate>("ProviderConfigUpdate")({
  ...ProviderConfigInput.fields,
  id: Schema.optional(ConfigId)
}) {}

/** A configuration as every read shows it: the key masked. */
export class ProviderConfigView extends Schema.Class<ProviderConfigView>("ProviderConfigView")({
  id: Schema.String,
  type: ProviderType,
  name: Schema.NullOr(Schema.String),
  model: Schema.String,
  apiKey: Schema.NullOr(Schema.String),
  baseUrl: Schema.NullOr(Schema.String),
  headers: Schema.Record({ key: Schema.String, value: Schema.String }),
  extraParams: ExtraParams,
  capabilities: ProviderCapabilities,
  fallbackProviderId: Schema.NullOr(Schema.String),
  isDefault: Schema.Boolean,
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}
