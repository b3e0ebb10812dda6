/**
 * The stack as `npm start` runs it: every service, or those named on the command line
 * (`npm start -- broker`), on one process's infrastructure.
 */
import { Effect, Layer } from "effect"
import { PlatformLive } from "./Infrastructure.ts"
import { SqlLive } from "./Sql.ts"

/** The services, and whether each keeps state in the database (the reference provider keeps files only). */
const services = { broker: true, gateway: true, provider: false, viewer: true } as const
type ServiceName = keyof typeof services

/**
 * The layers of the services that keep state, each imported only when that service runs (the
 * provider's too, below): a broker started alone neither loads nor holds in memory the gateway's
 * libraries (the tokenizer's tables, MCP, templating) or the viewer's (docs/administration.md).
 */
const layers = {
  broker: () => import("./Broker.ts").then((module) => module.BrokerLive),
  gateway: () => import("./Gateway.ts").then((module) => module.GatewayLive),
  viewer: () => import("./Viewer.ts").then((module) => module.ViewerLive)
}

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
        ? Effect.flatMap(
          Effect.promise(() => import("./Provider.ts")),
          ({ ProviderLive }) => Layer.launch(ProviderLive.pipe(Layer.provide(platform)))
        )
        : Effect.flatMap(Effect.promise(layers[name]), (live) => Layer.launch(live.pipe(Layer.provide(database!))))
    yield* Effect.all(names.map(launch), { concurrency: "unbounded" })
  }).pipe(Effect.scoped)
