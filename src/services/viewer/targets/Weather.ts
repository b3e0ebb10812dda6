/**
 * The rendition targets' weather: each broker's /weather score (a load, lower is better), asked
 * every VIEWER_WEATHER_INTERVAL, and whether it answers. A target whose call fails between two polls
 * is taken out at once (`markDown`) and comes back when it answers a poll again.
 */
import { Duration, Effect, Ref, Schedule } from "effect"
import { durationConfig } from "../../common/DurationConfig.ts"
import { ViewerMetrics } from "../metrics/ViewerMetrics.ts"
import { BrokerClients } from "./BrokerClients.ts"
import { TargetList } from "./TargetList.ts"

export interface TargetState {
  readonly url: string
  readonly available: boolean
  readonly score: number | null
  /** Milliseconds since the epoch of the latest poll, null before the first. */
  readonly checkedAt: number | null
  readonly error: string | null
  readonly latencyMs: number | null
}

const unknownTarget = (url: string): TargetState => ({
  url,
  // Until the first poll says otherwise a target is tried: a viewer started with its brokers must
  // not refuse the first requests.
  available: true,
  score: null,
  checkedAt: null,
  error: null,
  latencyMs: null
})

export class Weather extends Effect.Service<Weather>()("docstack/viewer/Weather", {
  scoped: Effect.gen(function*() {
    const targets = yield* TargetList
    const clients = yield* BrokerClients
    const metrics = yield* ViewerMetrics
    const interval = yield* durationConfig("VIEWER_WEATHER_INTERVAL", Duration.seconds(2))
    const pollTimeout = yield* durationConfig("VIEWER_WEATHER_TIMEOUT", Duration.seconds(2))
    const states = yield* Ref.make<ReadonlyArray<TargetState>>((yield* targets.list).map(unknownTarget))

    const ask = (url: string) =>
      Effect.gen(function*() {
        const started = Date.now()
        const answer = yield* clients.of(url).administration.weather().pipe(
          Effect.timeoutFail({
            duration: pollTimeout,
            onTimeout: () => `no answer within ${Duration.format(pollTimeout)}`
          }),
          Effect.either
        )
        const checkedAt = Date.now()
        if (answer._tag === "Left") {
          const error = typeof answer.left === "string" ? answer.left : describe(answer.left)
          return { url, available: false, score: null, checkedAt, error, latencyMs: null } satisfies TargetState
        }
        const score = Number.parseFloat(answer.right)
        return Number.isFinite(score)
          ? { url, available: true, score, checkedAt, error: null, latencyMs: checkedAt - started }
          : {
            url,
            available: false,
            score: null,
            checkedAt,
            error: `/weather answered '${answer.right.slice(0, 40)}', not a number`,
            latencyMs: null
          }
      })

    /** Every target asked at once; the list is read again each time (another viewer may have changed it). */
    const poll = Effect.gen(function*() {
      const urls = yield* targets.list
      const fresh = yield* Effect.forEach(urls, ask, { concurrency: "unbounded" })
      const previous = yield* Ref.getAndSet(states, fresh)
      for (const state of fresh) metrics.target(state.url, state.available, state.score)
      for (const gone of previous) if (!urls.includes(gone.url)) metrics.forgetTarget(gone.url)
      for (const state of fresh) {
        const before = previous.find((p) => p.url === state.url)
        if (before !== undefined && before.available !== state.available && before.checkedAt !== null) {
          yield* state.available
            ? Effect.logInfo(`Rendition target ${state.url} answers again`)
            : Effect.logWarning(`Rendition target ${state.url} is taken out: ${state.error}`)
        }
      }
    })

    yield* poll.pipe(Effect.repeat(Schedule.spaced(interval)), Effect.forkScoped)

    return {
      /** The targets as last seen, in list order. */
      states: Ref.get(states),
      /** Polls now (after the list changed). */
      refresh: poll,
      /** A call to `url` failed: it is out until a poll finds it answering. */
      markDown: (url: string, error: string) =>
        Ref.update(
          states,
          (all) => all.map((s) => (s.url === url ? { ...s, available: false, error, checkedAt: Date.now() } : s))
        ).pipe(
          Effect.tap(() => Effect.sync(() => metrics.target(url, false, null))),
          Effect.tap(() => Effect.logWarning(`Rendition target ${url} is taken out: ${error}`))
        )
    }
  }),
  dependencies: [TargetList.Default, BrokerClients.Default, ViewerMetrics.Default]
}) {}

/** A failed call in a few words. */
export const describe = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const e = error as { message?: unknown; description?: unknown; _tag?: unknown }
    if (typeof e.description === "string") return e.description
    if (typeof e.message === "string" && e.message !== "") return e.message
    if (typeof e._tag === "string") return e._tag
  }
  return String(error)
}
