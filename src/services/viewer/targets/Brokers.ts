/**
 * Where each call goes. A new document goes to a target chosen by weather (VIEWER_TARGET_CHOICE:
 * `weighted` by default, `round-robin`, `best`); every later call for it goes to the same target
 * (table viewer_documents, kept in memory too) while that target answers. A target that does not
 * answer is taken out and the document moves to another one, which finds it when the brokers share
 * one database and one blob directory (docs/viewer.md "Rendition targets").
 */
import type { HttpClientError } from "@effect/platform"
import * as SqlClient from "@effect/sql/SqlClient"
import { Config, Effect, Option, type ParseResult, Schema } from "effect"
import { RenditionUnavailable } from "../../../schemas/viewer/ViewerErrors.ts"
import { ViewerMetrics } from "../metrics/ViewerMetrics.ts"
import { type BrokerClient, BrokerClients, isTransportFailure } from "./BrokerClients.ts"
import { describe, type TargetState, Weather } from "./Weather.ts"

export type TargetChoice = "weighted" | "round-robin" | "best"

const choiceConfig = Config.literal("weighted", "round-robin", "best")("VIEWER_TARGET_CHOICE").pipe(
  Config.withDefault("weighted" as const)
)

/**
 * The targets in the order to try them: those available first, the first of them picked by the
 * policy; those taken out last (weather may be stale, and a last chance beats a refusal).
 */
export const preference = (
  states: ReadonlyArray<TargetState>,
  choice: TargetChoice,
  turn: number,
  random: number
): ReadonlyArray<string> => {
  const up = states.filter((s) => s.available)
  const down = states.filter((s) => !s.available).map((s) => s.url)
  if (up.length === 0) return down
  let first: TargetState
  if (choice === "round-robin") {
    first = up[turn % up.length]!
  } else if (choice === "best") {
    first = up.reduce((best, s) => ((s.score ?? Infinity) < (best.score ?? Infinity) ? s : best))
  } else {
    // Weighted: a lighter load draws more often; a target not yet scored weighs as an idle one.
    const weights = up.map((s) => 1 / (0.05 + Math.max(0, s.score ?? 0)))
    let point = random * weights.reduce((a, b) => a + b, 0)
    first = up[up.length - 1]!
    for (const [i, weight] of weights.entries()) {
      point -= weight
      if (point < 0) {
        first = up[i]!
        break
      }
    }
  }
  return [first.url, ...up.filter((s) => s !== first).map((s) => s.url), ...down]
}

/** What a call's errors are once the viewer has dealt with the broker's transport and protocol. */
export type Answered<E> = Exclude<E, HttpClientError.HttpClientError | ParseResult.ParseError>

/** A broker answered outside its contract (a status or body its API does not declare): a defect. */
const isProtocolFailure = (error: unknown) => {
  const tag = (error as { _tag?: unknown } | null)?._tag
  return tag === "ResponseError" || tag === "ParseError"
}

/** The root of a broker document ID: the container of a part `<root>/<i>/…`. */
export const rootOf = (brokerId: string) => brokerId.split("/")[0]!

const Assigned = Schema.Struct({ target: Schema.String })

