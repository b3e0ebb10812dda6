/**
 * Each rendition target's availability over time, for the health page: the share of weather polls
 * it answered since this viewer started. Weather keeps only the latest poll; this follows its
 * readings (a new `checkedAt` is a new poll) so a target that flaps shows it, where its current
 * state alone would not.
 */
import { Duration, Effect, Schedule } from "effect"
import { durationConfig } from "../../common/DurationConfig.ts"
import { Weather } from "../targets/Weather.ts"

export interface Availability {
  readonly answered: number
  readonly polls: number
}

export class TargetAvailability extends Effect.Service<TargetAvailability>()("docstack/viewer/TargetAvailability", {
  scoped: Effect.gen(function*() {
    const weather = yield* Weather
    const interval = yield* durationConfig("VIEWER_WEATHER_INTERVAL", Duration.seconds(2))
    const counts = new Map<string, Availability & { readonly lastCheckedAt: number }>()

    const sample = Effect.map(weather.states, (states) => {
      for (const state of states) {
        const seen = counts.get(state.url)
        if (state.checkedAt === null || seen?.lastCheckedAt === state.checkedAt) continue
        counts.set(state.url, {
          answered: (seen?.answered ?? 0) + (state.available ? 1 : 0),
          polls: (seen?.polls ?? 0) + 1,
          lastCheckedAt: state.checkedAt
        })
      }
    })
    // Half the poll interval: no poll is missed between two samples.
    yield* sample.pipe(Effect.repeat(Schedule.spaced(Duration.times(interval, 0.5))), Effect.forkScoped)

    return {
      /** The target's polls so far (none before its first poll). */
      of: (url: string): Effect.Effect<Availability> =>
        Effect.map(sample, () => counts.get(url) ?? { answered: 0, polls: 0 })
    }
  }),
  dependencies: [Weather.Default]
}) {}
