import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Scripts } from "../../services/gateway/scripts/Scripts.ts"
import { holdsCurrent } from "../common/EntityTags.ts"
import { GatewayApi } from "./Api.ts"

const JAVASCRIPT = "application/javascript; charset=utf-8"

export const AdminScriptsHttpLive = HttpApiBuilder.group(
  GatewayApi,
  "adminScripts",
  (handlers) =>
    Effect.gen(function*() {
      const scripts = yield* Scripts
      return handlers
        .handle("list", () => scripts.list())
        .handle("get", ({ path }) => scripts.get(path.id))
        .handle("create", ({ payload }) => scripts.create(payload))
        .handle("update", ({ path, payload }) => scripts.setDraft(path.id, payload.draftContent))
        .handle("scan", ({ path }) => scripts.scan(path.id))
        .handle("publish", ({ path }) => scripts.publish(path.id))
        .handle("forcePublish", ({ path }) => scripts.forcePublish(path.id))
        .handle("discardDraft", ({ path }) => scripts.discardDraft(path.id))
        .handle("remove", ({ path }) => scripts.remove(path.id))
    })
)

export const ScriptsHttpLive = HttpApiBuilder.group(GatewayApi, "scripts", (handlers) =>
  Effect.gen(function*() {
    const scripts = yield* Scripts
    return handlers
      .handle("deployed", ({ headers, path }) =>
        scripts.deployed(path.id).pipe(Effect.map(({ content, etag }) =>
          // Pages revalidate on every load: a publish changes the content under the same URL.
          holdsCurrent(headers["if-none-match"], etag)
            ? HttpServerResponse.empty({ status: 304, headers: { etag, "cache-control": "no-cache" } })
            : HttpServerResponse.text(content, {
              contentType: JAVASCRIPT,
              headers: { etag, "cache-control": "no-cache", "x-content-type-options": "nosniff" }
            })
        )))
      .handle("draft", ({ path }) =>
        scripts.draft(path.id).pipe(Effect.map((content) =>
          HttpServerResponse.text(content, {
            contentType: JAVASCRIPT,
            headers: { "cache-control": "no-store", "x-content-type-options": "nosniff" }
          })
        )))
  }))
