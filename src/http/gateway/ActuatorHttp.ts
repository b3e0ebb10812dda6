import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Forbidden } from "../../schemas/gateway/GatewayErrors.ts"
import { Actuator } from "../../services/gateway/actuator/Actuator.ts"
import { Tenancy } from "../../services/gateway/tenancy/Tenancy.ts"
import { GatewayApi } from "./Api.ts"

export const ActuatorHttpLive = HttpApiBuilder.group(GatewayApi, "actuator", (handlers) =>
  Effect.gen(function*() {
    const actuator = yield* Actuator
    const tenancy = yield* Tenancy

    /** Access as configured: public, any resolved user, or an admin. */
    const allowed = (level: "public" | "authenticated" | "admin") =>
      level === "public"
        ? Effect.void
        : HttpServerRequest.HttpServerRequest.pipe(
          Effect.flatMap((request) => tenancy.resolve(request.headers)),
          Effect.filterOrFail(
            (principal) => level !== "admin" || principal.isAdmin,
            () => new Forbidden({ message: `This endpoint needs the '${tenancy.adminRole}' role` })
          ),
          Effect.asVoid
        )

    return handlers
      .handle("health", () =>
        actuator.health().pipe(
          Effect.flatMap((health) => (health.status === "UP" ? Effect.succeed(health) : Effect.fail(health)))
        ))
      .handle("info", () => allowed(actuator.access.infoAccess).pipe(Effect.as(actuator.info)))
      .handle("loggers", () => allowed(actuator.access.loggersAccess).pipe(Effect.zipRight(actuator.loggers())))
      .handle("logger", ({ path }) =>
        allowed(actuator.access.loggersAccess).pipe(Effect.zipRight(actuator.logger(path.name))))
      .handle("setLogger", ({ path, payload }) =>
        allowed(actuator.access.loggersAccess).pipe(
          Effect.zipRight(actuator.setLevel(path.name, payload.configuredLevel)),
          Effect.as(HttpServerResponse.empty({ status: 204 }))
        ))
  }))
