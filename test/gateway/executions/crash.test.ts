/**
 * Gateway processes killed (SIGKILL) in the middle of a plan execution, the fake LLM provider
 * counting what each node asked: the execution is continued by a restarted gateway, and by another
 * gateway sharing the PostgreSQL database, and every node that had finished asked its LLM exactly
 * once, the nodes cut off twice. The plan cuts through every place work is kept: a plain node, a
 * fan-out (items kept one by one) and a nested plan (found again, not started over). A gateway
 * stopped gracefully gives its execution back at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { isolatedDatabaseUrl, newDataDir } from "../../../src/layers/Test.ts"
import { backends } from "../../support/backends.ts"
import { eventually, type FakeLlm, FakeLlmServer } from "../../support/fake-llm.ts"
import { as, json } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"
import { awaitExit, freePort, sleep, startService } from "../../support/processes.ts"

const admin = as("acme", "alice")
const databaseUrl = process.env.DATABASE_URL

/** Requests the fake received whose body holds `marker`: how many times a node asked its LLM. */
const asked = (fake: FakeLlm, marker: string) =>
  fake.requests.filter((r) => JSON.stringify(r.body).includes(marker)).length

const SLOW = { text: "slow answer", wholeDelayMs: 120_000 }
const QUICK = { text: "quick answer" }

/** The settings every gateway of a test shares: its database, a short lease, quick polls. */
const gatewayEnv = (backend: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const database = backend.DATABASE_URL ? { DATABASE_URL: (yield* isolatedDatabaseUrl(backend.DATABASE_URL)).url } : {
      DATABASE_URL: ""
    }
    return {
      ...database,
      GATEWAY_MASTER_KEY: "crash-test-master-key",
      PLAN_EXECUTION_LEASE: "2 seconds",
      PLAN_EXECUTION_POLL_INTERVAL: "200 millis"
    }
  })

/**
 * A provider answering at the fake, and a plan: `first`, then a fan-out over three items (one at a
 * time), then a nested plan of two nodes, then `last`. Answers the execution's ID.
 */
const startExecution = (base: string, fake: FakeLlm) =>
  Effect.gen(function*() {
    const ok = (reply: { status: number; text: string; json: any }, status: number) => {
      expect(reply.status, reply.text).toBe(status)
      return reply.json
    }
    ok(
      yield* call(
        `${base}/api/v1/admin/llm/provider-conf`,
        json(admin, { id: "local", type: "openai-compatible", model: "m", baseUrl: `${fake.url}/v1`, isDefault: true })
      ),
      201
    )
    const nested = ok(
      yield* call(
        `${base}/api/v1/admin/plans`,
        json(admin, {
          title: "Nested",
          nodes: [
            { id: "inner1", type: "LLM", template: "INNER-ONE {{input.from}}" },
            { id: "inner2", type: "LLM", template: "INNER-TWO {{nodes.inner1.output.text}}" }
          ],
          output: "inner2"
        })
      ),
      201
    )
    const plan = ok(
      yield* call(
        `${base}/api/v1/admin/plans`,
        json(admin, {
          title: "Cut through",
          nodes: [
            { id: "first", type: "LLM", template: "STEP-FIRST" },
            {
              id: "fan",
              type: "PARALLEL",
              items: "input.items",
              maxConcurrency: 1,
              dependsOn: ["first"],
              run: { type: "LLM", template: "ITEM-{{item}}" }
            },
            {
              id: "nested",
              type: "PLAN",
              planId: nested.id,
              input: { from: "{{nodes.first.output.text}}" },
              dependsOn: ["fan"]
            },
            { id: "last", type: "LLM", template: "STEP-LAST {{nodes.nested.output.output.text}}" }
          ]
        })
      ),
      201
    )
    const started = ok(
      yield* call(
        `${base}/api/v1/admin/plan-executions/run`,
        json(admin, { planId: plan.id, inputPayload: { items: ["a", "b", "c"] } })
      ),
      202
    )
    return started.id as string
  })

