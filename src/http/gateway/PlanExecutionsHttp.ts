import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { PlanExecutions } from "../../services/gateway/executions/PlanExecutions.ts"
import { GatewayApi } from "./Api.ts"

export const AdminPlanExecutionsHttpLive = HttpApiBuilder.group(
  GatewayApi,
  "adminPlanExecutions",
  (handlers) =>
    Effect.gen(function*() {
      const executions = yield* PlanExecutions
      return handlers
        .handle("list", () => executions.list())
        .handle("get", ({ path }) => executions.get(path.id))
        .handle("run", ({ payload }) => executions.run(payload))
        .handle("pause", ({ path }) => executions.pause(path.id))
        .handle("resume", ({ path }) => executions.resume(path.id))
        .handle("stop", ({ path }) => executions.stop(path.id))
        .handle("remove", ({ path }) => executions.remove(path.id))
    })
)
