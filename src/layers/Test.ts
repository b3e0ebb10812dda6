/**
 * The broker for tests: the real application on an ephemeral loopback port, a fresh data directory,
 * configuration from a map. PostgreSQL when DATABASE_URL is given, PGlite otherwise.
 */
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { BrokerApp } from "./Broker.ts"

/** Where the broker under test answers, e.g. `http://127.0.0.1:41234`. */
export class BrokerUrl extends Context.Tag("test/BrokerUrl")<BrokerUrl, string>() {}

export const newDataDir = () => mkdtempSync(path.join(tmpdir(), "docstack-test-"))

export const brokerTestLayer = (config: Readonly<Record<string, string>> = {}) => {
  const settings = new Map<string, string>([
    ["DATA_DIR", config.DATA_DIR ?? newDataDir()],
    ["HEALTH_CHECK_INTERVAL", "200 millis"],
    ...Object.entries(config)
  ])
  const url = Layer.effect(
    BrokerUrl,
    HttpServer.HttpServer.pipe(
      Effect.map((server) => {
        const address = server.address as HttpServer.TcpAddress
        return `http://127.0.0.1:${address.port}`
      })
    )
  )
  return Layer.provideMerge(url, BrokerApp.pipe(Layer.provideMerge(NodeHttpServer.layerTest))).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(settings)))
  )
}
