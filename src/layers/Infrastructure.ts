/**
 * What every service of the stack stands on, built once per process and handed to each: the
 * platform (file system, commands), storage settings and the SQL client (one PGlite per data
 * directory, or a PostgreSQL pool). Each service is then launched on its own, so that HttpApi's
 * router, a shared layer, is not shared between the services' APIs.
 */
import { NodeContext } from "@effect/platform-node"
import { Layer } from "effect"
import { StorageConfig } from "../services/common/StorageConfig.ts"
import { SqlLive } from "./Sql.ts"

/**
 * Spans are not recorded: no tracer exports them, and making them (a span per SQL statement, HTTP
 * call and `Effect.fn`) cost about a third of the gateway's CPU time per request.
 */
const SpansOff = Layer.setTracerEnabled(false)

export const InfrastructureLive = SqlLive.pipe(
  Layer.provideMerge(StorageConfig.Default),
  Layer.provideMerge(NodeContext.layer),
  Layer.provideMerge(SpansOff)
)