/** Reads the execution until it has ended (60 s at most). */
const ended = (base: string, id: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 600; i++) {
      const execution = (yield* call(`${base}/api/v1/admin/plan-executions/${id}`, { headers: admin })).json
      if (execution.state !== "RUNNING") return execution
      yield* sleep(100)
    }
    throw new Error(`the execution ${id} did not end within 60 s`)
  })

const nodeOf = (execution: any, id: string) => execution.nodes.find((n: { id: string }) => n.id === id)

/** What every test checks at the end: all done, each node's LLM asked once but those cut off. */
const expectContinued = (
  base: string,
  id: string,
  fake: FakeLlm,
  cutOff: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    const execution = yield* ended(base, id)
    expect(execution.state, JSON.stringify(execution)).toBe("COMPLETED")
    expect(execution.nodes.map((n: { state: string }) => n.state)).toEqual(Array(4).fill("COMPLETED"))
    expect(nodeOf(execution, "fan").output).toEqual({ items: Array(3).fill({ text: "quick answer" }) })
    const markers = ["STEP-FIRST", "ITEM-a", "ITEM-b", "ITEM-c", "INNER-ONE", "INNER-TWO", "STEP-LAST"]
    expect(Object.fromEntries(markers.map((m) => [m, asked(fake, m)]))).toEqual(
      Object.fromEntries(markers.map((m) => [m, cutOff.includes(m) ? 2 : 1]))
    )
    // One nested execution, the one started before the crash, gone on with.
    expect(execution.children).toHaveLength(1)
    const child = (yield* call(`${base}/api/v1/admin/plan-executions/${execution.children[0].id}`, { headers: admin }))
      .json
    expect(child.state).toBe("COMPLETED")
    expect(nodeOf(execution, "nested").output.executionId).toBe(child.id)
    return { execution, child }
  })

/** A gateway on the backend, its execution waiting for the fan-out's second item; `env` and `port` restart it. */
const cutOffInFanOut = (backend: Readonly<Record<string, string>>, settings: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const fake = yield* FakeLlmServer.scoped
    const env = { ...(yield* gatewayEnv(backend)), DATA_DIR: newDataDir(), ...settings }
    const port = yield* freePort
    fake.script(QUICK)
    fake.scriptWhen("ITEM-b", SLOW)
    const first = yield* startService("gateway", env, port)
    const id = yield* startExecution(first.base, fake)
    yield* eventually(() => asked(fake, "ITEM-b") === 1, 20_000, "the second item to ask its LLM")
    return { env, fake, first, id, port }
  })

const kill = (child: { kill: (signal: NodeJS.Signals) => boolean; exitCode: number | null }) =>
  Effect.gen(function*() {
    child.kill("SIGKILL")
    yield* awaitExit(child as never)
  })

