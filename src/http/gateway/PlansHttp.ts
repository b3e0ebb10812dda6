import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Plans } from "../../services/gateway/plans/Plans.ts"
import { GatewayApi } from "./Api.ts"

export const AdminPlansHttpLive = HttpApiBuilder.group(GatewayApi, "adminPlans", (handlers) =>
  Effect.gen(function*() {
    const plans = yield* Plans
    return handlers
      .handle("list", () => plans.list())
      .handle("get", ({ path }) => plans.get(path.id))
      .handle("create", ({ payload }) => plans.create(payload))
      .handle("update", ({ path, payload }) => plans.update(path.id, payload))
      .handle("remove", ({ path }) => plans.remove(path.id))
  }))
