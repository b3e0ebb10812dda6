/**
 * A service's HttpApi as it is served: its routes, the OpenAPI document at /v3/api-docs and the
 * explorer at /swagger-ui/index.html, every error in the service's error shape, JSON bodies within
 * their limit, each request logged, and slashes in query values kept (QuerySlashes.ts).
 */
import type { HttpApi, HttpApiGroup, HttpApp } from "@effect/platform"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiSwagger from "@effect/platform/HttpApiSwagger"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import { Effect, Layer } from "effect"
import { errorBodies, type ErrorShape, internalErrors } from "../http/common/ErrorBodies.ts"
import { keepQuerySlashes } from "../http/common/QuerySlashes.ts"
import { jsonBodyLimit, limitJsonBodies } from "../http/common/RequestLimits.ts"

export const servedApi = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R, RRoutes>(options: {
  readonly api: HttpApi.HttpApi<Id, Groups, E, R>
  readonly shape: ErrorShape
  /** The setting that bounds a JSON body, and its default. */
  readonly bodyLimit: { readonly name: string; readonly fallback: number }
  readonly routes: Layer.Layer<HttpApi.Api, never, RRoutes>
  /** Around everything else (the viewer's request metrics). */
  readonly middleware?: (app: HttpApp.Default) => HttpApp.Default
}) =>
  Layer.unwrapEffect(
    jsonBodyLimit(options.bodyLimit.name, options.bodyLimit.fallback).pipe(
      Effect.map((maxBytes) =>
        HttpApiBuilder.serve((app) => {
          const served = keepQuerySlashes(HttpMiddleware.logger(
            errorBodies(options.shape)(limitJsonBodies(options.shape, maxBytes, options.bodyLimit.name)(app))
          ))
          return options.middleware === undefined ? served : options.middleware(served)
        }).pipe(
          Layer.provide(internalErrors(options.api, options.shape)),
          Layer.provide(HttpApiSwagger.layer({ path: "/swagger-ui/index.html" })),
          Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/v3/api-docs" })),
          Layer.provide(options.routes)
        )
      )
    )
  )
