/**
 * Starts the stack: every service by default, or those named on the command line
 * (`npm start -- broker`).
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { BrokerLive } from "./layers/Broker.ts"

const services = { broker: BrokerLive } as const
type ServiceName = keyof typeof services

const requested = process.argv.slice(2).filter((arg) => !arg.startsWith("-"))
const unknown = requested.filter((name) => !(name in services))
if (unknown.length > 0) {
  console.error(`Unknown service(s): ${unknown.join(", ")}. Available: ${Object.keys(services).join(", ")}`)
  process.exit(2)
}
const names = (requested.length > 0 ? requested : Object.keys(services)) as Array<ServiceName>

const stack = names.map((name) => services[name]).reduce((all, service) => Layer.merge(all, service))

Layer.launch(stack).pipe(
  Effect.tapErrorCause(Effect.logError),
  NodeRuntime.runMain
)
