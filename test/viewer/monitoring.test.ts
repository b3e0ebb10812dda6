import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import {
  brokerTestLayer,
  BrokerUrl,
  isolatedDatabaseUrl,
  newDataDir,
  viewerTestLayer,
  ViewerUrl
} from "../../src/layers/Test.ts"
import { healthPage } from "../../src/services/viewer/monitoring/MonitoringPages.ts"
import { call, corpusFile, uploadOk } from "../support/http.ts"
import { sleep } from "../support/processes.ts"
import { servlet, viewerAndBroker } from "./support.ts"

const version = JSON.parse(corpusFile("../../package.json").toString("utf8")).version as string

/** Asks until `done` holds for the reply (the weather poll runs every 200 ms), at most 10 s. */
const until = <A, R>(ask: Effect.Effect<A, never, R>, done: (reply: A) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 50; i++) {
      const reply = yield* ask
      if (done(reply)) return reply
      yield* sleep(200)
    }
    return yield* ask
  })

/** A line of the exposition: `name{labels} value` with every label given, and its value. */
const sample = (exposition: string, name: string, labels: ReadonlyArray<string>) =>
  exposition.split("\n").filter((line) => line.startsWith(`${name}{`) && labels.every((l) => line.includes(l)))
    .map((line) => Number(line.slice(line.lastIndexOf(" ") + 1)))

