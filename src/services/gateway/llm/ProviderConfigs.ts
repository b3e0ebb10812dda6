/**
 * A tenant's LLM provider configurations, in SQL. Every statement is scoped to the tenant; the API
 * key is encrypted at rest (Secrets) and only its last four characters are ever shown.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Config, Duration, Effect, Either, Option, Schema } from "effect"
import { BadRequest, Conflict, LlmProviderNotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import {
  ExtraParamDescriptor,
  ProviderCapabilities,
  type ProviderConfigInput,
  type ProviderConfigUpdate,
  ProviderConfigView,
  ProviderType
} from "../../../schemas/gateway/LlmProviders.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import { isoUtc } from "../../common/sql/Fragments.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"
import { currentTenant } from "../tenancy/CurrentReach.ts"
import { Secrets } from "./Secrets.ts"

const temperature = new ExtraParamDescriptor({
  name: "temperature",
  type: "number",
  description: "Sampling temperature",
  required: false
})
const topP = new ExtraParamDescriptor({
  name: "topP",
  type: "number",
  description: "Nucleus sampling probability mass",
  required: false
})
const maxTokens = new ExtraParamDescriptor({
  name: "maxTokens",
  type: "integer",
  description: "Most tokens in one answer",
  required: false
})

/** The provider types and what each takes beyond model, key and base URL. */
export const PROVIDER_TYPES: Readonly<Record<ProviderType, ReadonlyArray<ExtraParamDescriptor>>> = {
  openai: [
    temperature,
    topP,
    maxTokens,
    new ExtraParamDescriptor({
      name: "organization",
      type: "string",
      description: "OpenAI organization ID",
      required: false
    })
  ],
  // Anthropic's Messages API requires max_tokens on every request.
  anthropic: [
    temperature,
    topP,
    new ExtraParamDescriptor({
      name: "maxTokens",
      type: "integer",
      description: "Most tokens in one answer",
      required: true,
      defaultValue: 4096
    })
  ],
  // Google's OpenAI-compatible endpoint (generativelanguage.googleapis.com/v1beta/openai) unless baseUrl says otherwise.
  gemini: [temperature, topP, maxTokens],
  // Ollama, vLLM, Mistral, LM Studio, Azure OpenAI: baseUrl is required; Azure takes its api-version as a query parameter.
  "openai-compatible": [
    temperature,
    topP,
    maxTokens,
    new ExtraParamDescriptor({
      name: "apiVersion",
      type: "string",
      description: "Azure OpenAI api-version query parameter",
      required: false
    })
  ]
}

const JsonRecord = Schema.Union(
  Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
)

