/**
 * Language models per request: the tenant's provider configuration (named, default or only one)
 * becomes an @effect/ai `LanguageModel`, built once per configuration version, model and
 * parameters and kept for the next requests. Errors of the provider become the gateway's codes;
 * rejected requests are not retried, throttling and server errors are (with backoff), and a
 * configuration with a fallback hands over to it once its retries are spent.
 */
import type { Prompt, Response, Tool, Toolkit } from "@effect/ai"
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Config, Context, Effect, ExecutionStrategy, Exit, Layer, Redacted, Schedule, Scope, Stream } from "effect"
import { InternalError, LlmBadRequest, LlmCapabilityError } from "../../../schemas/gateway/GatewayErrors.ts"
import type { ProviderConfigView } from "../../../schemas/gateway/LlmProviders.ts"
import * as NodeHttpClient from "../../common/NodeHttpClient.ts"
import { currentTenant } from "../tenancy/CurrentReach.ts"
import * as ChatCompletions from "./ChatCompletions.ts"
import { ProviderConfigs } from "./ProviderConfigs.ts"

export const LlmConfig = Config.all({
  /** Retries of a request the provider throttled (429) or failed (5xx, connection). */
  retries: Config.integer("LLM_RETRIES").pipe(Config.withDefault(2)),
  retryBaseDelay: Config.duration("LLM_RETRY_BASE_DELAY").pipe(Config.withDefault("250 millis"))
})

/** Google's OpenAI-compatible endpoint, for `gemini` configurations without a baseUrl. */
const GEMINI_URL = "https://generativelanguage.googleapis.com/v1beta/openai"

export interface ModelChoice {
  readonly providerId: string | undefined
  readonly model: string | undefined
  /** Generation parameters that take precedence over the configuration's (a prompt version's `llm`). */
  readonly parameters?: GenerationParameters | undefined
}

export interface GenerationParameters {
  readonly temperature?: number | undefined
  readonly topP?: number | undefined
  readonly maxTokens?: number | undefined
}

export interface ChosenModel {
  readonly config: ProviderConfigView
  readonly model: string
  readonly languageModel: LanguageModel.Service
}

/**
 * Tools offered to one answer (the tool loop's): `resolve` false leaves the calls the model asks
 * for unrun (the loop's last answer past its bound).
 */
export interface OfferedTools {
  readonly toolkit: Toolkit.WithHandler<Record<string, Tool.Any>>
  readonly resolve: boolean
  /** How many of an answer's calls run at once. */
  readonly concurrency: number
}

/** The options of one answer: the tools offered, or none. */
const answerOptions = (prompt: Prompt.RawInput, tools: OfferedTools | undefined) =>
  tools === undefined
    ? { prompt, toolChoice: "none" as const }
    : { prompt, toolkit: tools.toolkit, disableToolCallResolution: !tools.resolve, concurrency: tools.concurrency }

/** Language models kept built; the least recently built is dropped past this many. */
const BUILT_MODELS = 256

const numberParam = (config: ProviderConfigView, name: string) => {
  const value = config.extraParams[name]
  return typeof value === "number" ? value : undefined
}

/** Whether the provider's refusal is final (the request itself is wrong) or worth another try. */
const isRetryable = (error: AiError.AiError) =>
  error._tag === "HttpRequestError" ||
  (error._tag === "HttpResponseError" && (error.response.status === 429 || error.response.status >= 500))

/** What the provider said went wrong: the message of its error body when it sent one (OpenAI's and Anthropic's shapes), else the client's description. */
const providerMessage = (error: AiError.AiError) => {
  if (error._tag === "HttpResponseError" && error.body) {
    try {
      const body = JSON.parse(error.body)
      const message = typeof body?.error === "string" ? body.error : body?.error?.message ?? body?.message
      if (typeof message === "string" && message.length > 0) return message
    } catch {
      // not JSON: the description says what there is
    }
  }
  return "description" in error && error.description ? error.description : error.message
}

