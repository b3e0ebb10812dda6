/**
 * A viewer in front of real brokers, each on its own loopback port, talking over HTTP as in
 * production (and a reference provider behind the brokers where a test needs one).
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { Clock, ConfigProvider, Context, Effect, Layer } from "effect"
import type { InfrastructureLive } from "../../src/layers/Infrastructure.ts"
import {
  brokerTestLayer,
  BrokerUrl,
  providerTestLayer,
  ProviderUrl,
  viewerTestLayer,
  ViewerUrl
} from "../../src/layers/Test.ts"
import { ViewerApp, ViewerServicesLive } from "../../src/layers/Viewer.ts"
import { call } from "../support/http.ts"

/** A broker (with `brokerSettings`) and a viewer whose only rendition target it is. */
export const viewerAndBroker = (
  viewerSettings: Readonly<Record<string, string>> = {},
  brokerSettings: Readonly<Record<string, string>> = {}
) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      // Built apart: two HTTP applications in one context would share one router.
      const broker = Context.get(yield* Layer.build(brokerTestLayer(brokerSettings)), BrokerUrl)
      return Layer.merge(
        viewerTestLayer({ RENDITION_TARGETS: broker, VIEWER_WEATHER_INTERVAL: "200 millis", ...viewerSettings }),
        Layer.succeed(BrokerUrl, broker)
      )
    })
  )

/** A servlet of the viewer under test: `servlet("imageServlet?uuid=…")`. */
export const servlet = (pathAndQuery: string, init?: RequestInit) =>
  Effect.flatMap(ViewerUrl, (base) => call(`${base}/viewergwt/${pathAndQuery}`, init))

/**
 * The reference provider serving `root`, a broker calling it (as `filesystem`, its default
 * provider) with `brokerSettings`, and a viewer in front of the broker.
 */
export const viewerBrokerAndProvider = (
  root: string,
  viewerSettings: Readonly<Record<string, string>> = {},
  brokerSettings: Readonly<Record<string, string>> = {}
) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const provider = Context.get(yield* Layer.build(providerTestLayer({ PROVIDER_ROOT: root })), ProviderUrl)
      return Layer.merge(
        viewerAndBroker(viewerSettings, {
          PROVIDERS: JSON.stringify({ filesystem: { url: provider } }),
          ...brokerSettings
        }),
        Layer.succeed(ProviderUrl, provider)
      )
    })
  )

/**
 * Another viewer instance on the database of the viewer under test (its SQL client, as two
 * processes share one PostgreSQL: PGlite cannot be opened twice), with services and a server of its
 * own, as behind a load balancer without sticky sessions; answers its URL. Give it the first one's
 * RENDITION_TARGETS and ID settings.
 */
export const anotherViewer = (settings: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const infrastructure = yield* Effect.context<Layer.Layer.Success<typeof InfrastructureLive>>()
    const served = ViewerApp.pipe(
      Layer.provideMerge(ViewerServicesLive),
      Layer.provideMerge(NodeHttpServer.layerTest),
      Layer.provide(Layer.succeedContext(infrastructure)),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings))))),
      Layer.provide(Layer.setClock(Clock.make()))
    )
    const server = Context.get(yield* Layer.build(served), HttpServer.HttpServer)
    return `http://127.0.0.1:${(server.address as HttpServer.TcpAddress).port}`
  })
