/**
 * Starts the stack: every service by default, or those named on the command line
 * (`npm start -- broker`).
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { BrokerLive } from "./layers/Broker.ts"
import { GatewayLive } from "./layers/Gateway.ts"
import { InfrastructureLive } from "./layers/Infrastructure.ts"

const services = { broker: BrokerLive, gateway: GatewayLive } as const
type ServiceName = keyof typeof services

const requested = process.argv.slice(2).filter((arg) => !arg.startsWith("-"))
const unknown = requested.filter((name) => !(name in services))
if (unknown.length > 0) {
  console.error(`Unknown service(s): ${unknown.join(", ")}. Available: ${Object.keys(services).join(", ")}`)
  process.exit(2)
}
const names = (requested.length > 0 ? requested : Object.keys(services)) as Array<ServiceName>

// The infrastructure (one SQL client) is built once; each service is launched on it by itself,
// so that each has its own HTTP router.
Effect.scoped(
  Effect.gen(function*() {
    const infrastructure = Layer.succeedContext(yield* Layer.build(InfrastructureLive))
    yield* Effect.all(names.map((name) => Layer.launch(services[name].pipe(Layer.provide(infrastructure)))), { concurrency: "unbounded" })
  })
).pipe(
  Effect.tapErrorCause(Effect.logError),
  // The services' own logger (level per logger, changed at run time through the actuator) is the
  // only one: runMain's pretty logger would print every line a second time, unfiltered.
  (program) => NodeRuntime.runMain(program, { disablePrettyLogger: true })
)
