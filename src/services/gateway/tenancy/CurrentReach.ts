/**
 * What the principal of the request being handled reaches: its tenant, its own records (the
 * principal itself is a Reach) or, in the admin views, the whole tenant's or one user's of it.
 * Services read these, so that handlers never pass the caller along.
 */
import { Effect } from "effect"
import { CurrentPrincipal, type Reach } from "../../../schemas/gateway/Tenancy.ts"

/** The tenant of the request being handled. */
export const currentTenant: Effect.Effect<string, never, CurrentPrincipal> = Effect.map(
  CurrentPrincipal,
  (principal) => principal.tenantId
)

/** An admin's reach: the whole tenant, or one user of it when `userId` is given. */
export const tenantReach = (userId?: string): Effect.Effect<Reach, never, CurrentPrincipal> =>
  Effect.map(CurrentPrincipal, (principal) => ({ tenantId: principal.tenantId, userId }))