export class Brokers extends Effect.Service<Brokers>()("docstack/viewer/Brokers", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clients = yield* BrokerClients
    const weather = yield* Weather
    const metrics = yield* ViewerMetrics
    const choice = yield* choiceConfig
    const assigned = new Map<string, string>()
    let turn = 0

    const ordered = Effect.map(weather.states, (states) => preference(states, choice, turn++, Math.random()))

    const stored = (root: string) =>
      sql`SELECT target FROM viewer_documents WHERE document_id = ${root}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(Assigned))),
        Effect.map((rows) => Option.fromNullable(rows[0]?.target)),
        Effect.orDie
      )

    const store = (root: string, target: string) =>
      sql`INSERT INTO viewer_documents (document_id, target) VALUES (${root}, ${target})
          ON CONFLICT (document_id) DO UPDATE SET target = excluded.target, assigned_at = now()`.pipe(
        Effect.orDie,
        Effect.tap(() => Effect.sync(() => assigned.set(root, target)))
      )

    /**
     * Runs `call` on each target in `targets` until one answers; a target that does not is marked
     * down. Answers the result and the target that gave it.
     */
    const firstAnswering = <A, E>(
      targets: ReadonlyArray<string>,
      call: (client: BrokerClient, target: string) => Effect.Effect<A, E>
    ): Effect.Effect<readonly [A, string], Answered<E> | RenditionUnavailable> =>
      Effect.gen(function*() {
        const failures: Array<string> = []
        for (const target of targets) {
          const result = yield* call(clients.of(target), target).pipe(Effect.either)
          if (result._tag === "Right") return [result.right, target] as const
          if (isProtocolFailure(result.left)) {
            return yield* Effect.die(new Error(`Broker ${target} answered outside its API: ${describe(result.left)}`))
          }
          if (!isTransportFailure(result.left)) return yield* Effect.fail(result.left as Answered<E>)
          const reason = describe(result.left)
          failures.push(`${target}: ${reason}`)
          yield* weather.markDown(target, reason)
        }
        return yield* new RenditionUnavailable({
          message: targets.length === 0
            ? "No rendition target is configured (RENDITION_TARGETS, or POST weather)"
            : `No rendition target answered (${failures.join("; ")})`
        })
      })

    /** The target a document's calls go to: memory, else the database, else a choice now. */
    const targetOf = (root: string) =>
      Effect.gen(function*() {
        const known = assigned.get(root)
        if (known !== undefined) {
          metrics.targetLookup("hit")
          return Option.some(known)
        }
        const found = yield* stored(root)
        if (Option.isSome(found)) {
          metrics.targetLookup("stored")
          assigned.set(root, found.value)
        }
        return found
      })

    return {
      /**
       * A call that makes a new document (an upload, a merge): sent to the target weather prefers,
       * or the next one when it does not answer. The caller records the new document with `assign`.
       */
      forNew: <A, E>(call: (client: BrokerClient, target: string) => Effect.Effect<A, E>) =>
        Effect.flatMap(ordered, (targets) => firstAnswering(targets, call)),

      /** Records that `brokerId`'s calls go to `target` (its root: parts go with their container). */
      assign: (brokerId: string, target: string) =>
        Effect.zipRight(Effect.sync(() => metrics.targetLookup("new")), store(rootOf(brokerId), target)),

      /**
       * A call about an existing document: to its target while it answers; if it does not, to the
       * others in the order weather prefers, the document then staying with the one that answered
       * (the call is given the target it runs on).
       */
      forDocument: <A, E>(brokerId: string, call: (client: BrokerClient, target: string) => Effect.Effect<A, E>) =>
        Effect.gen(function*() {
          const root = rootOf(brokerId)
          const states = yield* weather.states
          // A target taken off the list (POST weather) keeps none of its documents.
          const current = Option.filter(yield* targetOf(root), (target) => states.some((s) => s.url === target))
          const preferred = preference(states, choice, turn++, Math.random())
          const targets = Option.isSome(current)
            ? [current.value, ...preferred.filter((t) => t !== current.value)]
            : preferred
          const [result, target] = yield* firstAnswering(targets, call)
          if (Option.isNone(current)) {
            metrics.targetLookup("new")
            yield* store(root, target)
          } else if (current.value !== target) {
            metrics.failover(current.value)
            yield* Effect.logWarning(`Document ${root} moved from ${current.value} to ${target}`)
            yield* store(root, target)
          }
          return result
        }),

      /** Forgets where a document is (evictDocument). */
      forget: (brokerId: string) =>
        Effect.gen(function*() {
          const root = rootOf(brokerId)
          assigned.delete(root)
          yield* sql`DELETE FROM viewer_documents WHERE document_id = ${root}`.pipe(Effect.orDie)
        }),

      /** Any one target that answers, for calls about no document in particular. */
      any: <A, E>(call: (client: BrokerClient, target: string) => Effect.Effect<A, E>) =>
        Effect.flatMap(ordered, (targets) => Effect.map(firstAnswering(targets, call), ([a]) => a))
    }
  }),
  dependencies: [BrokerClients.Default, Weather.Default, ViewerMetrics.Default]
}) {}