export const toGatewayError = (config: ProviderConfigView, error: AiError.AiError) => {
  if (
    error._tag === "HttpResponseError" && error.response.status >= 400 && error.response.status < 500 &&
    error.response.status !== 429
  ) {
    return new LlmBadRequest({
      message: `${config.id} (${config.type}) refused the request (${error.response.status}): ${providerMessage(error)}`
    })
  }
  const what = error._tag === "HttpRequestError"
    ? "could not be reached"
    : error._tag === "HttpResponseError"
    ? `answered ${error.response.status}`
    : "answered something unreadable"
  return new InternalError({
    message: `The LLM provider ${config.id} (${config.type}) ${what}: ${providerMessage(error)}`
  })
}

export class Llm extends Effect.Service<Llm>()("gateway/Llm", {
  scoped: Effect.gen(function*() {
    // One HTTP client for every provider call, with keep-alive: a request reuses a connection (and
    // its TLS session) to the provider instead of opening one. Made here, not taken from the
    // context, which may hold another client (a test server's).
    const http = Layer.succeed(HttpClient.HttpClient, NodeHttpClient.make(yield* NodeHttpClient.makeAgents))
    const configs = yield* ProviderConfigs
    const settings = yield* LlmConfig
    const retry = Schedule.exponential(settings.retryBaseDelay).pipe(
      Schedule.intersect(Schedule.recurs(settings.retries))
    )

    const layerFor = (
      config: ProviderConfigView,
      apiKey: string | null,
      model: string,
      parameters: GenerationParameters
    ): Layer.Layer<LanguageModel.LanguageModel> => {
      const temperature = parameters.temperature ?? numberParam(config, "temperature")
      const topP = parameters.topP ?? numberParam(config, "topP")
      const maxTokens = parameters.maxTokens ?? numberParam(config, "maxTokens")
      const key = apiKey ? { apiKey: Redacted.make(apiKey) } : {}
      const baseUrl = config.baseUrl ?? undefined
      // Extra headers of the configuration (a proxy's or gateway's own) go on every request.
      const transformClient = (client: HttpClient.HttpClient) =>
        client.pipe(HttpClient.mapRequest(HttpClientRequest.setHeaders(config.headers)))
      switch (config.type) {
        case "openai": {
          const organization = config.extraParams.organization
          return OpenAiLanguageModel.layer({
            model,
            config: {
              ...(temperature !== undefined ? { temperature } : {}),
              ...(topP !== undefined ? { top_p: topP } : {}),
              ...(maxTokens !== undefined ? { max_output_tokens: maxTokens } : {}),
              // The gateway keeps the conversation itself; nothing is left at OpenAI.
              store: false
            }
          }).pipe(
            Layer.provide(OpenAiClient.layer({
              ...key,
              ...(baseUrl ? { apiUrl: baseUrl } : {}),
              ...(typeof organization === "string" ? { organizationId: Redacted.make(organization) } : {}),
              transformClient
            })),
            Layer.provide(http)
          )
        }
        case "anthropic":
          return AnthropicLanguageModel.layer({
            model,
            config: {
              max_tokens: maxTokens ?? 4096,
              ...(temperature !== undefined ? { temperature } : {}),
              ...(topP !== undefined ? { top_p: topP } : {})
            }
          }).pipe(
            Layer.provide(AnthropicClient.layer({ ...key, ...(baseUrl ? { apiUrl: baseUrl } : {}), transformClient })),
            Layer.provide(http)
          )
        case "gemini":
        case "openai-compatible": {
          const apiVersion = config.extraParams.apiVersion
          return ChatCompletions.layer({
            baseUrl: baseUrl ?? GEMINI_URL,
            model,
            ...(apiKey ? { apiKey } : {}),
            headers: config.headers,
            ...(typeof apiVersion === "string" ? { query: { "api-version": apiVersion } } : {}),
            ...(temperature !== undefined ? { temperature } : {}),
            ...(topP !== undefined ? { topP } : {}),
            ...(maxTokens !== undefined ? { maxTokens } : {})
          }).pipe(Layer.provide(http))
        }
      }
    }

    // Built models by configuration version (a changed key or setting changes updatedAt), model
    // and parameters: building one costs more than the rest of a request's own work. Each has a
    // scope of its own, closed when it is dropped.
    const serviceScope = yield* Effect.scope
    const built = new Map<
      string,
      { readonly languageModel: LanguageModel.Service; readonly scope: Scope.CloseableScope }
    >()
    const languageModelFor = (
      tenantId: string,
      config: ProviderConfigView,
      apiKey: string | null,
      model: string,
      parameters: GenerationParameters
    ) =>
      Effect.gen(function*() {
        const key = JSON.stringify([
          tenantId,
          config.id,
          config.updatedAt,
          model,
          parameters.temperature,
          parameters.topP,
          parameters.maxTokens
        ])
        const existing = built.get(key)
        if (existing) return existing.languageModel
        const scope = yield* Scope.fork(serviceScope, ExecutionStrategy.sequential)
        const context = yield* Layer.buildWithScope(layerFor(config, apiKey, model, parameters), scope)
        const languageModel = Context.get(context, LanguageModel.LanguageModel)
        // Another fiber may have built the same one meanwhile: the first stays.
        const raced = built.get(key)
        if (raced) {
          yield* Scope.close(scope, Exit.void)
          return raced.languageModel
        }
        built.set(key, { languageModel, scope })
        if (built.size > BUILT_MODELS) {
          const [oldestKey, oldest] = built.entries().next().value!
          built.delete(oldestKey)
          yield* Scope.close(oldest.scope, Exit.void)
        }
        return languageModel
      })

    /** The current tenant's model for a request, built or kept built. */
    const choose = Effect.fn("Llm.choose")(function*(choice: ModelChoice, needsVision: boolean) {
      const { apiKey, config } = yield* configs.forUse(choice.providerId)
      if (needsVision && !config.capabilities.vision) {
        return yield* new LlmCapabilityError({
          message: `The model of ${config.id} does not take images (its configuration does not declare vision)`
        })
      }
      const model = choice.model ?? config.model
      const languageModel = yield* languageModelFor(
        yield* currentTenant,
        config,
        apiKey,
        model,
        choice.parameters ?? {}
      )
      return { config, model, languageModel } satisfies ChosenModel
    })

    return {
      choose,

      /**
       * The whole answer from the chosen model; throttling and server errors retried, then the
       * configuration's fallback tried.
       */
      generate: Effect.fn("Llm.generate")((
        chosen: ChosenModel,
        prompt: Prompt.RawInput,
        needsVision: boolean,
        tools?: OfferedTools
      ) => {
        const attempt = (model: ChosenModel) =>
          (model.languageModel.generateText(answerOptions(prompt, tools)) as Effect.Effect<
            LanguageModel.GenerateTextResponse<Record<string, Tool.Any>>,
            AiError.AiError
          >).pipe(
            Effect.retry({ schedule: retry, while: isRetryable })
          )
        return attempt(chosen).pipe(
          Effect.catchAll((error) => {
            const fallbackId = chosen.config.fallbackProviderId
            if (!isRetryable(error) || fallbackId === null) return Effect.fail(toGatewayError(chosen.config, error))
            return choose({ providerId: fallbackId, model: undefined }, needsVision).pipe(
              Effect.flatMap((fallback) =>
                attempt(fallback).pipe(Effect.mapError((e) => toGatewayError(fallback.config, e)))
              )
            )
          })
        )
      }),

      /**
       * The answer as it is produced. Throttling, server errors and a connection the provider was
       * just closing are retried only until the first part arrives: parts already sent cannot be
       * taken back. No span around it: a stream's span is provided to every step its channel runs
       * (a copy of the context and a scoped fiber-ref change each), about 3 ms of CPU per streamed
       * answer, and nothing exports spans.
       */
      stream: (chosen: ChosenModel, prompt: Prompt.RawInput, tools?: OfferedTools) =>
        Stream.suspend(() => {
          let started = false
          return (chosen.languageModel.streamText(answerOptions(prompt, tools)) as Stream.Stream<
            Response.StreamPart<Record<string, Tool.Any>>,
            AiError.AiError
          >).pipe(
            Stream.mapChunks((parts) => ((started = true), parts)),
            Stream.retry(retry.pipe(Schedule.whileInput((error: AiError.AiError) => !started && isRetryable(error))))
          )
        })
    }
  }),
  dependencies: [ProviderConfigs.Default]
}) {}
