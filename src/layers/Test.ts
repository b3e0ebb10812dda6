/**
 * The broker for tests: the real application on an ephemeral loopback port, a fresh data directory,
 * configuration from a map. PostgreSQL when DATABASE_URL is given (in a schema of its own, so that
 * brokers of different tests never take each other's orders), PGlite otherwise.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Clock, ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { BrokerApp, BrokerServicesLive } from "./Broker.ts"
import { GatewayApp, GatewayServicesLive } from "./Gateway.ts"
import { InfrastructureLive, PlatformLive } from "./Infrastructure.ts"
import { ProviderApp, ProviderServicesLive } from "./Provider.ts"
import { ViewerApp, ViewerServicesLive } from "./Viewer.ts"

/** Where the broker under test answers, e.g. `http://127.0.0.1:41234`. */
export class BrokerUrl extends Context.Tag("test/BrokerUrl")<BrokerUrl, string>() {}

export const newDataDir = () => mkdtempSync(path.join(tmpdir(), "docstack-test-"))

const withPg = <A>(url: string, statement: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.scoped(
    Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })).pipe(
      Effect.flatMap((context) => statement(Context.get(context, PgClient.PgClient)))
    )
  ).pipe(Effect.orDie)

/**
 * A new, empty schema in the database at `url`, and the URL that works in it (PostgreSQL's
 * `options=-c search_path=…`). The schema is dropped when the scope closes.
 */
export const isolatedDatabaseUrl = (url: string) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const schema = `test_${randomBytes(6).toString("hex")}`
      yield* withPg(url, (sql) => sql`CREATE SCHEMA ${sql(schema)}`)
      const separator = url.includes("?") ? "&" : "?"
      return { schema, url: `${url}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}` }
    }),
    ({ schema }) => withPg(url, (sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`)
  )

/** Where the gateway under test answers. */
export class GatewayUrl extends Context.Tag("test/GatewayUrl")<GatewayUrl, string>() {}

/** Where the viewer under test answers (its servlets are under VIEWER_BASE_PATH, /viewergwt/ by default). */
export class ViewerUrl extends Context.Tag("test/ViewerUrl")<ViewerUrl, string>() {}

/** Where the reference provider under test answers. */
export class ProviderUrl extends Context.Tag("test/ProviderUrl")<ProviderUrl, string>() {}

/**
 * A service's HTTP application with its services on an ephemeral loopback port, configured from a
 * map, with `Url` answering its address; the services are in the layer's output too.
 */
const serveForTest = <I, RApp, S, RServices, RInfrastructure>(
  app: Layer.Layer<never, unknown, RApp>,
  services: Layer.Layer<S, unknown, RServices>,
  Url: Context.Tag<I, string>,
  config: Readonly<Record<string, string>>,
  infrastructure: Layer.Layer<RInfrastructure, unknown>
) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    // A URL that already names its schema is kept: a test restarting a service passes the same one twice.
    const database = config.DATABASE_URL === undefined || config.DATABASE_URL.includes("search_path")
      ? config.DATABASE_URL
      : (yield* isolatedDatabaseUrl(config.DATABASE_URL)).url
    const settings = new Map<string, string>([
      ["DATA_DIR", config.DATA_DIR ?? newDataDir()],
      ["HEALTH_CHECK_INTERVAL", "200 millis"],
      ...Object.entries(config),
      ...(database === undefined ? [] : [["DATABASE_URL", database] as const])
    ])
    const url = Layer.effect(
      Url,
      HttpServer.HttpServer.pipe(
        Effect.map((server) => `http://127.0.0.1:${(server.address as HttpServer.TcpAddress).port}`)
      )
    )
    // The services (and the SQL client) are given to the tests too, for what has no endpoint of its own.
    return Layer.provideMerge(url, app.pipe(Layer.provideMerge(services), Layer.provideMerge(NodeHttpServer.layerTest)))
      .pipe(
        Layer.provideMerge(infrastructure),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(settings))),
        // A real server on real time, even inside a test's environment: its timeouts, polls and leases must fire.
        Layer.provide(Layer.setClock(Clock.make()))
      )
  }))

export const brokerTestLayer = (config: Readonly<Record<string, string>> = {}) =>
  serveForTest(BrokerApp, BrokerServicesLive, BrokerUrl, config, InfrastructureLive)

export const gatewayTestLayer = (config: Readonly<Record<string, string>> = {}) =>
  serveForTest(GatewayApp, GatewayServicesLive, GatewayUrl, config, InfrastructureLive)

/** The reference provider, without a database; give it PROVIDER_ROOT (a temporary folder of the test's files). */
export const providerTestLayer = (config: Readonly<Record<string, string>> = {}) =>
  serveForTest(ProviderApp, ProviderServicesLive, ProviderUrl, config, PlatformLive)

/** The viewer; give it RENDITION_TARGETS (the brokers under test). */
export const viewerTestLayer = (config: Readonly<Record<string, string>> = {}) =>
  serveForTest(ViewerApp, ViewerServicesLive, ViewerUrl, config, InfrastructureLive)