describe("version, health/records, prometheus, weather", () => {
  it.layer(viewerAndBroker(), { timeout: 120_000 })((it) => {
    it.effect("GET version names the viewer and the package version", () =>
      Effect.gen(function*() {
        const reply = yield* servlet("version")
        expect(reply.status).toBe(200)
        expect(reply.contentType).toContain("text/plain")
        expect(reply.text).toMatch(new RegExp(`^docstack-viewer ${version.replace(/\./g, "\\.")} \\(Node\\.js v\\d+`))
      }))

    it.effect("GET health/records lists the viewer and its broker, UP with a weather score", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const reply = yield* until(servlet("health/records"), (r) => !r.text.includes("no poll yet"))
        expect(reply.status).toBe(200)
        expect(reply.contentType).toContain("text/html")
        expect(reply.text).toContain("viewer (this instance")
        const row = reply.text.split("<tr>").find((r) => r.includes(broker))!
        expect(row).toContain(`<td class="num">${new URL(broker).port}</td>`)
        expect(row).toContain(">UP<")
        expect(row).toMatch(/<td class="num">\d+\.\d{3}<\/td>/)
        expect(row).toMatch(/100\.0 % \(\d+ of \d+ polls\)/)
        expect(reply.text).not.toMatch(/<(link|script)\b|src=/)
        expect((yield* servlet("health/records?check=RENDITION")).status).toBe(200)
        expect((yield* servlet("health/records?check=OTHER")).status).toBe(400)
      }))

    it.effect("GET prometheus counts the servlets called, their latency, the broker's weather and the target cache", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const id = yield* uploadOk(broker, corpusFile("pdf/basicapi.pdf"))
        expect((yield* servlet(`imageServlet?uuid=${id}&pagePosition=0&desc=200`)).status).toBe(200)
        expect((yield* servlet(`documentLayout?uuid=${id}`)).status).toBe(200)
        expect((yield* servlet("imageServlet?uuid=b64_nothing&pagePosition=0&desc=200")).status).toBe(404)
        expect((yield* servlet("noSuchServlet")).status).toBe(404)
        const reply = yield* until(servlet("prometheus"), (r) => r.text.includes("viewer_target_weather_score{"))
        expect(reply.status).toBe(200)
        expect(reply.contentType).toContain("text/plain")
        const text = reply.text
        expect(sample(text, "viewer_requests_total", ["servlet=\"/imageServlet\"", "status=\"200\""])[0])
          .toBeGreaterThanOrEqual(1)
        expect(sample(text, "viewer_requests_total", ["servlet=\"/imageServlet\"", "status=\"404\""])[0])
          .toBeGreaterThanOrEqual(1)
        // A path no servlet answers is counted as the 404 it is, not as a server error.
        expect(sample(text, "viewer_requests_total", ["servlet=\"other\"", "status=\"404\""])[0])
          .toBeGreaterThanOrEqual(1)
        expect(sample(text, "viewer_requests_total", ["servlet=\"other\"", "status=\"500\""])).toEqual([])
        expect(sample(text, "viewer_requests_total", ["servlet=\"/documentLayout\"", "status=\"200\""])[0])
          .toBeGreaterThanOrEqual(1)
        expect(sample(text, "viewer_request_duration_seconds_count", ["servlet=\"/imageServlet\""])[0])
          .toBeGreaterThanOrEqual(2)
        expect(sample(text, "viewer_request_duration_seconds_bucket", ["servlet=\"/imageServlet\"", "le=\"+Inf\""])[0])
          .toBeGreaterThanOrEqual(2)
        expect(sample(text, "viewer_target_available", [`target="${broker}"`])).toEqual([1])
        expect(sample(text, "viewer_target_weather_score", [`target="${broker}"`])[0]).toBeGreaterThanOrEqual(0)
        // The layout call found the document's target the image call had just recorded.
        expect(sample(text, "viewer_document_target_cache_total", ["result=\"new\""])[0]).toBeGreaterThanOrEqual(1)
        expect(sample(text, "viewer_document_target_cache_total", ["result=\"hit\""])[0]).toBeGreaterThanOrEqual(1)
      }))

    it.effect("GET weather: an HTML page by default and with format=html, JSON for any other format", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        for (const query of ["", "?format=", "?format=html", "?format=HTML"]) {
          const page = yield* servlet(`weather${query}`)
          expect(page.status).toBe(200)
          expect(page.contentType).toContain("text/html")
          expect(page.text).toContain(`<td>${broker}</td>`)
        }
        const json = yield* until(servlet("weather?format=JSON"), (r) => r.json?.[0]?.checkedAt !== null)
        expect(json.contentType).toContain("application/json")
        expect(json.json).toEqual([
          {
            url: broker,
            available: true,
            score: expect.any(Number),
            checkedAt: expect.any(String),
            error: null,
            latencyMs: expect.any(Number)
          }
        ])
        expect(Date.parse(json.json[0].checkedAt)).toBeGreaterThan(Date.now() - 60_000)
      }))
  })

  // Built apart (Layer.build): two viewers in one it.layer context would share one router.
  it.scopedLive(
    "with no target answering: check=RENDITION is a 503, SELF still the page, showing it DOWN",
    () =>
      Effect.gen(function*() {
        const context = yield* Layer.build(
          viewerTestLayer({ RENDITION_TARGETS: "http://127.0.0.1:9", VIEWER_WEATHER_INTERVAL: "100 millis" })
        )
        const base = Context.get(context, ViewerUrl)
        const refused = yield* until(call(`${base}/viewergwt/health/records?check=RENDITION`), (r) => r.status === 503)
        expect(refused.status).toBe(503)
        expect(refused.json._tag).toBe("RenditionUnavailable")
        expect(refused.json.message).toContain("http://127.0.0.1:9")
        const page = yield* call(`${base}/viewergwt/health/records`)
        expect(page.status).toBe(200)
        const row = page.text.split("<tr>").find((r) => r.includes("http://127.0.0.1:9"))!
        expect(row).toContain(">DOWN<")
        expect(row).toMatch(/0\.0 % \(0 of \d+ polls\)/)
        expect(row).toMatch(/<td class="error">.+<\/td>/)
      }),
    { timeout: 60_000 }
  )

  it("escapes what the health page embeds", () => {
    const page = healthPage(
      { url: "http://viewer:8080/viewergwt/", version: "1", startedAt: 0 },
      [{
        state: {
          url: "http://b:1",
          available: false,
          score: null,
          checkedAt: 0,
          latencyMs: null,
          error: `<script>alert("x")</script>`
        },
        availability: { answered: 0, polls: 1 }
      }],
      1000
    )
    expect(page).not.toContain("<script>")
    expect(page).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;")
  })
})

