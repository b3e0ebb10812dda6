/**
 * Every duration setting reads the same way: a number of seconds ("30", "1.5") or an Effect
 * duration ("30 seconds", "200 millis", "2 minutes").
 */
import { Config, Duration } from "effect"

/** A duration setting with no default, for one whose default depends on other settings. */
export const durationSetting = (name: string) =>
  Config.number(name).pipe(
    Config.map(Duration.seconds),
    Config.orElse(() => Config.duration(name))
  )

export const durationConfig = (name: string, fallback: Duration.DurationInput) =>
  durationSetting(name).pipe(Config.withDefault(Duration.decode(fallback)))
