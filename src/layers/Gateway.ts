/**
 * The AI gateway: its HttpApi with handlers under /api/v1, the actuator, OpenAPI at /v3/api-docs
 * and the explorer at /swagger-ui/index.html, on the process's infrastructure (shared with the broker).
 */
import { HttpApiBuilder, HttpApiSwagger, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Config, Effect, Layer } from "effect"
import { createServer } from "node:http"
import { errorBodies } from "../http/ErrorBodies.ts"
import { ActuatorHttpLive } from "../http/gateway/ActuatorHttp.ts"
import { AdminLlmHttpLive } from "../http/gateway/AdminLlmHttp.ts"
import { GatewayApi, gatewayErrorShape } from "../http/gateway/Api.ts"
import { AdminAuthenticationLive, UserAuthenticationLive } from "../http/gateway/Authentication.ts"
import { UsersHttpLive } from "../http/gateway/UsersHttp.ts"
import { Actuator, LevelFilterLive, LogLevels } from "../services/gateway/Actuator.ts"
import { ProviderConfigs } from "../services/gateway/ProviderConfigs.ts"
import { Secrets } from "../services/gateway/Secrets.ts"
import { Tenancy } from "../services/gateway/Tenancy.ts"

/** Every service of the gateway, on the process's infrastructure (InfrastructureLive). */
export const GatewayServicesLive = Layer.mergeAll(ProviderConfigs.Default, Actuator.Default, UserAuthenticationLive, AdminAuthenticationLive).pipe(
  Layer.provideMerge(Layer.mergeAll(Tenancy.Default, Secrets.Default, LogLevels.Default))
)

const GatewayRoutesLive = HttpApiBuilder.api(GatewayApi).pipe(Layer.provide([ActuatorHttpLive, UsersHttpLive, AdminLlmHttpLive]))

/** The gateway's HTTP application, without server or services (tests serve it on an ephemeral port). */
export const GatewayApp = HttpApiBuilder.serve((app) => HttpMiddleware.logger(errorBodies(gatewayErrorShape)(app))).pipe(
  Layer.provide(HttpApiSwagger.layer({ path: "/swagger-ui/index.html" })),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/v3/api-docs" })),
  Layer.provide(GatewayRoutesLive),
  Layer.provide(LevelFilterLive)
)

export const GatewayLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const port = yield* Config.integer("GATEWAY_PORT").pipe(
      Config.validate({ message: "GATEWAY_PORT must be a port number from 0 to 65535", validation: (p) => p >= 0 && p <= 65535 }),
      Config.withDefault(8090)
    )
    const host = yield* Config.string("GATEWAY_HOST").pipe(Config.withDefault("0.0.0.0"))
    const server = NodeHttpServer.layer(createServer, { port, host }).pipe(Layer.provide(GatewayServicesLive))
    return GatewayApp.pipe(HttpServer.withLogAddress, Layer.provide(server), Layer.provide(GatewayServicesLive))
  })
)
