import { HttpApiBuilder, type HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { BadRequest } from "../../schemas/gateway/GatewayErrors.ts"
import { CurrentPrincipal } from "../../schemas/gateway/Tenancy.ts"
import { Prompts } from "../../services/gateway/prompts/Prompts.ts"
import { Templates } from "../../services/gateway/prompts/Templates.ts"
import { GatewayApi } from "./Api.ts"

const tenant = CurrentPrincipal.pipe(Effect.map((principal) => principal.tenantId))

const variablesFrom = (text: string, where: string) => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return Effect.fail(new BadRequest({ message: `The variables in ${where} are not JSON: ${error instanceof Error ? error.message : String(error)}` }))
  }
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
    ? Effect.succeed(parsed as Record<string, unknown>)
    : Effect.fail(new BadRequest({ message: `The variables in ${where} must be a JSON object of names to values` }))
}

/**
 * The render endpoint's variables: a JSON object sent as the body of the GET (HttpApi decodes a
 * GET's payload from the query, so the body is read here), else the query parameter `variables`.
 */
const renderVariables = (request: HttpServerRequest.HttpServerRequest, query: string | undefined) =>
  request.text.pipe(
    Effect.mapError(() => new BadRequest({ message: "The request body could not be read" })),
    Effect.flatMap((body) =>
      body.trim() !== ""
        ? variablesFrom(body, "the body")
        : query !== undefined && query.trim() !== ""
        ? variablesFrom(query, "the query parameter 'variables'")
        : Effect.succeed({})
    )
  )

export const AdminPromptsHttpLive = HttpApiBuilder.group(GatewayApi, "adminPrompts", (handlers) =>
  Effect.gen(function*() {
    const prompts = yield* Prompts
    return handlers
      .handle("list", () => tenant.pipe(Effect.flatMap(prompts.list)))
      .handle("create", ({ payload }) => tenant.pipe(Effect.flatMap((tenantId) => prompts.create(tenantId, payload))))
      .handle("categories", () => tenant.pipe(Effect.flatMap(prompts.categories)))
      .handle("get", ({ path }) => tenant.pipe(Effect.flatMap((tenantId) => prompts.get(tenantId, path.id))))
      .handle("remove", ({ path }) => tenant.pipe(Effect.flatMap((tenantId) => prompts.remove(tenantId, path.id))))
      .handle("usage", ({ path }) => tenant.pipe(Effect.flatMap((tenantId) => prompts.usage(tenantId, path.id))))
      .handle("statistics", ({ path }) => tenant.pipe(Effect.flatMap((tenantId) => prompts.statistics(tenantId, path.id))))
      .handle("render", ({ path, request, urlParams }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const variables = yield* renderVariables(request, urlParams.variables)
          return yield* prompts.render(principal.tenantId, path.id, urlParams.version, variables, principal)
        }))
      .handle("versions", ({ path }) => tenant.pipe(Effect.flatMap((tenantId) => prompts.versions(tenantId, path.id))))
      .handle("createDraft", ({ path, payload }) => tenant.pipe(Effect.flatMap((tenantId) => prompts.createDraft(tenantId, path.id, payload))))
      .handle("version", ({ path }) => tenant.pipe(Effect.flatMap((tenantId) => prompts.version(tenantId, path.id, path.version))))
      .handle("updateVersion", ({ path, payload }) =>
        tenant.pipe(Effect.flatMap((tenantId) => prompts.updateVersion(tenantId, path.id, path.version, payload))))
      .handle("discardDraft", ({ path }) => tenant.pipe(Effect.flatMap((tenantId) => prompts.discardDraft(tenantId, path.id, path.version))))
      .handle("versionStatistics", ({ path }) =>
        tenant.pipe(Effect.flatMap((tenantId) => prompts.versionStatistics(tenantId, path.id, path.version))))
  }))

export const AdminTemplatingHttpLive = HttpApiBuilder.group(GatewayApi, "adminTemplating", (handlers) =>
  Effect.gen(function*() {
    const templates = yield* Templates
    return handlers.handle("completion", () => Effect.succeed(templates.completion))
  }))

export const PromptsHttpLive = HttpApiBuilder.group(GatewayApi, "prompts", (handlers) =>
  Effect.gen(function*() {
    const prompts = yield* Prompts
    return handlers
      .handle("available", () => tenant.pipe(Effect.flatMap(prompts.available)))
      .handle("display", () => tenant.pipe(Effect.flatMap(prompts.display)))
  }))
