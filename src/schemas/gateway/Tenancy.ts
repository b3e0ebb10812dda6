/**
 * Who is asking: the tenant and user resolved for each gateway request, and the user's details.
 */
import { Context, Schema } from "effect"
import { UserStatistics } from "./Statistics.ts"

export class Principal extends Schema.Class<Principal>("Principal")({
  tenantId: Schema.String,
  userId: Schema.String,
  roles: Schema.Array(Schema.String),
  isAdmin: Schema.Boolean
}) {}

/**
 * Whose records a statement reaches: one user's own (`userId` set; a Principal is one) or a whole
 * tenant's (admin views, `userId` absent).
 */
export interface Reach {
  readonly tenantId: string
  readonly userId?: string | undefined
}

/** The principal of the request being handled (provided by the authentication middleware). */
export class CurrentPrincipal extends Context.Tag("gateway/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

export class UserDetails extends Schema.Class<UserDetails>("UserDetails")({
  tenantId: Schema.String,
  userId: Schema.String,
  roles: Schema.Array(Schema.String),
  admin: Schema.Boolean,
  /** How the user was identified: trusted headers or a verified token. */
  authentication: Schema.Literal("headers", "jwt"),
  /** The user's own usage figures. */
  statistics: UserStatistics
}) {}
