/**
 * The gateway's two doors: every user endpoint resolves the tenant and user (MISSING_TENANT,
 * MISSING_USER, UNAUTHORIZED); admin endpoints also need the admin role when role-based security
 * is on (FORBIDDEN, 403).
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { type Config, Effect, Layer, Schema } from "effect"
import { Forbidden, GatewayErrors } from "../../schemas/gateway/GatewayErrors.ts"
import { CurrentPrincipal } from "../../schemas/gateway/Tenancy.ts"
import { Tenancy, type TenancyConfig } from "../../services/gateway/tenancy/Tenancy.ts"

const PrincipalFailure = Schema.Union(
  GatewayErrors.MissingTenant,
  GatewayErrors.MissingUser,
  GatewayErrors.Unauthorized
)

export class UserAuthentication extends HttpApiMiddleware.Tag<UserAuthentication>()("gateway/UserAuthentication", {
  failure: PrincipalFailure,
  provides: CurrentPrincipal
}) {}

export class AdminAuthentication extends HttpApiMiddleware.Tag<AdminAuthentication>()("gateway/AdminAuthentication", {
  failure: Schema.Union(PrincipalFailure, GatewayErrors.Forbidden),
  provides: CurrentPrincipal
}) {}

export const UserAuthenticationLive = Layer.effect(
  UserAuthentication,
  Tenancy.pipe(
    Effect.map((tenancy) =>
      HttpServerRequest.HttpServerRequest.pipe(Effect.flatMap((request) => tenancy.resolve(request.headers)))
    )
  )
).pipe(Layer.provide(Tenancy.Default))

export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Tenancy.pipe(
    Effect.map((tenancy) =>
      HttpServerRequest.HttpServerRequest.pipe(
        Effect.flatMap((request) => tenancy.resolve(request.headers)),
        Effect.filterOrFail(
          (principal) => principal.isAdmin,
          () =>
            new Forbidden({
              message: `This endpoint needs the '${tenancy.adminRole}' role (GATEWAY_ROLE_SECURITY is on)`
            })
        )
      )
    )
  )
).pipe(Layer.provide(Tenancy.Default))

type IdentityConfig = Pick<
  typeof TenancyConfig extends Config.Config<infer A> ? A : never,
  "mode" | "tenantHeader" | "userHeader" | "rolesHeader"
>

/**
 * The OpenAPI description of how callers identify themselves (trusted headers by their configured
 * names, or a bearer token), on every /api and /temp-files operation: the explorer then asks for them and sends them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the shape OpenApi.Transform takes and gives
export const documentIdentity = (config: IdentityConfig) => (spec: Record<string, any>): Record<string, any> => {
  const schemes = config.mode === "jwt"
    ? { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } }
    : {
      tenant: {
        type: "apiKey",
        in: "header",
        name: config.tenantHeader,
        description: "Tenant (trusted header set by the authenticating proxy)"
      },
      user: { type: "apiKey", in: "header", name: config.userHeader, description: "User (trusted header)" },
      roles: {
        type: "apiKey",
        in: "header",
        name: config.rolesHeader,
        description: "Comma-separated roles (trusted header; optional)"
      }
    }
  const requirement = config.mode === "jwt"
    ? [{ bearer: [] }]
    : [{ tenant: [], user: [], roles: [] }, { tenant: [], user: [] }]
  const paths = Object.fromEntries(
    Object.entries(spec.paths ?? {}).map(([path, operations]) => [
      path,
      path.startsWith("/api/") || path.startsWith("/temp-files/")
        ? Object.fromEntries(
          Object.entries(operations as Record<string, object>).map((
            [method, operation]
          ) => [method, { ...operation, security: requirement }])
        )
        : operations
    ])
  )
  return {
    ...spec,
    paths,
    components: { ...spec.components, securitySchemes: { ...spec.components?.securitySchemes, ...schemes } }
  }
}
