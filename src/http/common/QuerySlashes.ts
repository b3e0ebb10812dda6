/**
 * The router folds `//` into `/` in the whole URL, query included (find-my-way's
 * ignoreDuplicateSlashes, as @effect/platform configures it), so an unencoded value such as
 * `url=http://host/a.pdf` or `nodeRef=workspace://SpacesStore/…` arrived as `http:/host/a.pdf`.
 * Slashes of the query are percent-encoded before the router sees them; the query decoder turns them
 * back, so every value arrives as it was sent.
 */
import type { HttpApp } from "@effect/platform"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"

export const keepQuerySlashes = (app: HttpApp.Default): HttpApp.Default =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const query = request.url.indexOf("?")
    if (query < 0 || !request.url.includes("//", query)) return app
    const url = request.url.slice(0, query) + request.url.slice(query).replaceAll("/", "%2F")
    return Effect.provideService(app, HttpServerRequest.HttpServerRequest, request.modify({ url }))
  })
