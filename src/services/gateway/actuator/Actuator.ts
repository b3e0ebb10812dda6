/**
 * Health, build information and log levels for operators (/actuator). Log levels change at run
 * time: every log line passes a filter that reads the level set for its logger (the `logger`
 * annotation, else ROOT), so a POST takes effect for the next line.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Config, Effect, HashMap, Layer, Logger, LogLevel, Option } from "effect"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
const version = (require("../../../../package.json") as { version: string }).version

export type LevelName = "TRACE" | "DEBUG" | "INFO" | "WARN" | "ERROR" | "FATAL" | "OFF"
export const LEVELS: ReadonlyArray<LevelName> = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"]
const toLogLevel = (
  name: LevelName
) => (name === "OFF"
  ? LogLevel.None
  : LogLevel.fromLiteral(
    name === "WARN"
      ? "Warning"
      : (name[0] + name.slice(1).toLowerCase()) as "Trace" | "Debug" | "Info" | "Error" | "Fatal"
  ))

const KNOWN_LOGGERS = ["ROOT", "http", "orders", "office", "gateway"] as const

/** Levels set at run time, by logger name; ROOT applies to every logger without its own. */
export class LogLevels extends Effect.Service<LogLevels>()("gateway/LogLevels", {
  sync: () => {
    const configured = new Map<string, LevelName>()
    const effective = (name: string): LevelName => configured.get(name) ?? configured.get("ROOT") ?? "INFO"
    return {
      /** Read for every log line: a plain function, not a step of its own. */
      effective,
      list: Effect.fn("LogLevels.list")(() =>
        Effect.sync(() => ({
          levels: LEVELS,
          loggers: Object.fromEntries(
            [...new Set([...KNOWN_LOGGERS, ...configured.keys()])].map((
              name
            ) => [name, { configuredLevel: configured.get(name) ?? null, effectiveLevel: effective(name) }])
          )
        }))
      ),
      set: Effect.fn("LogLevels.set")((name: string, level: LevelName | null) =>
        Effect.sync(() => {
          if (level === null) configured.delete(name)
          else configured.set(name, level)
        })
      )
    }
  }
}) {}

/** The process's logger, filtered by the levels set through /actuator/loggers. */
export const LevelFilterLive = Layer.unwrapEffect(
  LogLevels.pipe(Effect.map((levels) =>
    Logger.replace(
      Logger.defaultLogger,
      Logger.make((options) => {
        const annotated = HashMap.get(options.annotations, "logger")
        const name = Option.isSome(annotated) ? String(annotated.value) : "ROOT"
        if (LogLevel.greaterThanEqual(options.logLevel, toLogLevel(levels.effective(name)))) {
          Logger.defaultLogger.log(options)
        }
      })
    ).pipe(Layer.merge(Logger.minimumLogLevel(LogLevel.All)))
  ))
).pipe(Layer.provide(LogLevels.Default))

export const ActuatorConfig = Config.all({
  infoAccess: Config.literal("public", "authenticated", "admin")("ACTUATOR_INFO_ACCESS").pipe(
    Config.withDefault("public" as const)
  ),
  loggersAccess: Config.literal("public", "authenticated", "admin")("ACTUATOR_LOGGERS_ACCESS").pipe(
    Config.withDefault("admin" as const)
  )
})

export class Actuator extends Effect.Service<Actuator>()("gateway/Actuator", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const access = yield* ActuatorConfig
    const levels = yield* LogLevels
    const startedAt = new Date().toISOString()
    return {
      access,
      health: Effect.fn("Actuator.health")(() =>
        sql`SELECT 1`.pipe(
          Effect.timeout("5 seconds"),
          Effect.match({
            onFailure: (error) => ({
              status: "DOWN" as const,
              components: { db: { status: "DOWN" as const, details: { error: String(error) } } }
            }),
            onSuccess: () => ({ status: "UP" as const, components: { db: { status: "UP" as const } } })
          })
        )
      ),
      info: { app: { name: "docstack AI gateway", version }, runtime: { node: process.versions.node }, startedAt },
      loggers: Effect.fn("Actuator.loggers")(() => levels.list()),
      /** One logger's levels: one not configured takes ROOT's, as any name can be given one. */
      logger: Effect.fn("Actuator.logger")(function*(name: string) {
        const { loggers } = yield* levels.list()
        return loggers[name] ?? { configuredLevel: null, effectiveLevel: levels.effective("ROOT") }
      }),
      setLevel: Effect.fn("Actuator.setLevel")((name: string, level: LevelName | null) => levels.set(name, level))
    }
  }),
  dependencies: [LogLevels.Default]
}) {}
