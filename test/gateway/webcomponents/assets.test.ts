/**
 * The web components' files at /api/web-components/…: the spec's six names, what the bundles load
 * beside them, revalidation with ETags, and nothing outside the built folder.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { buildWeb } from "../../../scripts/build-web.mjs"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { expectErrorBody } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"

layer(gatewayTestLayer(defaultBackend.config), { timeout: 60_000 })("web component files", (it) => {
  it.effect("serves each bundle and stylesheet by the spec's name, publicly, with an ETag", () =>
    Effect.gen(function*() {
      yield* Effect.promise(() => buildWeb())
      const base = yield* GatewayUrl
      for (const name of ["chat", "quick-prompt", "admin"]) {
        const script = yield* call(`${base}/api/web-components/${name}/script`)
        expect(script.status).toBe(200)
        expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
        expect(script.text).toContain("docstack-")
        const style = yield* call(`${base}/api/web-components/${name}/style`)
        expect([style.status, style.headers.get("content-type")]).toEqual([200, "text/css; charset=utf-8"])
        const etag = script.headers.get("etag")!
        const again = yield* call(`${base}/api/web-components/${name}/script`, { headers: { "if-none-match": etag } })
        expect(again.status).toBe(304)
      }
    }))

  it.effect("serves the chunk the bundles import and their source maps, relative to the script's address", () =>
    Effect.gen(function*() {
      yield* Effect.promise(() => buildWeb())
      const base = yield* GatewayUrl
      const script = (yield* call(`${base}/api/web-components/chat/script`)).text
      const chunk = /from"(\.\.\/chunks\/chunk-[A-Z0-9]+\.js)"/.exec(script)![1]!
      const imported = yield* call(new URL(chunk, `${base}/api/web-components/chat/script`).href)
      expect([imported.status, imported.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"])
      const map = /sourceMappingURL=(\S+)/.exec(script)![1]!
      const sourceMap = yield* call(new URL(map, `${base}/api/web-components/chat/script`).href)
      expect(sourceMap.status).toBe(200)
      expect(sourceMap.json.sources.some((s: string) => s.endsWith("gateway/chat/ChatElement.ts"))).toBe(true)
    }))

  it.effect("answers 404 for anything else, and for paths that climb out of the folder", () =>
    Effect.gen(function*() {
      const base = yield* GatewayUrl
      for (
        const path of [
          "chat/scripts",
          "nothing/script",
          "chat/..%2F..%2F..%2Fpackage.json",
          "..%2F..%2Fpackage.json",
          ".hidden.js"
        ]
      ) {
        expectErrorBody(yield* call(`${base}/api/web-components/${path}`), 404, "NOT_FOUND")
      }
    }))
})
