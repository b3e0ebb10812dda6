/**
 * The browser viewer as the viewer service serves it: the full page with the servlets' base path
 * written in, the bundle revalidated by ETag, and cross-origin calls allowed only for the origins of
 * VIEWER_ALLOWED_ORIGINS.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ViewerUrl } from "../../src/layers/Test.ts"
import { call } from "../support/http.ts"
import { builtBundle } from "../web/viewer-tab.ts"
import { viewerAndBroker } from "./support.ts"

const settings = { VIEWER_BASE_PATH: "/docs/", VIEWER_ALLOWED_ORIGINS: "https://ecm.example, https://case.example/" }

layer(viewerAndBroker(settings), { timeout: 120_000 })("the browser viewer's files", (it) => {
  it.effect("serves the full page at / with the servlets' base path, and the bundle with its ETag", () =>
    Effect.gen(function*() {
      yield* builtBundle
      const base = yield* ViewerUrl
      const page = yield* call(`${base}/?uuid=b64_x`)
      expect(page.status).toBe(200)
      expect(page.contentType).toBe("text/html; charset=utf-8")
      expect(page.text).toContain(`<docstack-viewer from-location service="/docs/">`)
      expect(page.text).toContain(`src="assets/docstack-viewer.js"`)

      const bundle = yield* call(`${base}/assets/docstack-viewer.js`)
      expect(bundle.status).toBe(200)
      expect(bundle.contentType).toBe("text/javascript; charset=utf-8")
      expect(bundle.text).toContain("docstack-viewer")
      expect(bundle.headers.get("access-control-allow-origin")).toBe("*")
      const etag = bundle.headers.get("etag")!
      const again = yield* call(`${base}/assets/docstack-viewer.js`, { headers: { "if-none-match": etag } })
      expect(again.status).toBe(304)
      expect(again.bytes.length).toBe(0)

      // Only the bundle's own files: no path leaves web/dist/, other types are not served.
      expect((yield* call(`${base}/assets/..%2F..%2Fpackage.json`)).status).toBe(404)
      expect((yield* call(`${base}/assets/nothing.js`)).status).toBe(404)
      expect((yield* call(`${base}/assets/docstack-viewer.exe`)).status).toBe(404)
    }))

  it.effect("answers CORS with credentials for an allowed origin, and nothing for another", () =>
    Effect.gen(function*() {
      const base = yield* ViewerUrl
      const preflight = yield* call(`${base}/docs/documentLayout?uuid=b64_x`, {
        method: "OPTIONS",
        headers: { origin: "https://case.example", "access-control-request-method": "GET" }
      })
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get("access-control-allow-origin")).toBe("https://case.example")
      expect(preflight.headers.get("access-control-allow-credentials")).toBe("true")

      const allowed = yield* call(`${base}/docs/version`, { headers: { origin: "https://ecm.example" } })
      expect(allowed.status).toBe(200)
      expect(allowed.headers.get("access-control-allow-origin")).toBe("https://ecm.example")

      const other = yield* call(`${base}/docs/version`, { headers: { origin: "https://evil.example" } })
      expect(other.status).toBe(200)
      expect(other.headers.get("access-control-allow-origin")).toBeNull()
    }))
})
