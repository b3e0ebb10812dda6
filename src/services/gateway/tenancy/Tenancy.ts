/**
 * Resolves the tenant and user of each gateway request (the spec leaves how open; see
 * docs/gateway-tenancy.md). By default from trusted headers set by an authenticating proxy; with
 * GATEWAY_AUTH=jwt from a bearer token verified against JWT_SECRET or JWT_JWKS_URL.
 */
import { Config, Effect, Option, Redacted } from "effect"
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose"
import { MissingTenant, MissingUser, Unauthorized } from "../../../schemas/gateway/GatewayErrors.ts"
import { Principal } from "../../../schemas/gateway/Tenancy.ts"

export const TenancyConfig = Config.all({
  mode: Config.literal("headers", "jwt")("GATEWAY_AUTH").pipe(Config.withDefault("headers" as const)),
  tenantHeader: Config.string("TENANT_HEADER").pipe(Config.withDefault("x-tenant-id")),
  userHeader: Config.string("USER_HEADER").pipe(Config.withDefault("x-user-id")),
  rolesHeader: Config.string("ROLES_HEADER").pipe(Config.withDefault("x-user-roles")),
  jwtSecret: Config.option(Config.redacted("JWT_SECRET")),
  jwksUrl: Config.option(Config.string("JWT_JWKS_URL")),
  jwtIssuer: Config.option(Config.string("JWT_ISSUER")),
  jwtAudience: Config.option(Config.string("JWT_AUDIENCE")),
  tenantClaim: Config.string("JWT_TENANT_CLAIM").pipe(Config.withDefault("tenant")),
  userClaim: Config.string("JWT_USER_CLAIM").pipe(Config.withDefault("sub")),
  rolesClaim: Config.string("JWT_ROLES_CLAIM").pipe(Config.withDefault("roles")),
  /** Role-based security: when on, admin endpoints need ADMIN_ROLE. */
  roleSecurity: Config.boolean("GATEWAY_ROLE_SECURITY").pipe(Config.withDefault(false)),
  adminRole: Config.string("ADMIN_ROLE").pipe(Config.withDefault("admin"))
})

type Headers = Readonly<Record<string, string | undefined>>

const rolesFrom = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value)
    ? value.filter((r): r is string => typeof r === "string")
    : typeof value === "string"
    ? value.split(/[,\s]+/).filter(Boolean)
    : []

const claim = (payload: JWTPayload, name: string): unknown =>
  name.split(".").reduce<unknown>(
    (value, key) => (value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined),
    payload
  )

export class Tenancy extends Effect.Service<Tenancy>()("gateway/Tenancy", {
  effect: Effect.gen(function*() {
    const config = yield* TenancyConfig
    if (config.mode === "jwt" && Option.isNone(config.jwtSecret) && Option.isNone(config.jwksUrl)) {
      return yield* Effect.dieMessage("GATEWAY_AUTH=jwt needs JWT_SECRET or JWT_JWKS_URL")
    }
    const key = Option.match(config.jwksUrl, {
      onSome: (url) => createRemoteJWKSet(new URL(url)),
      onNone: () =>
        new TextEncoder().encode(Option.match(config.jwtSecret, { onSome: Redacted.value, onNone: () => "" }))
    })

    const principal = (tenantId: string | undefined, userId: string | undefined, roles: ReadonlyArray<string>) =>
      !tenantId
        ? Effect.fail(
          new MissingTenant({
            message: config.mode === "jwt"
              ? `The token has no '${config.tenantClaim}' claim`
              : `No tenant: send the ${config.tenantHeader} header`
          })
        )
        : !userId
        ? Effect.fail(
          new MissingUser({
            message: config.mode === "jwt"
              ? `The token has no '${config.userClaim}' claim`
              : `No user: send the ${config.userHeader} header`
          })
        )
        : Effect.succeed(
          new Principal({ tenantId, userId, roles, isAdmin: !config.roleSecurity || roles.includes(config.adminRole) })
        )

    const fromToken = (headers: Headers) =>
      Effect.gen(function*() {
        const token = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "")?.[1]
        if (!token) return yield* new Unauthorized({ message: "No bearer token: send Authorization: Bearer <JWT>" })
        const { payload } = yield* Effect.tryPromise({
          try: () =>
            jwtVerify(token, key as Parameters<typeof jwtVerify>[1], {
              ...Option.match(config.jwtIssuer, { onSome: (issuer) => ({ issuer }), onNone: () => ({}) }),
              ...Option.match(config.jwtAudience, { onSome: (audience) => ({ audience }), onNone: () => ({}) })
            }),
          catch: (error) =>
            new Unauthorized({
              message: `The token was refused: ${error instanceof Error ? error.message : String(error)}`
            })
        })
        const asText = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : undefined)
        return yield* principal(
          asText(claim(payload, config.tenantClaim)),
          asText(claim(payload, config.userClaim)),
          rolesFrom(claim(payload, config.rolesClaim))
        )
      })

    return {
      mode: config.mode,
      adminRole: config.adminRole,
      roleSecurity: config.roleSecurity,
      resolve: Effect.fn("Tenancy.resolve")((headers: Headers) =>
        config.mode === "jwt"
          ? fromToken(headers)
          : principal(
            headers[config.tenantHeader]?.trim(),
            headers[config.userHeader]?.trim(),
            rolesFrom(headers[config.rolesHeader])
          )
      )
    }
  })
}) {}