describe("plan executions survive a killed gateway", () => {
  for (const backend of backends) {
    it.scoped(
      `${backend.name}: killed in a fan-out and again in a nested plan, restarted each time, no finished node runs twice`,
      () =>
        Effect.gen(function*() {
          const { env, fake, first, id, port } = yield* cutOffInFanOut(backend.config)
          yield* kill(first.child)

          fake.scriptWhen("ITEM-b", QUICK)
          fake.scriptWhen("INNER-TWO", SLOW)
          const second = yield* startService("gateway", env, port)
          yield* eventually(() => asked(fake, "INNER-TWO") === 1, 30_000, "the nested plan's second node to ask")
          const cut = (yield* call(`${second.base}/api/v1/admin/plan-executions/${id}`, { headers: admin })).json
          expect(cut.state).toBe("RUNNING")
          expect(nodeOf(cut, "fan")).toMatchObject({ state: "COMPLETED", attempts: 2 })
          yield* kill(second.child)

          fake.scriptWhen("INNER-TWO", QUICK)
          const third = yield* startService("gateway", env, port)
          const { child, execution } = yield* expectContinued(third.base, id, fake, ["ITEM-b", "INNER-TWO"])
          expect(nodeOf(execution, "first").attempts).toBe(1)
          expect(nodeOf(execution, "nested").attempts).toBe(2)
          expect(nodeOf(child, "inner1").attempts).toBe(1)
          expect(nodeOf(child, "inner2").attempts).toBe(2)
        }),
      { timeout: 300_000 }
    )

    it.scoped(
      `${backend.name}: paused with a node still running and killed, it stays PAUSED, the node cut off runs again on resume`,
      () =>
        Effect.gen(function*() {
          const { env, fake, first, id, port } = yield* cutOffInFanOut(backend.config)
          const executions = `${first.base}/api/v1/admin/plan-executions`
          const paused = (yield* call(`${executions}/${id}/pause`, { method: "POST", headers: admin })).json
          expect(paused.state).toBe("PAUSED")
          expect(nodeOf(paused, "fan").state).toBe("RUNNING")
          yield* kill(first.child)

          fake.scriptWhen("ITEM-b", QUICK)
          const second = yield* startService("gateway", env, port)
          const read = () =>
            call(`${second.base}/api/v1/admin/plan-executions/${id}`, { headers: admin }).pipe(
              Effect.map((r) => r.json)
            )
          let after = yield* read()
          for (let i = 0; i < 100 && nodeOf(after, "fan").state !== "PENDING"; i++) {
            yield* sleep(100)
            after = yield* read()
          }
          expect(after.state).toBe("PAUSED")
          expect(nodeOf(after, "fan")).toMatchObject({ state: "PENDING", itemsDone: 1 })
          yield* sleep(1_000)
          expect(asked(fake, "ITEM-b")).toBe(1)
          expect((yield* read()).state).toBe("PAUSED")

          const resumed = yield* call(`${second.base}/api/v1/admin/plan-executions/${id}/resume`, {
            method: "POST",
            headers: admin
          })
          expect(resumed.json.state).toBe("RUNNING")
          yield* expectContinued(second.base, id, fake, ["ITEM-b"])
        }),
      { timeout: 300_000 }
    )
  }

  it.scoped.skipIf(!databaseUrl)(
    "PostgreSQL: another gateway on the same database takes over once the killed one's lease runs out",
    () =>
      Effect.gen(function*() {
        const { env, fake, first, id } = yield* cutOffInFanOut({ DATABASE_URL: databaseUrl! })
        // The other gateway starts while the first holds the execution: it must wait for the lease.
        const other = yield* startService("gateway", { ...env, DATA_DIR: newDataDir() }, yield* freePort)
        fake.scriptWhen("ITEM-b", QUICK)
        yield* sleep(3_000)
        expect(asked(fake, "ITEM-b")).toBe(1)
        yield* kill(first.child)

        const { execution } = yield* expectContinued(other.base, id, fake, ["ITEM-b"])
        expect(nodeOf(execution, "fan").attempts).toBe(2)
        expect(nodeOf(execution, "fan").itemsDone).toBe(3)
      }),
    { timeout: 300_000 }
  )

  it.scoped.skipIf(!databaseUrl)(
    "PostgreSQL: a gateway stopped gracefully gives its execution back at once, not after its lease",
    () =>
      Effect.gen(function*() {
        // A lease far longer than the test: only giving the execution back lets the other gateway take it.
        const { env, fake, first, id } = yield* cutOffInFanOut({ DATABASE_URL: databaseUrl! }, {
          PLAN_EXECUTION_LEASE: "10 minutes"
        })
        fake.scriptWhen("ITEM-b", QUICK)
        first.child.kill("SIGTERM")
        yield* awaitExit(first.child)

        const other = yield* startService("gateway", { ...env, DATA_DIR: newDataDir() }, yield* freePort)
        const { execution } = yield* expectContinued(other.base, id, fake, ["ITEM-b"])
        // The interrupted start is not counted.
        expect(nodeOf(execution, "fan").attempts).toBe(1)
      }),
    { timeout: 300_000 }
  )
})
