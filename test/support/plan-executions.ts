/**
 * A plan run to its end as a client does it: POST /run (202), then GET /{id} until it is no longer
 * RUNNING (10 s at most); the execution as last read.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { json } from "./gateway.ts"
import { call } from "./http.ts"
import { sleep } from "./processes.ts"

export const runToEnd = (base: string, headers: Record<string, string>, planId: string, inputPayload: unknown) =>
  Effect.gen(function*() {
    const executions = `${base}/api/v1/admin/plan-executions`
    const run = yield* call(`${executions}/run`, json(headers, { planId, inputPayload }))
    expect(run.status, run.text).toBe(202)
    let execution: any = run.json
    for (let i = 0; i < 200 && execution.state === "RUNNING"; i++) {
      yield* sleep(50)
      execution = (yield* call(`${executions}/${run.json.id}`, { headers })).json
    }
    return execution
  })

/** The node of that ID in an execution as read. */
export const nodeOf = (execution: any, id: string) => execution.nodes.find((n: { id: string }) => n.id === id)
