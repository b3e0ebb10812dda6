/**
 * VIEWER_TOKEN_VALIDATOR=jwt: the token is a JWT signed with VIEWER_JWT_SECRET (HMAC) or by a key
 * of VIEWER_JWT_JWKS_URL, checked with jose as the gateway does, and VIEWER_JWT_ISSUER /
 * VIEWER_JWT_AUDIENCE when set. Its `sub` claim is the session's user.
 */
import { Effect, Option, Redacted } from "effect"
import { createRemoteJWKSet, errors, jwtVerify } from "jose"
import { TokenRejected, TokenValidationFailed } from "../../../schemas/viewer/ViewerErrors.ts"
import type { TokenValidator } from "./TokenValidator.ts"

export interface JwtSettings {
  readonly key: { readonly secret: Redacted.Redacted } | { readonly jwksUrl: URL }
  readonly issuer: Option.Option<string>
  readonly audience: Option.Option<string>
}

/**
 * A key set that cannot be fetched says nothing about the token: that is the viewer's failure
 * (500), not a refusal.
 */
const isKeySetFailure = (error: unknown) =>
  !(error instanceof errors.JOSEError) || error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid

export const jwtValidator = (settings: JwtSettings): TokenValidator => {
  const key = "secret" in settings.key
    ? new TextEncoder().encode(Redacted.value(settings.key.secret))
    : createRemoteJWKSet(settings.key.jwksUrl)
  const options = {
    ...Option.match(settings.issuer, { onSome: (issuer) => ({ issuer }), onNone: () => ({}) }),
    ...Option.match(settings.audience, { onSome: (audience) => ({ audience }), onNone: () => ({}) })
  }
  return (token) =>
    Effect.tryPromise({
      // jose's overloads take the key or the key set, not their union.
      try: () => jwtVerify(token, key as Parameters<typeof jwtVerify>[1], options),
      catch: (error) =>
        isKeySetFailure(error)
          ? new TokenValidationFailed({
            message: `The JWT key set could not be read from VIEWER_JWT_JWKS_URL: ${
              error instanceof Error ? error.message : String(error)
            }`
          })
          : new TokenRejected({ message: `The token was refused: ${(error as Error).message}` })
    }).pipe(
      Effect.map(({ payload }) => ({
        user: typeof payload.sub === "string" && payload.sub !== "" ? payload.sub : null
      }))
    )
}