/** Two brokers, each with its own database, built as the layer of the tests (as viewerAndBroker builds its one). */
class BrokerPair extends Context.Tag("test/BrokerPair")<BrokerPair, readonly [string, string]>() {}
const brokerPair = Layer.unwrapScoped(Effect.gen(function*() {
  const a = Context.get(yield* Layer.build(brokerTestLayer()), BrokerUrl)
  const b = Context.get(yield* Layer.build(brokerTestLayer()), BrokerUrl)
  return Layer.succeed(BrokerPair, [a, b] as const)
}))

describe("POST and PUT weather", () => {
  it.layer(brokerPair, { timeout: 300_000 })((it) => {
    it.effect(
      "change the targets for good: the list survives a restart and documents go to the targets listed",
      () =>
        Effect.gen(function*() {
          const [brokerA, brokerB] = yield* BrokerPair
          // The same database for both viewers: a PostgreSQL schema, or a PGlite data directory.
          const storage = process.env.DATABASE_URL
            ? { DATABASE_URL: (yield* isolatedDatabaseUrl(process.env.DATABASE_URL)).url }
            : { DATA_DIR: newDataDir() }
          const viewer = (settings: Record<string, string>) =>
            Effect.map(
              Layer.build(viewerTestLayer({ ...storage, VIEWER_WEATHER_INTERVAL: "200 millis", ...settings })),
              (context) => (path: string, init?: RequestInit) =>
                call(`${Context.get(context, ViewerUrl)}/viewergwt/${path}`, init)
            )
          const targets = (ask: ReturnType<typeof call>) =>
            Effect.map(ask, (reply) => reply.json.map((t: { url: string }) => t.url))

          yield* Effect.scoped(Effect.gen(function*() {
            const first = yield* viewer({ RENDITION_TARGETS: brokerA })
            expect(yield* targets(first("weather?format=json"))).toEqual([brokerA])
            const replaced = yield* first("weather", { method: "POST", body: `{[ "${brokerB}/" ]}` })
            expect([replaced.status, replaced.text]).toEqual([200, "OK"])
            const bad = yield* first("weather", { method: "PUT", body: "http://broker-c:8761" })
            expect(bad.status).toBe(400)
            expect(bad.json.message).toContain("{[http://broker-a:8761, http://broker-b:8761]}")
            expect(yield* targets(first("weather?format=json"))).toEqual([brokerB])
          }))

          // Started again with RENDITION_TARGETS still naming A: the stored list wins.
          const second = yield* viewer({ RENDITION_TARGETS: brokerA })
          expect(yield* targets(second("weather?format=json"))).toEqual([brokerB])
          const onB = yield* uploadOk(brokerB, corpusFile("pdf/basicapi.pdf"))
          const onA = yield* uploadOk(brokerA, corpusFile("pdf/tracemonkey.pdf"))
          expect((yield* second(`imageServlet?uuid=${onB}&pagePosition=0&desc=100`)).status).toBe(200)
          // A's document is out of reach: B, the only target, does not have it.
          expect((yield* second(`imageServlet?uuid=${onA}&pagePosition=0&desc=100`)).status).toBe(404)

          const added = yield* second("weather", {
            method: "PUT",
            // As curl --data sends it: the list is read as text whatever the type says.
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: `{[${brokerA}, ${brokerB}]}`
          })
          expect([added.status, added.text]).toEqual([200, "OK"])
          const weather = yield* second("weather?format=json")
          expect(weather.json.map((t: { url: string }) => t.url)).toEqual([brokerB, brokerA])
          // Polled at once after the change: both answered.
          expect(
            weather.json.every((t: { checkedAt: string | null; available: boolean }) =>
              t.checkedAt !== null && t.available
            )
          )
            .toBe(true)
        }).pipe(Effect.scoped)
    )
  })
})
