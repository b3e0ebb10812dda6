import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Users } from "../../services/gateway/statistics/Users.ts"
import { GatewayApi } from "./Api.ts"

export const UsersHttpLive = HttpApiBuilder.group(GatewayApi, "users", (handlers) =>
  Effect.gen(function*() {
    const users = yield* Users
    return handlers.handle("details", () => users.details())
  }))
