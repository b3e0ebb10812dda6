/**
 * A provider that fails the broker: down, slow, answering what the contract does not allow, or a
 * file past the size limit. Each is a 502 saying which, and leaves nothing behind. The misbehaving
 * providers are small HTTP servers on loopback (the process boundary); a bad configuration stops
 * the broker at start.
 */
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { brokerTestLayer, newDataDir } from "../../../src/layers/Test.ts"
import { ProviderSettings } from "../../../src/services/broker/providers/ProviderSettings.ts"
import { providerDocumentId } from "../../../src/services/broker/providers/RegistryDocuments.ts"
import { CORPUS, defaultBackend } from "../../support/backends.ts"
import { get, openDocument } from "./support.ts"

/** A provider that answers every request with `answer`, on a loopback port; closed with the layer. */
const misbehaving = (answer: (request: IncomingMessage, response: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly close: () => void }>((resume) => {
      const server = createServer(answer)
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          close: () => server.close()
        })))
    }),
    (server) =>
      Effect.sync(() => {
        server.close()
      })
  )

const tracemonkey = readFileSync(`${CORPUS}pdf/tracemonkey.pdf`)
const dataDir = newDataDir()

/** Every file below a folder (none when it does not exist). */
const filesUnder = (folder: string): Array<string> =>
  existsSync(folder)
    ? readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name)
    : []

/** Providers by name, each misbehaving in its own way, and one nobody listens for. */
const providers = Layer.unwrapScoped(
  Effect.gen(function*() {
    const silent = yield* misbehaving(() => {
      // Never answers.
    })
    const stalling = yield* misbehaving((_request, response) => {
      response.writeHead(200, { "content-type": "application/pdf" })
      response.write(tracemonkey.subarray(0, 1000))
      // …and never the rest.
    })
    const garbage = yield* misbehaving((request, response) => {
      const kind = new URL(request.url!, "http://x").searchParams.get("id")
      if (kind === "wrong-shape") {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ type: "folder", name: "x", parameters: {}, contents: "not a list" }))
      } else if (kind === "not-json") {
        response.writeHead(200, { "content-type": "application/json" })
        response.end("<html>login</html>")
      } else if (kind === "large") {
        response.writeHead(200, { "content-type": "application/pdf" })
        response.end(tracemonkey)
      } else {
        response.writeHead(500, { "content-type": "text/plain" })
        response.end("database on fire")
      }
    })
    const closed = yield* misbehaving(() => {})
    closed.close()
    return brokerTestLayer({
      ...defaultBackend.config,
      DATA_DIR: dataDir,
      MAX_UPLOAD_BYTES: "500000",
      PROVIDERS: JSON.stringify({
        silent: { url: silent.url, connectTimeout: "1 second" },
        stalling: { url: stalling.url, timeout: "2 seconds" },
        garbage: { url: garbage.url },
        down: { url: closed.url }
      }),
      REGISTRY_DEFAULT_PROVIDER: "garbage"
    })
  })
)

layer(providers, { timeout: 120_000 })("provider failures", (it) => {
  it.effect("down, silent or stalling: 502 saying which, and no document", () =>
    Effect.gen(function*() {
      const down = yield* openDocument({ id: "a.pdf" }, { provider: "down" })
      expect(down.status).toBe(502)
      expect(down.json._tag).toBe("ProviderUnavailable")
      expect(down.json.message).toMatch(
        /^Provider down could not be reached at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/
      )

      const silent = yield* openDocument({ id: "a.pdf" }, { provider: "silent" })
      expect(silent.status).toBe(502)
      expect(silent.json.message).toBe("Provider silent did not answer within 1s (its connectTimeout)")

      const stalling = yield* openDocument({ id: "a.pdf" }, { provider: "stalling" })
      expect(stalling.status).toBe(502)
      expect(stalling.json.message).toBe("Provider stalling did not deliver the document within 2s")
      // Every failure carries an error ID, as every 5xx does.
      expect(stalling.headers.get("x-error-id")).toMatch(/^[0-9a-f]{12}$/)
    }))

  it.effect("answers the contract does not allow: 502 naming what was wrong, nothing stored", () =>
    Effect.gen(function*() {
      const wrongShape = yield* openDocument({ id: "wrong-shape" }, { contentType: "application/json" })
      expect(wrongShape.status).toBe(502)
      expect(wrongShape.json.message).toBe(
        "Provider garbage answered a folder that does not follow the provider contract: contents: Expected ReadonlyArray<ProviderDocument>, actual \"not a list\""
      )

      const notJson = yield* openDocument({ id: "not-json" }, { contentType: "application/json" })
      expect(notJson.status).toBe(502)
      expect(notJson.json.message).toContain("does not follow the provider contract")

      const failing = yield* openDocument({ id: "anything" })
      expect(failing.status).toBe(502)
      expect(failing.json.message).toBe("Provider garbage answered 500 to GET /documents: database on fire")

      const large = yield* openDocument({ id: "large" })
      expect(large.status).toBe(502)
      expect(large.json.message).toBe("Provider garbage sent a file larger than 500000 bytes (MAX_UPLOAD_BYTES)")
      // Nothing half-stored: none of these documents, and not a byte in the blob store.
      for (const id of ["wrong-shape", "not-json", "anything", "large"]) {
        expect((yield* get(`/documents/${providerDocumentId("garbage", { id })}`)).status).toBe(404)
      }
      expect(filesUnder(path.join(dataDir, "blobs"))).toEqual([])
    }))
})

const start = (settings: Record<string, string>) =>
  Effect.scoped(Layer.build(ProviderSettings.Default)).pipe(
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings)))),
    Effect.exit,
    Effect.map((exit) => (Exit.isFailure(exit) ? String(exit.cause) : "started"))
  )

layer(Layer.empty)("provider configuration", (it) => {
  it.effect("a bad configuration stops the broker, saying why", () =>
    Effect.gen(function*() {
      expect(yield* start({ PROVIDERS: "{not json" })).toContain("PROVIDERS is not a provider configuration")
      expect(yield* start({ PROVIDERS: JSON.stringify({ ecm: { url: "ftp://x" } }) })).toContain(
        "url must be an http or https URL"
      )
      expect(yield* start({ PROVIDERS: JSON.stringify({ ecm: { url: "http://x", timeout: "soon" } }) }))
        .toContain("a duration")
      expect(yield* start({ PROVIDERS: JSON.stringify({ ecm: { url: "http://x", retries: 3 } }) })).toContain(
        "retries"
      )
      expect(yield* start({ PROVIDERS: "{}", PROVIDERS_FILE: "/x.json" })).toContain("not both")
      expect(yield* start({ PROVIDERS_FILE: "/no/such/providers.json" })).toContain("cannot be read")
      expect(yield* start({ REGISTRY_DEFAULT_PROVIDER: "ecm" })).toContain(
        "REGISTRY_DEFAULT_PROVIDER names ecm, which is not configured (providers: filesystem)"
      )
      expect(
        yield* start({
          PROVIDERS: JSON.stringify({ a: { url: "http://a" }, b: { url: "http://b" } }),
          REGISTRY_DEFAULT_PROVIDER: "b"
        })
      ).toBe("started")
    }))
})
