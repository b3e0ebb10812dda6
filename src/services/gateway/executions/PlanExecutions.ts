/**
 * Plan executions as the admin endpoints see them (spec: "Plan executions", "Admin: plan
 * executions"): run a plan of the tenant, list the main executions, read one with every node's
 * state, pause, resume, stop, delete. The work itself is the runner's (ExecutionRunner), on
 * whichever gateway takes the execution up; the states and their rules are
 * docs/gateway-plan-executions.md.
 */
import { Effect } from "effect"
import type { RunPlan } from "../../../schemas/gateway/PlanExecutions.ts"
import { CurrentPrincipal } from "../../../schemas/gateway/Tenancy.ts"
import { Plans } from "../plans/Plans.ts"
import { currentTenant } from "../tenancy/CurrentReach.ts"
import { ExecutionStore } from "./ExecutionStore.ts"

export class PlanExecutions extends Effect.Service<PlanExecutions>()("gateway/PlanExecutions", {
  effect: Effect.gen(function*() {
    const store = yield* ExecutionStore
    const plans = yield* Plans

    /** A client's change of state (409 from the wrong state), answered with the execution as it now is. */
    const changing = (action: "pause" | "resume" | "stop") =>
      Effect.fn(`PlanExecutions.${action}`)(function*(id: string) {
        const tenantId = yield* currentTenant
        yield* store.move(tenantId, id, action)
        return yield* store.view(tenantId, id)
      })

    return {
      /** 202: the execution RUNNING, every node PENDING; 404 when the plan does not exist. */
      run: Effect.fn("PlanExecutions.run")(function*(body: RunPlan) {
        const principal = yield* CurrentPrincipal
        const plan = yield* plans.get(body.planId)
        const id = yield* store.create({
          tenantId: principal.tenantId,
          userId: principal.userId,
          planId: plan.id,
          planTitle: plan.title,
          nodes: plan.nodes,
          outputNode: plan.output,
          inputPayload: body.inputPayload
        })
        return yield* store.view(principal.tenantId, id)
      }),

      list: Effect.fn("PlanExecutions.list")(function*() {
        return yield* store.list(yield* currentTenant)
      }),

      get: Effect.fn("PlanExecutions.get")(function*(id: string) {
        return yield* store.view(yield* currentTenant, id)
      }),

      /** 409 unless RUNNING. */
      pause: changing("pause"),
      /** 409 unless PAUSED. */
      resume: changing("resume"),
      /** 409 once ended. */
      stop: changing("stop"),

      remove: Effect.fn("PlanExecutions.remove")(function*(id: string) {
        yield* store.remove(yield* currentTenant, id)
      })
    }
  }),
  dependencies: [ExecutionStore.Default, Plans.Default]
}) {}
