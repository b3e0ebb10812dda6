/**
 * Administration endpoints: readiness (ready and not), health records, versions, metadata, weather, admin page.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call } from "../../support/http.ts"
import { pollUntil } from "../../support/polling.ts"

describe("administration", () => {
  layer(brokerTestLayer(defaultBackend.config), { timeout: 120_000 })("a healthy broker", (it) => {
    it.effect("is ready, and says so in its health records", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const ready = yield* pollUntil(call(`${base}/health/readiness`), (r) => r.status === 200)
        expect(ready.status).toBe(200)
        expect(ready.text).toBe("")
        const raw = yield* call(`${base}/health/records/raw`)
        expect(Object.keys(raw.json.serviceStates).sort()).toEqual([
          "database",
          "document-converter",
          "document-renderer",
          "document-text-handler"
        ])
        for (const state of Object.values(raw.json.serviceStates)) {
          expect(state).toEqual({ serviceStatus: "UP", restarted: false })
        }
        const html = yield* call(`${base}/health/records`)
        expect(html.headers.get("content-type")).toContain("text/html")
        expect(html.text).toContain("document-renderer")
        expect(html.text).toContain(">UP<")
      }))

    it.effect("reports versions, metadata and a load score", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const versions = (yield* call(`${base}/version`)).json
        expect(versions).toMatchObject({
          broker: "0.1.0",
          "pdfjs-dist": expect.stringMatching(/^5\.6\./),
          "@embedpdf/pdfium": "2.15.1",
          node: process.versions.node
        })
        expect(versions.database).toMatch(/PostgreSQL/)
        const metadata = (yield* call(`${base}/metadata`)).json
        expect(metadata["broker.version"]).toBe("0.1.0")
        expect(Number(metadata["broker.uptime"])).toBeGreaterThanOrEqual(0)
        const weather = yield* call(`${base}/weather`)
        expect(weather.headers.get("content-type")).toContain("text/plain")
        expect(Number.parseFloat(weather.text)).toBeGreaterThanOrEqual(0)
        const admin = yield* call(`${base}/admin`)
        expect(admin.status).toBe(200)
        expect(admin.text).toContain("<title>Broker administration</title>")
      }))
  })

  // A renderer that cannot produce even the probe's tiny image is a broker that must not get traffic.
  layer(brokerTestLayer({ ...defaultBackend.config, MAX_IMAGE_PIXELS: "10" }), { timeout: 120_000 })(
    "a broker whose renderer fails",
    (it) => {
      it.effect("answers 503 on readiness and shows the component DOWN", () =>
        Effect.gen(function*() {
          const base = yield* BrokerUrl
          const raw = yield* pollUntil(
            call(`${base}/health/records/raw`),
            (r) => r.json?.serviceStates?.["document-renderer"] !== undefined
          )
          expect(raw.json.serviceStates["document-renderer"].serviceStatus).toBe("DOWN")
          expect(raw.json.serviceStates["document-text-handler"].serviceStatus).toBe("UP")
          const readiness = yield* call(`${base}/health/readiness`)
          expect(readiness.status).toBe(503)
          expect(readiness.json).toMatchObject({ _tag: "BrokerNotReady" })
        }))
    }
  )
})
