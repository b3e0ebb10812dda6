/**
 * The document providers the broker may call, by name: PROVIDERS (JSON) or PROVIDERS_FILE (a JSON
 * file), else the reference filesystem provider of this stack on PROVIDER_PORT. Read and checked
 * once at start: a configuration that cannot be used stops the broker, saying why, rather than
 * failing on the first request (docs/providers.md).
 */
import { Config, ConfigError, Duration, Effect, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import {
  AUTHENTICATION_PARAMETERS,
  STORE_A_PARAMETERS,
  STORE_B_PARAMETERS
} from "../../../schemas/provider/ProviderContract.ts"
import { durationConfig } from "../../common/DurationConfig.ts"

/** One provider as the broker calls it. */
export interface Provider {
  readonly name: string
  /** Where its contract's paths are: `<url>/documents`, `<url>/annotations`. */
  readonly url: URL
  /** Longest wait for the provider to start answering (status and headers). */
  readonly connectTimeout: Duration.Duration
  /** Longest a whole call may take, its body read. */
  readonly timeout: Duration.Duration
  /** The request parameters forwarded to it; any other is dropped. */
  readonly parameters: ReadonlySet<string>
  /** Forwarded parameters that say who asks: never part of a document's identity. */
  readonly authenticationParameters: ReadonlySet<string>
  /** Sent with every call (a service account's credentials, say). */
  readonly headers: Readonly<Record<string, string>>
  /** How long a fetched document is used before the provider's content is fetched again. */
  readonly cacheTtl: Duration.Duration
}

const SECONDS = /^\d+(\.\d+)?$/

const DurationText = Schema.Union(
  Schema.Number.pipe(Schema.nonNegative()),
  Schema.String.pipe(Schema.filter((text) => SECONDS.test(text) || Option.isSome(Duration.decodeUnknown(text)), {
    message: () => "a duration such as \"30 seconds\" or a number of seconds"
  }))
)

const ProviderEntry = Schema.Struct({
  url: Schema.String.pipe(Schema.filter((text) => /^https?:\/\/[^/]/.test(text), {
    message: () => "url must be an http or https URL"
  })),
  connectTimeout: Schema.optional(DurationText),
  timeout: Schema.optional(DurationText),
  parameters: Schema.optional(Schema.Array(Schema.NonEmptyString)),
  authenticationParameters: Schema.optional(Schema.Array(Schema.NonEmptyString)),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  cacheTtl: Schema.optional(DurationText)
})

const ProviderName = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9._-]{1,64}$/, {
  message: () => "a provider name is 1-64 letters, digits, '.', '_' or '-'"
}))

const ProvidersJson = Schema.parseJson(Schema.Record({ key: ProviderName, value: ProviderEntry }))

/** The name of the reference provider `npm start` runs beside the broker. */
export const REFERENCE_PROVIDER = "filesystem"

const toDuration = (value: number | string | undefined, fallback: Duration.Duration) =>
  value === undefined
    ? fallback
    : typeof value === "number" || SECONDS.test(value)
    ? Duration.seconds(Number(value))
    : Duration.decode(value as Duration.DurationInput)

const invalid = (message: string) => Effect.fail(ConfigError.InvalidData([], message))

export class ProviderSettings extends Effect.Service<ProviderSettings>()("docstack/ProviderSettings", {
  effect: Effect.gen(function*() {
    const json = yield* Config.option(Config.string("PROVIDERS"))
    const file = yield* Config.option(Config.string("PROVIDERS_FILE"))
    const providerPort = yield* Config.integer("PROVIDER_PORT").pipe(Config.withDefault(8762))
    const cacheTtl = yield* durationConfig("PROVIDER_CACHE_TTL", Duration.minutes(10))
    const connectTimeout = yield* durationConfig("PROVIDER_CONNECT_TIMEOUT", Duration.seconds(10))
    const timeout = yield* durationConfig("PROVIDER_TIMEOUT", Duration.minutes(2))
    const configuredDefault = yield* Config.option(Config.string("REGISTRY_DEFAULT_PROVIDER"))

    if (Option.isSome(json) && Option.isSome(file)) {
      return yield* invalid("Set PROVIDERS or PROVIDERS_FILE, not both")
    }
    const source = Option.isSome(json)
      ? { name: "PROVIDERS", text: json.value }
      : Option.isSome(file)
      ? {
        name: `PROVIDERS_FILE ${file.value}`,
        text: yield* Effect.try({
          try: () => readFileSync(file.value, "utf8"),
          catch: (error) => ConfigError.InvalidData([], `PROVIDERS_FILE ${file.value} cannot be read: ${String(error)}`)
        })
      }
      : undefined
    // Without configuration: the reference filesystem provider of this stack, reached over loopback.
    const entries = source === undefined
      ? { [REFERENCE_PROVIDER]: { url: `http://127.0.0.1:${providerPort}` } }
      : yield* Schema.decode(ProvidersJson, { onExcessProperty: "error" })(source.text).pipe(
        Effect.mapError((error) =>
          ConfigError.InvalidData([], `${source.name} is not a provider configuration: ${error.message}`)
        )
      )

    const providers = new Map<string, Provider>()
    for (const [name, entry] of Object.entries(entries)) {
      const parameters = new Set(entry.parameters ?? [...STORE_A_PARAMETERS, ...STORE_B_PARAMETERS])
      const authenticationParameters = new Set(
        entry.authenticationParameters ?? AUTHENTICATION_PARAMETERS.filter((p) => parameters.has(p))
      )
      const stray = [...authenticationParameters].filter((p) => !parameters.has(p))
      if (stray.length > 0) {
        return yield* invalid(
          `Provider ${name}: authenticationParameters ${stray.join(", ")} are not among its parameters`
        )
      }
      providers.set(name, {
        name,
        url: new URL(entry.url.endsWith("/") ? entry.url : `${entry.url}/`),
        connectTimeout: toDuration(entry.connectTimeout, connectTimeout),
        timeout: toDuration(entry.timeout, timeout),
        parameters,
        authenticationParameters,
        headers: entry.headers ?? {},
        cacheTtl: toDuration(entry.cacheTtl, cacheTtl)
      })
    }

    // The default: as configured, else the reference provider when it is there, else the only one.
    const defaultName = Option.isSome(configuredDefault)
      ? configuredDefault.value
      : providers.has(REFERENCE_PROVIDER)
      ? REFERENCE_PROVIDER
      : providers.size === 1
      ? [...providers.keys()][0]!
      : undefined
    if (defaultName !== undefined && !providers.has(defaultName)) {
      return yield* invalid(
        `REGISTRY_DEFAULT_PROVIDER names ${defaultName}, which is not configured (providers: ${
          [...providers.keys()].join(", ") || "none"
        })`
      )
    }
    return { providers, defaultName } as const
  })
}) {}
