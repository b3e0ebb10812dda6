/**
 * The AI gateway's HTTP contract (spec: gateway-api.md): every API path under /api/v1, the
 * actuator outside it. Every error is `{code, message, status}`. Contract only: no service here.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { GatewayErrors } from "../../schemas/GatewayErrors.ts"
import type { ErrorShape } from "../ErrorBodies.ts"
import { ExtraParamDescriptor, ProviderConfigInput, ProviderConfigView } from "../../schemas/LlmProviders.ts"
import { UserDetails } from "../../schemas/Tenancy.ts"
import { AdminAuthentication, UserAuthentication } from "./Authentication.ts"

const NoContent = HttpApiSchema.Empty(204)

export const HealthStatus = Schema.Struct({
  status: Schema.Literal("UP", "DOWN"),
  components: Schema.Record({ key: Schema.String, value: Schema.Struct({ status: Schema.Literal("UP", "DOWN"), details: Schema.optional(Schema.Unknown) }) })
})

export const LoggerLevel = Schema.Literal("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF")
export const Loggers = Schema.Struct({
  levels: Schema.Array(LoggerLevel),
  loggers: Schema.Record({ key: Schema.String, value: Schema.Struct({ configuredLevel: Schema.NullOr(LoggerLevel), effectiveLevel: LoggerLevel }) })
})

export class ActuatorGroup extends HttpApiGroup.make("actuator")
  .add(HttpApiEndpoint.get("health", "/actuator/health").addSuccess(HealthStatus).addError(HealthStatus, { status: 503 }))
  .add(HttpApiEndpoint.get("info", "/actuator/info").addSuccess(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
  .add(HttpApiEndpoint.get("loggers", "/actuator/loggers").addSuccess(Loggers))
  .add(
    HttpApiEndpoint.post("setLogger", "/actuator/loggers/:name")
      .setPath(Schema.Struct({ name: Schema.String }))
      .setPayload(Schema.Struct({ configuredLevel: Schema.NullOr(LoggerLevel) }))
      .addSuccess(NoContent)
      .annotate(OpenApi.Description, "Changes a logger's level at run time (the root logger is 'ROOT'); null resets it.")
  )
  .addError(GatewayErrors.MissingTenant)
  .addError(GatewayErrors.MissingUser)
  .addError(GatewayErrors.Unauthorized)
  .addError(GatewayErrors.Forbidden)
{}

export class UsersGroup extends HttpApiGroup.make("users")
  .add(HttpApiEndpoint.get("details", "/users/details").addSuccess(UserDetails))
  .middleware(UserAuthentication)
  .prefix("/api/v1")
{}

const providerId = HttpApiSchema.param("id", Schema.String)
const typeName = HttpApiSchema.param("name", Schema.String)

export class AdminLlmGroup extends HttpApiGroup.make("adminLlm")
  .add(HttpApiEndpoint.get("types", "/providers").addSuccess(Schema.Array(Schema.String)))
  .add(HttpApiEndpoint.get("extraParams")`/providers/${typeName}/extra-params`.addSuccess(Schema.Array(ExtraParamDescriptor)))
  .add(HttpApiEndpoint.get("list", "/provider-conf").addSuccess(Schema.Array(ProviderConfigView)))
  .add(HttpApiEndpoint.get("get")`/provider-conf/${providerId}`.addSuccess(ProviderConfigView))
  .add(HttpApiEndpoint.post("create", "/provider-conf").setPayload(ProviderConfigInput).addSuccess(ProviderConfigView, { status: 201 }))
  .add(HttpApiEndpoint.put("update")`/provider-conf/${providerId}`.setPayload(ProviderConfigInput).addSuccess(ProviderConfigView))
  .add(HttpApiEndpoint.del("remove")`/provider-conf/${providerId}`.addSuccess(NoContent))
  .addError(GatewayErrors.BadRequest)
  .addError(GatewayErrors.LlmProviderNotFound)
  .addError(GatewayErrors.Conflict)
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin/llm")
{}

export class GatewayApi extends HttpApi.make("gateway")
  .add(ActuatorGroup)
  .add(UsersGroup)
  .add(AdminLlmGroup)
  .addError(GatewayErrors.BadRequest)
  .addError(GatewayErrors.InternalError)
  .annotate(OpenApi.Title, "AI gateway")
  .annotate(OpenApi.Version, "2026.2.0")
{}

/** Answers the HTTP layer makes itself (unknown route, unreadable body) in the gateway's error body. */
export const gatewayErrorShape: ErrorShape = (status, kind, message) => ({
  code: kind === "notFound" ? "RESOURCE_NOT_FOUND" : kind === "badRequest" || kind === "decode" ? "BAD_REQUEST" : status === 405 ? "NOT_IMPLEMENTED" : "INTERNAL_ERROR",
  message,
  status
})
