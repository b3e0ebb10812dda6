/**
 * A service's HTTP application on its own port, `<NAME>_PORT` and `<NAME>_HOST`.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { Config, Effect, Layer } from "effect"
import { createServer } from "node:http"

export const listen = <RApp, EApp, S, E, RS>(
  name: "BROKER" | "GATEWAY" | "PROVIDER" | "VIEWER",
  defaultPort: number,
  app: Layer.Layer<never, EApp, RApp>,
  services: Layer.Layer<S, E, RS>
) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      // 0 is allowed: the system picks a free port (logged at start).
      const port = yield* Config.integer(`${name}_PORT`).pipe(
        Config.validate({
          message: `${name}_PORT must be a port number from 0 to 65535`,
          validation: (p) => p >= 0 && p <= 65535
        }),
        Config.withDefault(defaultPort)
      )
      const host = yield* Config.string(`${name}_HOST`).pipe(Config.withDefault("0.0.0.0"))
      // The port opens only once every service is built: a connection accepted earlier would wait,
      // unanswered, for the whole start-up (the same services value, so it is built once).
      const server = NodeHttpServer.layer(createServer, { port, host }).pipe(Layer.provide(services))
      return app.pipe(HttpServer.withLogAddress, Layer.provide(server), Layer.provide(services))
    })
  )
