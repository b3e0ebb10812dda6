import type { HttpServerRequest } from "@effect/platform"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { BadRequest } from "../../schemas/gateway/GatewayErrors.ts"
import { Prompts } from "../../services/gateway/prompts/Prompts.ts"
import { Templates } from "../../services/gateway/prompts/Templates.ts"
import { GatewayApi } from "./Api.ts"

const variablesFrom = (text: string, where: string) => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return Effect.fail(
      new BadRequest({
        message: `The variables in ${where} are not JSON: ${error instanceof Error ? error.message : String(error)}`
      })
    )
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

export const AdminPromptsHttpLive = HttpApiBuilder.group(
  GatewayApi,
  "adminPrompts",
  (handlers) =>
    Effect.gen(function*() {
      const prompts = yield* Prompts
      return handlers
        .handle("list", () => prompts.list())
        .handle("create", ({ payload }) => prompts.create(payload))
        .handle("categories", () => prompts.categories())
        .handle("get", ({ path }) => prompts.get(path.id))
        .handle("remove", ({ path }) => prompts.remove(path.id))
        .handle("usage", ({ path }) => prompts.usage(path.id))
        .handle("statistics", ({ path }) => prompts.statistics(path.id))
        .handle("render", ({ path, request, urlParams }) =>
          renderVariables(request, urlParams.variables).pipe(
            Effect.flatMap((variables) => prompts.render(path.id, urlParams.version, variables))
          ))
        .handle("versions", ({ path }) => prompts.versions(path.id))
        .handle("createDraft", ({ path, payload }) => prompts.createDraft(path.id, payload))
        .handle("version", ({ path }) => prompts.version(path.id, path.version))
        .handle("updateVersion", ({ path, payload }) => prompts.updateVersion(path.id, path.version, payload))
        .handle("discardDraft", ({ path }) => prompts.discardDraft(path.id, path.version))
        .handle("versionStatistics", ({ path }) => prompts.versionStatistics(path.id, path.version))
    })
)

export const AdminTemplatingHttpLive = HttpApiBuilder.group(
  GatewayApi,
  "adminTemplating",
  (handlers) =>
    Effect.gen(function*() {
      const templates = yield* Templates
      return handlers.handle("completion", () => Effect.succeed(templates.completion))
    })
)

export const PromptsHttpLive = HttpApiBuilder.group(GatewayApi, "prompts", (handlers) =>
  Effect.gen(function*() {
    const prompts = yield* Prompts
    return handlers
      .handle("available", () => prompts.available())
      .handle("display", () => prompts.display())
  }))
