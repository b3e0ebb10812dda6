/**
 * The viewer: every servlet of the viewer contract under VIEWER_BASE_PATH (default /viewergwt/),
 * OpenAPI at /v3/api-docs and the explorer at /swagger-ui/index.html, over brokers reached only
 * through their HttpApi (docs/viewer.md).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Config, ConfigError, Effect, Either, Layer } from "effect"
import { brokerErrorShape } from "../http/common/ErrorBodies.ts"
import { AnnotationsHttp } from "../http/viewer/AnnotationsHttp.ts"
import { ViewerApi, viewerApiAt } from "../http/viewer/Api.ts"
import { allowedOriginsConfig, browserViewer } from "../http/viewer/BrowserViewer.ts"
import { CompositeHttp } from "../http/viewer/CompositeHttp.ts"
import { ConnectorHttp } from "../http/viewer/ConnectorHttp.ts"
import { DocumentsHttp } from "../http/viewer/DocumentsHttp.ts"
import { EditingHttp } from "../http/viewer/EditingHttp.ts"
import { ImagingHttp } from "../http/viewer/ImagingHttp.ts"
import { MonitoringHttp } from "../http/viewer/MonitoringHttp.ts"
import { PrintingHttp } from "../http/viewer/PrintingHttp.ts"
import { ReaderHttp } from "../http/viewer/ReaderHttp.ts"
import { requestMetrics } from "../http/viewer/RequestMetrics.ts"
import { SessionsHttp } from "../http/viewer/SessionsHttp.ts"
import { StructureHttp } from "../http/viewer/StructureHttp.ts"
import { ViewerMetrics } from "../services/viewer/metrics/ViewerMetrics.ts"
import { ViewerServices } from "../services/viewer/ViewerServices.ts"
import { listen } from "./Listen.ts"
import { servedApi } from "./ServedApi.ts"

/** VIEWER_BASE_PATH as a route prefix: `/viewergwt/` → `/viewergwt`, `/` → none. */
export const basePathConfig = Config.string("VIEWER_BASE_PATH").pipe(
  Config.withDefault("/viewergwt/"),
  Config.mapOrFail((text) => {
    const trimmed = `/${text.trim().replace(/^\/+|\/+$/g, "")}`
    return /^\/[A-Za-z0-9._~\-/]*$/.test(trimmed) && !trimmed.includes("//")
      ? Either.right(trimmed === "/" ? "" as const : trimmed as `/${string}`)
      : Either.left(
        ConfigError.InvalidData([], `VIEWER_BASE_PATH must be a URL path such as /viewergwt/, got '${text}'`)
      )
  })
)

/** The servlets' paths relative to the base path, for the metrics' labels. */
const servletPaths = new Set(
  Object.values(ViewerApi.groups).flatMap((group) => Object.values(group.endpoints).map((endpoint) => endpoint.path))
)

/** Every service of the viewer, on the process's infrastructure (it keeps its state in the database). */
export const ViewerServicesLive = ViewerServices

/** The viewer's HTTP application, without server or services (tests serve it on an ephemeral port). */
export const ViewerApp = Layer.unwrapEffect(
  Effect.gen(function*() {
    const prefix = yield* basePathConfig
    const metrics = yield* ViewerMetrics
    const allowedOrigins = yield* allowedOriginsConfig
    const api = viewerApiAt(prefix)
    const routes = HttpApiBuilder.api(api).pipe(
      Layer.provide([
        DocumentsHttp(api),
        CompositeHttp(api),
        StructureHttp(api),
        ImagingHttp(api),
        AnnotationsHttp(api),
        PrintingHttp(api),
        MonitoringHttp(api),
        SessionsHttp(api),
        ConnectorHttp(api),
        ReaderHttp(api),
        EditingHttp(api)
      ])
    )
    return servedApi({
      api,
      // The broker's shape: errors a broker answers pass through to the browser unchanged.
      shape: brokerErrorShape,
      bodyLimit: { name: "VIEWER_MAX_JSON_BODY_BYTES", fallback: 16 * 1024 * 1024 },
      routes,
      middleware: (app) => requestMetrics(metrics, prefix, servletPaths)(browserViewer(prefix, allowedOrigins)(app))
    })
  })
)

export const ViewerLive = listen("VIEWER", 8080, ViewerApp, ViewerServicesLive)
