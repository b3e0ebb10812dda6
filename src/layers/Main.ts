/**
 * The stack as `npm start` runs it: every service, or those named on the command line
 * (`npm start -- broker`), on one process's infrastructure.
 */
import { Effect, Layer } from "effect"
import { BrokerLive } from "./Broker.ts"
import { GatewayLive } from "./Gateway.ts"
import { InfrastructureLive } from "./Infrastructure.ts"

const services = { broker: BrokerLive, gateway: GatewayLive } as const
type ServiceName = keyof typeof services

/** The services the command line names (all when it names none); an unknown name ends the process with the list of known ones. */
const requestedServices = (args: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<ServiceName>> =>
  Effect.sync(() => {
    const requested = args.filter((arg) => !arg.startsWith("-"))
    const unknown = requested.filter((name) => !(name in services))
    if (unknown.length > 0) {
      console.error(`Unknown service(s): ${unknown.join(", ")}. Available: ${Object.keys(services).join(", ")}`)
      process.exit(2)
    }
    return (requested.length > 0 ? requested : Object.keys(services)) as ReadonlyArray<ServiceName>
  })

/**
 * Runs the services the command line names until the process is stopped. The infrastructure (one
 * SQL client) is built once; each service is launched on it by itself, so that each has its own
 * HTTP router.
 */
export const runStack = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const names = yield* requestedServices(args)
    const infrastructure = Layer.succeedContext(yield* Layer.build(InfrastructureLive))
    yield* Effect.all(names.map((name) => Layer.launch(services[name].pipe(Layer.provide(infrastructure)))), {
      concurrency: "unbounded"
    })
  }).pipe(Effect.scoped)