class ProviderRow extends Schema.Class<ProviderRow>("ProviderRow")({
  id: Schema.String,
  type: ProviderType,
  name: Schema.NullOr(Schema.String),
  model: Schema.String,
  apiKeyEncrypted: Schema.NullOr(Schema.String),
  apiKeyLast4: Schema.NullOr(Schema.String),
  baseUrl: Schema.NullOr(Schema.String),
  headers: JsonRecord,
  extraParams: JsonRecord,
  capabilities: JsonRecord,
  fallbackProviderId: Schema.NullOr(Schema.String),
  isDefault: Schema.Boolean,
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}

const masked = (last4: string | null) => (last4 === null ? null : `****${last4}`)

const view = (row: ProviderRow) =>
  new ProviderConfigView({
    id: row.id,
    type: row.type,
    name: row.name,
    model: row.model,
    apiKey: masked(row.apiKeyLast4),
    baseUrl: row.baseUrl,
    headers: row.headers as Record<string, string>,
    extraParams: row.extraParams as Record<string, string | number | boolean>,
    capabilities: ProviderCapabilities.make(row.capabilities as { vision?: boolean; tools?: boolean }),
    fallbackProviderId: row.fallbackProviderId,
    isDefault: row.isDefault,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  })

export const ProviderConfigsConfig = Config.all({
  /** How long a process keeps a tenant's configurations for its requests (0: read them for every request). */
  cacheTtl: durationConfig("LLM_PROVIDER_CACHE_TTL", "5 seconds")
})

/** A configuration as a request uses it: its key decrypted. */
export interface UsableConfig {
  readonly config: ProviderConfigView
  readonly apiKey: string | null
}

interface StoredConfig {
  readonly config: ProviderConfigView
  readonly apiKey: Either.Either<string | null, Error>
}

export class ProviderConfigs extends Effect.Service<ProviderConfigs>()("gateway/ProviderConfigs", {
  effect: Effect.gen(function*() {
    const settings = yield* ProviderConfigsConfig
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* Secrets
    const iso = (column: string) => isoUtc(sql, column)
    const columns =
      sql`id, type, name, model, api_key_encrypted, api_key_last4, base_url, headers, extra_params, capabilities,
      fallback_provider_id, is_default, ${iso("created_at")} AS created_at, ${iso("updated_at")} AS updated_at`

    const findRow = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.String }),
      Result: ProviderRow,
      execute: ({ id, tenantId }) =>
        sql`SELECT ${columns} FROM llm_providers WHERE tenant_id = ${tenantId} AND id = ${id}`
    })
    const listRows = SqlSchema.findAll({
      Request: Schema.String,
      Result: ProviderRow,
      execute: (tenantId) => sql`SELECT ${columns} FROM llm_providers WHERE tenant_id = ${tenantId} ORDER BY id`
    })

    const existing = (tenantId: string, id: string) =>
      findRow({ tenantId, id }).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new LlmProviderNotFound({ message: `No LLM provider configuration '${id}'` })),
          onSome: Effect.succeed
        }))
      )

    const checkFallback = (tenantId: string, input: ProviderConfigInput) =>
      input.fallbackProviderId === undefined
        ? Effect.void
        : input.fallbackProviderId === input.id
        ? Effect.fail(new BadRequest({ message: "fallbackProviderId must name another configuration" }))
        : existing(tenantId, input.fallbackProviderId).pipe(
          Effect.mapError(() =>
            new BadRequest({
              message: `fallbackProviderId '${input.fallbackProviderId}' is not a configuration of this tenant`
            })
          ),
          Effect.asVoid
        )

    const checkBaseUrl = (input: ProviderConfigInput) =>
      input.type === "openai-compatible" && !input.baseUrl
        ? Effect.fail(
          new BadRequest({
            message: "An openai-compatible configuration needs baseUrl (e.g. http://localhost:11434/v1 for Ollama)"
          })
        )
        : Effect.void

    const fields = (input: ProviderConfigInput) => ({
      type: input.type,
      name: input.name ?? null,
      model: input.model,
      baseUrl: input.baseUrl ?? null,
      headers: sqlJson(input.headers ?? {}),
      extraParams: sqlJson(input.extraParams ?? {}),
      capabilities: sqlJson(input.capabilities ?? {}),
      fallbackProviderId: input.fallbackProviderId ?? null,
      isDefault: input.isDefault ?? false
    })
    const keyFields = (apiKey: string) =>
      secrets.encrypt(apiKey).pipe(
        Effect.map((apiKeyEncrypted) => ({ apiKeyEncrypted, apiKeyLast4: apiKey.length >= 8 ? apiKey.slice(-4) : "" }))
      )

    /** At most one default per tenant: making one the default unmakes the others. */
    const soleDefault = (tenantId: string, input: ProviderConfigInput) =>
      input.isDefault
        ? sql`UPDATE llm_providers SET is_default = false WHERE tenant_id = ${tenantId} AND id <> ${input.id}`.pipe(
          Effect.asVoid
        )
        : Effect.void

    /**
     * The configurations a request can use, keys decrypted, per tenant: read again after
     * LLM_PROVIDER_CACHE_TTL, and at once after a change made through this process.
     */
    const usableCache = new Map<string, { readonly at: number; readonly usable: ReadonlyArray<StoredConfig> }>()
    const forget = (tenantId: string) => Effect.sync(() => usableCache.delete(tenantId))
    const usableOf = (tenantId: string) =>
      Effect.gen(function*() {
        const cached = usableCache.get(tenantId)
        if (cached && Date.now() - cached.at < Duration.toMillis(settings.cacheTtl)) return cached.usable
        const rows = yield* listRows(tenantId).pipe(Effect.orDie)
        const usable: ReadonlyArray<StoredConfig> = yield* Effect.forEach(rows, (row) =>
          Effect.gen(function*() {
            // A key that cannot be decrypted fails the requests that use it, not those of the tenant's other configurations.
            const apiKey = row.apiKeyEncrypted === null
              ? Either.right(null)
              : yield* Effect.either(secrets.decrypt(row.apiKeyEncrypted))
            return { config: view(row), apiKey }
          }))
        usableCache.set(tenantId, { at: Date.now(), usable })
        return usable
      })

    // Every configuration read or written is one of the current principal's tenant.
    return {
      types: Object.keys(PROVIDER_TYPES) as ReadonlyArray<ProviderType>,

      extraParams: Effect.fn("ProviderConfigs.extraParams")((type: string) =>
        type in PROVIDER_TYPES
          ? Effect.succeed(PROVIDER_TYPES[type as ProviderType])
          : Effect.fail(
            new LlmProviderNotFound({
              message: `No provider type '${type}': the types are ${Object.keys(PROVIDER_TYPES).join(", ")}`
            })
          )
      ),

      list: Effect.fn("ProviderConfigs.list")(function*() {
        const rows = yield* listRows(yield* currentTenant).pipe(Effect.orDie)
        return rows.map(view)
      }),

      get: Effect.fn("ProviderConfigs.get")(function*(id: string) {
        return view(yield* existing(yield* currentTenant, id))
      }),

      create: Effect.fn("ProviderConfigs.create")(function*(input: ProviderConfigInput) {
        const tenantId = yield* currentTenant
        yield* checkBaseUrl(input)
        if (Option.isSome(yield* findRow({ tenantId, id: input.id }).pipe(Effect.orDie))) {
          return yield* new Conflict({ message: `An LLM provider configuration '${input.id}' already exists` })
        }
        yield* checkFallback(tenantId, input)
        const key = input.apiKey ? yield* keyFields(input.apiKey) : {}
        yield* sql.withTransaction(
          soleDefault(tenantId, input).pipe(
            Effect.zipRight(
              sql`INSERT INTO llm_providers ${sql.insert({ tenantId, id: input.id, ...fields(input), ...key })}`
            )
          )
        ).pipe(Effect.orDie, Effect.ensuring(forget(tenantId)))
        return view(yield* existing(tenantId, input.id))
      }),

      /** The path names the configuration; a body may leave its `id` out, not name another. */
      update: Effect.fn("ProviderConfigs.update")(function*(id: string, body: ProviderConfigUpdate) {
        const tenantId = yield* currentTenant
        if (body.id !== undefined && body.id !== id) {
          return yield* new BadRequest({ message: `The body's id '${body.id}' differs from the path's '${id}'` })
        }
        const input = { ...body, id }
        yield* existing(tenantId, id)
        yield* checkBaseUrl(input)
        yield* checkFallback(tenantId, input)
        const values = { ...fields(input), ...(input.apiKey !== undefined ? yield* keyFields(input.apiKey) : {}) }
        yield* sql.withTransaction(
          soleDefault(tenantId, input).pipe(
            Effect.zipRight(
              sql`UPDATE llm_providers SET ${
                sql.update(values)
              }, updated_at = now() WHERE tenant_id = ${tenantId} AND id = ${id}`
            )
          )
        ).pipe(Effect.orDie, Effect.ensuring(forget(tenantId)))
        return view(yield* existing(tenantId, id))
      }),

      /**
       * The configuration a request will use, with its key decrypted: the one named, else the
       * tenant's default, else its only one. None at all is LLM_PROVIDER_NOT_FOUND.
       */
      forUse: Effect.fn("ProviderConfigs.forUse")(function*(id: string | undefined) {
        const usable = yield* usableOf(yield* currentTenant)
        const chosen = id !== undefined
          ? usable.find((u) => u.config.id === id)
          : usable.find((u) => u.config.isDefault) ?? (usable.length === 1 ? usable[0] : undefined)
        if (chosen) return { config: chosen.config, apiKey: yield* Effect.orDie(chosen.apiKey) } satisfies UsableConfig
        return yield* new LlmProviderNotFound({
          message: id !== undefined
            ? `No LLM provider configuration '${id}'`
            : usable.length === 0
            ? "No LLM provider is configured for this tenant: create one under /api/v1/admin/llm/provider-conf"
            : "Several LLM providers are configured and none is the default: name one with the provider parameter, or mark one isDefault"
        })
      }),

      remove: Effect.fn("ProviderConfigs.remove")(function*(id: string) {
        const tenantId = yield* currentTenant
        const deleted = yield* sql<
          { id: string }
        >`DELETE FROM llm_providers WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING id`.pipe(
          Effect.orDie,
          Effect.ensuring(forget(tenantId))
        )
        if (deleted.length === 0) {
          return yield* new LlmProviderNotFound({ message: `No LLM provider configuration '${id}'` })
        }
      })
    }
  }),
  dependencies: [Secrets.Default]
}) {}
