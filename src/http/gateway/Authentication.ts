/**
 * The gateway's two doors: every user endpoint resolves the tenant and user (MISSING_TENANT,
 * MISSING_USER, UNAUTHORIZED); admin endpoints also need the admin role when role-based security
 * is on (FORBIDDEN, 403).
 */
import { HttpApiMiddleware, HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import { Forbidden, GatewayErrors } from "../../schemas/GatewayErrors.ts"
import { CurrentPrincipal } from "../../schemas/Tenancy.ts"
import { Tenancy } from "../../services/gateway/Tenancy.ts"

const PrincipalFailure = Schema.Union(GatewayErrors.MissingTenant, GatewayErrors.MissingUser, GatewayErrors.Unauthorized)

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
  Tenancy.pipe(Effect.map((tenancy) => HttpServerRequest.HttpServerRequest.pipe(Effect.flatMap((request) => tenancy.resolve(request.headers)))))
)

export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Tenancy.pipe(
    Effect.map((tenancy) =>
      HttpServerRequest.HttpServerRequest.pipe(
        Effect.flatMap((request) => tenancy.resolve(request.headers)),
        Effect.filterOrFail(
          (principal) => principal.isAdmin,
          () => new Forbidden({ message: `This endpoint needs the '${tenancy.adminRole}' role (GATEWAY_ROLE_SECURITY is on)` })
        )
      )
    )
  )
)
