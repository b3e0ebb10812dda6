/**
 * What the services of the stack stand on, built once per process and handed to each: the platform
 * (file system, commands) and storage settings, and for the services that keep state the SQL client
 * (one PGlite per data directory, or a PostgreSQL pool). Each service is then launched on its own,
 * so that HttpApi's router, a shared layer, is not shared between the services' APIs.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Layer } from "effect"
import { StorageConfig } from "../services/common/StorageConfig.ts"
import { SqlLive } from "./Sql.ts"

/**
 * Spans are not recorded: no tracer exports them, and making them (a span per SQL statement, HTTP
 * call and `Effect.fn`) cost about a third of the gateway's CPU time per request.
 */
const SpansOff = Layer.setTracerEnabled(false)

/** The platform alone: what the reference provider, which keeps no database, stands on. */
export const PlatformLive = StorageConfig.Default.pipe(
  Layer.provideMerge(NodeContext.layer),
  Layer.provideMerge(SpansOff)
)

export const InfrastructureLive = SqlLive.pipe(Layer.provideMerge(PlatformLive))
