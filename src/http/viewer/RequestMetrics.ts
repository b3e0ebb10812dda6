/**
 * Every request counted and timed per servlet (ViewerMetrics, exposed by GET prometheus). The
 * servlet is the path after the base path; an unknown path counts as `other`, so that a scan of
 * random paths cannot make a series per path.
 */
import type { HttpApp } from "@effect/platform"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Exit } from "effect"
import type { ViewerMetrics } from "../../services/viewer/metrics/ViewerMetrics.ts"

export const requestMetrics =
  (metrics: ViewerMetrics, basePath: string, servlets: ReadonlySet<string>) =>
  (app: HttpApp.Default): HttpApp.Default =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = request.url.split("?")[0]!
      const relative = path.startsWith(basePath) ? path.slice(basePath.length) : path
      const servlet = servlets.has(relative) ? relative : "other"
      const started = performance.now()
      const exit = yield* Effect.exit(app)
      // A failure here is still answered (a route not found is a 404): counted with the status it gets.
      const status = Exit.isSuccess(exit)
        ? exit.value.status
        : HttpServerError.causeResponseStripped(exit.cause)[0].status
      metrics.request(servlet, status, (performance.now() - started) / 1000)
      return yield* exit
    })
