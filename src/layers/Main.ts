/**
 * The stack as `npm start` runs it: every service, or those named on the command line
 * (`npm start -- broker`), on one process's infrastructure.
 */
import { Effect, Layer } from "effect"
import { BrokerLive } from "./Broker.ts"
import { GatewayLive } from "./Gateway.ts"
import { PlatformLive } from "./Infrastructure.ts"
import { ProviderLive } from "./Provider.ts"
import { SqlLive } from "./Sql.ts"
import { ViewerLive } from "./Viewer.ts"

/** The services, and whether each keeps state in the database (the reference provider keeps files only). */
const services = { broker: true, gateway: true, provider: false, viewer: true } as const
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
 * Runs the services the command line names until the process is stopped. The infrastructure is
 * built once, the database only when a service keeps state in it (a provider alone neither opens nor
 * locks the data directory's database); each service is launched on it by itself, so that each has
 * its own HTTP router.
 */
export const runStack = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const names = yield* requestedServices(args)
    const platform = Layer.succeedContext(yield* Layer.build(PlatformLive))
    const database = names.some((name) => services[name])
      ? Layer.succeedContext(yield* Layer.build(SqlLive.pipe(Layer.provideMerge(platform))))
      : undefined
    const launch = (name: ServiceName) =>
      name === "provider"
        ? Layer.launch(ProviderLive.pipe(Layer.provide(platform)))
        : Layer.launch(
          ({ broker: BrokerLive, gateway: GatewayLive, viewer: ViewerLive })[name].pipe(Layer.provide(database!))
        )
    yield* Effect.all(names.map(launch), { concurrency: "unbounded" })
  }).pipe(Effect.scoped)
