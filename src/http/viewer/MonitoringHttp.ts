import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Monitoring } from "../../services/viewer/monitoring/Monitoring.ts"
import type { ViewerApi } from "./Api.ts"
import { bodyText } from "./RawBody.ts"

const html = (text: string) =>
  HttpServerResponse.text(text, { contentType: "text/html; charset=utf-8", headers: { "cache-control": "no-store" } })

/** The viewer's base URL as the browser reached it (behind a proxy, as the proxy says). */
const selfUrl = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const proto = request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() || "http"
  const host = request.headers["x-forwarded-host"]?.split(",")[0]?.trim() || request.headers.host || "localhost"
  const path = request.url.split("?")[0]!.replace(/health\/records$/, "")
  return `${proto}://${host}${path}`
})

export const MonitoringHttp = (api: typeof ViewerApi) =>
  HttpApiBuilder.group(api, "monitoring", (handlers) =>
    Effect.gen(function*() {
      const monitoring = yield* Monitoring
      return handlers
        .handle("version", () => Effect.succeed(monitoring.version))
        .handle("healthRecords", ({ urlParams }) =>
          Effect.flatMap(selfUrl, (url) =>
            monitoring.health(urlParams.check ?? "SELF", url)).pipe(Effect.map(html)))
        .handle("prometheus", () =>
          Effect.map(monitoring.prometheus, ({ contentType, text }) =>
            HttpServerResponse.text(text, { contentType })))
        // format empty or HTML (any case): the page; any other value: JSON.
        .handle("weather", ({ urlParams }) =>
          (urlParams.format ?? "").trim() === "" || urlParams.format!.trim().toUpperCase() === "HTML"
            ? Effect.map(monitoring.weatherPage, html)
            : monitoring.weatherJson)
        // Raw: the list is sent with any Content-Type (curl's default is a form).
        .handleRaw("replaceTargets", ({ request }) =>
          Effect.flatMap(bodyText(request), monitoring.replaceTargets))
        .handleRaw("addTargets", ({ request }) =>
          Effect.flatMap(bodyText(request), monitoring.addTargets))
    }))
