import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { CurrentPrincipal, UserDetails } from "../../schemas/Tenancy.ts"
import { Tenancy } from "../../services/gateway/Tenancy.ts"
import { GatewayApi } from "./Api.ts"

export const UsersHttpLive = HttpApiBuilder.group(GatewayApi, "users", (handlers) =>
  Effect.gen(function*() {
    const tenancy = yield* Tenancy
    return handlers.handle("details", () =>
      CurrentPrincipal.pipe(
        Effect.map((principal) =>
          new UserDetails({ tenantId: principal.tenantId, userId: principal.userId, roles: principal.roles, admin: principal.isAdmin, authentication: tenancy.mode })
        )
      ))
  }))
