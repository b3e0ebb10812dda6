/**
 * validateToken's validator, chosen by VIEWER_TOKEN_VALIDATOR (docs/viewer.md "Token validation"):
 * `not-null` (the contract's default: any token given is valid), `jwt` or `http`. Its settings are
 * checked when the viewer starts: a validator that could never accept a token stops it there, with
 * a sentence saying what is missing, rather than refusing every user later.
 */
import { Config, ConfigError, Duration, Effect, Either, Option } from "effect"
import type { TokenRejected, TokenValidationFailed } from "../../../schemas/viewer/ViewerErrors.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import { make as makeNodeClient, makeAgents } from "../../common/NodeHttpClient.ts"
import { httpValidator } from "./HttpTokens.ts"
import { type JwtSettings, jwtValidator } from "./JwtTokens.ts"

/** A token checked: valid with the user it names (null when it names none), or refused. */
export type TokenValidator = (
  token: string
) => Effect.Effect<{ readonly user: string | null }, TokenRejected | TokenValidationFailed>

const invalid = (message: string) => Either.left(ConfigError.InvalidData([], message))

const httpUrl = (name: string) =>
  Config.string(name).pipe(
    Config.mapOrFail((text) => {
      try {
        const url = new URL(text)
        if (url.protocol === "http:" || url.protocol === "https:") return Either.right(url)
      } catch {
        // Not a URL at all: the same sentence.
      }
      return invalid(`${name} must be an http(s) URL, got '${text}'`)
    })
  )

const jwtSettings: Config.Config<JwtSettings> = Config.all({
  secret: Config.option(Config.redacted("VIEWER_JWT_SECRET")),
  jwksUrl: Config.option(httpUrl("VIEWER_JWT_JWKS_URL")),
  issuer: Config.option(Config.string("VIEWER_JWT_ISSUER")),
  audience: Config.option(Config.string("VIEWER_JWT_AUDIENCE"))
}).pipe(
  Config.mapOrFail(({ audience, issuer, jwksUrl, secret }): Either.Either<JwtSettings, ConfigError.ConfigError> =>
    Option.isSome(secret)
      ? Either.right({ key: { secret: secret.value }, issuer, audience })
      : Option.isSome(jwksUrl)
      ? Either.right({ key: { jwksUrl: jwksUrl.value }, issuer, audience })
      : invalid(
        "VIEWER_TOKEN_VALIDATOR=jwt needs VIEWER_JWT_SECRET (the shared HMAC secret) or VIEWER_JWT_JWKS_URL (the issuer's key set) to check tokens"
      )
  )
)

const validatorKind = Config.literal("not-null", "jwt", "http")("VIEWER_TOKEN_VALIDATOR").pipe(
  Config.withDefault("not-null" as const)
)

export class TokenValidation extends Effect.Service<TokenValidation>()("docstack/viewer/TokenValidation", {
  scoped: Effect.gen(function*() {
    const kind = yield* validatorKind
    let validate: TokenValidator
    if (kind === "jwt") {
      validate = jwtValidator(yield* jwtSettings)
    } else if (kind === "http") {
      const url = yield* httpUrl("VIEWER_TOKEN_VALIDATION_URL").pipe(
        Config.orElse(() =>
          Config.fail(
            "VIEWER_TOKEN_VALIDATOR=http needs VIEWER_TOKEN_VALIDATION_URL, the http(s) URL tokens are posted to"
          )
        )
      )
      const timeout = yield* durationConfig("VIEWER_TOKEN_VALIDATION_TIMEOUT", Duration.seconds(10))
      validate = httpValidator(makeNodeClient(yield* makeAgents), url, timeout)
    } else {
      validate = () => Effect.succeed({ user: null })
    }
    yield* Effect.logInfo(`Tokens are validated by the ${kind} validator`)
    return { kind, validate: Effect.fn("TokenValidation.validate")((token: string) => validate(token)) }
  })
}) {}
