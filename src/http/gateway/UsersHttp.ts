import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { CurrentPrincipal, UserDetails } from "../../schemas/gateway/Tenancy.ts"
import { Statistics } from "../../services/gateway/statistics/Statistics.ts"
import { Tenancy } from "../../services/gateway/tenancy/Tenancy.ts"
import { GatewayApi } from "./Api.ts"

export const UsersHttpLive = HttpApiBuilder.group(GatewayApi, "users", (handlers) =>
  Effect.gen(function*() {
    const tenancy = yield* Tenancy
    const statistics = yield* Statistics
    return handlers.handle("details", () =>
      CurrentPrincipal.pipe(
        Effect.flatMap((principal) =>
          statistics.user(principal.tenantId, principal.userId).pipe(
            Effect.map((figures) =>
              new UserDetails({
                tenantId: principal.tenantId,
                userId: principal.userId,
                roles: principal.roles,
                admin: principal.isAdmin,
                authentication: tenancy.mode,
                statistics: figures
              })
            )
          )
        )
      ))
  }))
