/**
 * Drives one claimed execution: starts the nodes whose dependencies are done (at most
 * PLAN_NODE_CONCURRENCY at once), skips those a condition or their dependencies rule out, writes
 * each node's end as it comes, and ends the execution (COMPLETED with its output, FAILED when a
 * node fails). Its state is read back from the database at every heartbeat: PAUSED starts nothing
 * more and, once the running nodes are done, gives the execution up; an execution no longer this
 * gateway's (stopped, deleted, taken over) has its running nodes interrupted and nothing written.
 */
import { Cause, Duration, Effect, Exit, Fiber, Option, Queue } from "effect"
import type { ExecutionState, NodeState } from "../../../schemas/gateway/PlanExecutions.ts"
import type { PlanGraphNode } from "../../../schemas/gateway/Plans.ts"
import { runsAfter } from "../plans/PlanGraph.ts"
import { type ClaimedExecution, ExecutionStore } from "./ExecutionStore.ts"
import { type NodeFailed, NodeWork } from "./NodeWork.ts"

type Event =
  | { readonly type: "node"; readonly nodeId: string; readonly exit: Exit.Exit<unknown, NodeFailed> }
  | { readonly type: "state"; readonly state: Option.Option<ExecutionState> }

const ENDED: ReadonlyArray<NodeState> = ["COMPLETED", "FAILED", "SKIPPED", "CANCELLED"]

/** Whether a node whose dependencies are done is skipped: in the branch a condition did not take, or after only skipped nodes. */
const skipped = (
  node: PlanGraphNode,
  after: ReadonlyArray<string>,
  nodes: ReadonlyArray<PlanGraphNode>,
  states: ReadonlyMap<string, NodeState>,
  outputs: ReadonlyMap<string, unknown>
) => {
  const notTaken = nodes.some((condition) => {
    if (condition.type !== "CONDITION" || states.get(condition.id) !== "COMPLETED") return false
    const branch = (outputs.get(condition.id) as { readonly branch: string }).branch
    return (branch === "then" ? condition.else : condition.then)?.includes(node.id) ?? false
  })
  return notTaken || (after.length > 0 && after.every((id) => states.get(id) === "SKIPPED"))
}

export const executionDriver = Effect.gen(function*() {
  const store = yield* ExecutionStore
  const work = yield* NodeWork
  const { config } = store
  const heartbeatEvery = Duration.millis(
    Math.min(Duration.toMillis(config.pollInterval), Duration.toMillis(config.lease) / 3)
  )

  return (execution: ClaimedExecution) =>
    Effect.gen(function*() {
      const { id, owner } = execution
      const after = runsAfter(execution.nodes)
      const stored = yield* store.nodes(id)
      const states = new Map(stored.map((node) => [node.nodeId, node.state]))
      const outputs = new Map(
        stored.flatMap((node) => (node.state === "COMPLETED" ? [[node.nodeId, node.output]] : []))
      )
      const running = new Map<string, Fiber.RuntimeFiber<void>>()
      const events = yield* Queue.unbounded<Event>()
      let paused = false

      // The execution's state, at every heartbeat and at once when this process changed it.
      yield* Effect.forkScoped(
        Effect.gen(function*() {
          while (true) {
            yield* Effect.raceFirst(store.awaitChange(new Set([id])), Effect.sleep(heartbeatEvery))
            yield* Queue.offer(events, { type: "state", state: yield* store.heartbeat(id, owner) })
          }
        })
      )

      const stopAll = Effect.suspend(() => Fiber.interruptAll(running.values()))
      const fail = (errorMessage: string) =>
        stopAll.pipe(Effect.zipRight(store.finish(id, owner, "FAILED", { errorMessage })), Effect.asVoid)

      /** Writes a node's end; false when the execution is no longer this driver's. */
      const finishNode = (
        nodeId: string,
        state: "COMPLETED" | "FAILED" | "SKIPPED",
        result: { readonly output?: unknown; readonly errorMessage?: string }
      ) =>
        store.finishNode(id, owner, nodeId, state, result).pipe(
          Effect.tap((kept) =>
            Effect.sync(() => {
              if (!kept) return
              states.set(nodeId, state)
              if (state === "COMPLETED") outputs.set(nodeId, result.output)
            })
          )
        )

      /** Skips and starts what can be; false when the execution ended or is no longer this driver's. */
      const advance = Effect.gen(function*() {
        for (const node of execution.nodes) {
          if (states.get(node.id) !== "PENDING") continue
          const deps = after.get(node.id) ?? []
          if (!deps.every((dep) => ENDED.includes(states.get(dep) ?? "PENDING"))) continue
          if (skipped(node, deps, execution.nodes, states, outputs)) {
            if (!(yield* finishNode(node.id, "SKIPPED", {}))) return false
            continue
          }
          if (paused || running.size >= config.nodeConcurrency) continue
          const attempts = yield* store.startNode(id, owner, node.id)
          // Paused (or no longer ours) since the last heartbeat: nothing starts; the next heartbeat says which.
          if (Option.isNone(attempts)) {
            paused = true
            continue
          }
          if (attempts.value > config.nodeMaxAttempts) {
            const errorMessage = `Abandoned after ${
              attempts.value - 1
            } starts: the gateway running it stopped each time (PLAN_NODE_MAX_ATTEMPTS)`
            yield* finishNode(node.id, "FAILED", { errorMessage })
            yield* fail(`The node '${node.id}' failed: ${errorMessage}`)
            return false
          }
          states.set(node.id, "RUNNING")
          const fiber = yield* work.run(execution, node, outputs).pipe(
            Effect.exit,
            Effect.flatMap((exit) => Queue.offer(events, { type: "node", nodeId: node.id, exit })),
            Effect.asVoid,
            Effect.forkScoped
          )
          running.set(node.id, fiber)
        }
        return true
      })

      while (true) {
        if (!(yield* advance)) return
        if (running.size === 0) {
          if (execution.nodes.every((node) => ENDED.includes(states.get(node.id)!))) {
            const output = execution.outputNode === null
              ? Object.fromEntries(outputs)
              : outputs.get(execution.outputNode) ?? null
            yield* store.finish(id, owner, "COMPLETED", { output })
            return
          }
          if (paused) {
            yield* store.release(id, owner)
            return
          }
        }
        const event = yield* Queue.take(events)
        if (event.type === "state") {
          if (Option.isNone(event.state)) return yield* stopAll
          paused = event.state.value === "PAUSED"
          continue
        }
        running.delete(event.nodeId)
        const { exit, nodeId } = event
        if (Exit.isSuccess(exit)) {
          if (!(yield* finishNode(nodeId, "COMPLETED", { output: exit.value }))) return yield* stopAll
          continue
        }
        // Interrupted: the execution is no longer this driver's; the heartbeat says so next.
        if (Exit.isInterrupted(exit)) continue
        const failure = Cause.failureOption(exit.cause)
        const errorMessage = Option.match(failure, {
          onNone: () => `Internal error: ${String(Cause.squash(exit.cause))}`,
          onSome: (failure) => failure.message
        })
        // A node that says what it did before failing (an agent's tool calls) keeps it as its output.
        const output = Option.isSome(failure) ? failure.value.output : undefined
        if (
          !(yield* finishNode(nodeId, "FAILED", output === undefined ? { errorMessage } : { errorMessage, output }))
        ) {
          return yield* stopAll
        }
        yield* fail(`The node '${nodeId}' failed: ${errorMessage}`)
        return
      }
    }).pipe(Effect.scoped, Effect.withSpan("ExecutionDriver.drive", { attributes: { executionId: execution.id } }))
})
