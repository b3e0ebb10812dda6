/**
 * The caller as GET /users/details describes them: who they are, how they were identified, and
 * their own usage figures.
 */
import { Effect } from "effect"
import { CurrentPrincipal, UserDetails } from "../../../schemas/gateway/Tenancy.ts"
import { Tenancy } from "../tenancy/Tenancy.ts"
import { Statistics } from "./Statistics.ts"

export class Users extends Effect.Service<Users>()("gateway/Users", {
  effect: Effect.gen(function*() {
    const tenancy = yield* Tenancy
    const statistics = yield* Statistics
    return {
      details: Effect.fn("Users.details")(function*() {
        const principal = yield* CurrentPrincipal
        return new UserDetails({
          tenantId: principal.tenantId,
          userId: principal.userId,
          roles: principal.roles,
          admin: principal.isAdmin,
          authentication: tenancy.mode,
          statistics: yield* statistics.user()
        })
      })
    }
  }),
  dependencies: [Tenancy.Default, Statistics.Default]
}) {}
