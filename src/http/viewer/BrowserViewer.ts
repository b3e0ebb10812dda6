/**
 * The browser viewer as the viewer service serves it: the full page at `/` (`/?uuid=<id>`, where the
 * contract's mergeDocumentsServlet sends people) and the bundle built from web/ at `/assets/…`
 * (scripts/build-web.mjs, run by setup). Outside the servlets' base path, as the contract places it.
 * Cross-origin embedding is allowed for the origins of VIEWER_ALLOWED_ORIGINS (docs/viewer.md).
 */
import type { HttpApp } from "@effect/platform"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Config, Effect } from "effect"
import { fileURLToPath } from "node:url"
import { BUILT_FILE_TYPES, readBuiltFile } from "../../services/common/BuiltFiles.ts"
import { builtFileResponse } from "../common/BuiltFileResponse.ts"

const PAGE = fileURLToPath(new URL("../../../web/viewer/index.html", import.meta.url))
const ASSETS = fileURLToPath(new URL("../../../web/dist/", import.meta.url))

/** Origins allowed to embed the element from another site; none by default (same origin only). */
export const allowedOriginsConfig = Config.array(Config.string(), "VIEWER_ALLOWED_ORIGINS").pipe(
  Config.map((origins) => origins.map((origin) => origin.trim().replace(/\/+$/, "")).filter((o) => o !== "")),
  Config.withDefault([])
)

const notBuilt = HttpServerResponse.unsafeJson(
  {
    _tag: "BrowserViewerNotBuilt",
    message: "The browser viewer is not built: run `npm run setup` (it bundles web/ into web/dist/)"
  },
  { status: 503 }
)

/** Serves the page and its assets before the servlets; everything else goes on to `app`. */
export const browserViewer = (servletBase: string, allowedOrigins: ReadonlyArray<string>) => {
  const service = `${servletBase}/`
  const page = (bytes: Buffer) => new TextEncoder().encode(bytes.toString("utf8").replaceAll("{{SERVICE}}", service))
  return (app: HttpApp.Default): HttpApp.Default => {
    const withCors = allowedOrigins.length === 0
      ? app
      : HttpMiddleware.cors({ allowedOrigins, credentials: true, exposedHeaders: ["content-disposition"] })(app)
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = request.url.split("?")[0]!
      if (request.method !== "GET" && request.method !== "HEAD") return yield* withCors
      if (path === "/" || path === "/index.html") {
        const file = yield* Effect.promise(() => readBuiltFile(PAGE, page))
        return builtFileResponse(request.headers["if-none-match"], file, "text/html; charset=utf-8")
      }
      const asset = /^\/assets\/([A-Za-z0-9_-][A-Za-z0-9_.-]*)$/.exec(path)?.[1]
      if (asset === undefined) return yield* withCors
      const type = BUILT_FILE_TYPES[asset.split(".").pop()!]
      if (type === undefined) return HttpServerResponse.empty({ status: 404 })
      const file = yield* Effect.tryPromise(() => readBuiltFile(`${ASSETS}${asset}`)).pipe(Effect.option)
      if (file._tag === "None") {
        return asset === "docstack-viewer.js"
          ? notBuilt
          : HttpServerResponse.empty({ status: 404 })
      }
      // Static and public: any page may load the bundle (a module script is fetched with CORS).
      return HttpServerResponse.setHeader(
        builtFileResponse(request.headers["if-none-match"], file.value, type),
        "access-control-allow-origin",
        "*"
      )
    })
  }
}
