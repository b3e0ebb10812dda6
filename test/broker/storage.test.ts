/**
 * Storage on every backend: documents, blobs and derived data survive a restart on the same
 * DATA_DIR and database; an embedded data directory belongs to one process at a time.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { spawnSync } from "node:child_process"
import { readdirSync } from "node:fs"
import * as path from "node:path"
import { brokerTestLayer, BrokerUrl, isolatedDatabaseUrl, newDataDir } from "../../src/layers/Test.ts"
import { PAGE_IMAGE_ENGINE, PAGE_TEXT_ENGINE } from "../../src/services/broker/engine/PageEngine.ts"
import { backends } from "../support/backends.ts"
import { call, corpusFile, pngSize, uploadOk } from "../support/http.ts"

/** Runs `use` against a broker started on `config`, and stops that broker afterwards. */
const withBroker = <A>(config: Record<string, string>, use: (base: string) => Effect.Effect<A>) =>
  Effect.scoped(
    Layer.build(brokerTestLayer(config)).pipe(Effect.flatMap((context) => use(Context.get(context, BrokerUrl))))
  )

const cachedFiles = (dataDir: string) =>
  readdirSync(path.join(dataDir, "cache"), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((
    e
  ) => e.name)

describe("storage", () => {
  for (const backend of backends) {
    it.scoped(`${backend.name}: documents, blobs and derived data survive a restart`, () =>
      Effect.gen(function*() {
        // Both brokers must see the same schema, so it is made here rather than per broker.
        const database = backend.config.DATABASE_URL
          ? { DATABASE_URL: (yield* isolatedDatabaseUrl(backend.config.DATABASE_URL)).url }
          : {}
        const config = { ...database, DATA_DIR: newDataDir() }
        const pdf = corpusFile("pdf/tracemonkey.pdf")
        const image = corpusFile("office/english-and-korean.png")
        const before = yield* withBroker(config, (base) =>
          Effect.gen(function*() {
            const pdfId = yield* uploadOk(base, pdf, "?documentTitle=Trace")
            const imageId = yield* uploadOk(base, image)
            const page = yield* call(`${base}/documents/${pdfId}/pages/3/image?pageImageDescription=IM_300_0`)
            const text = yield* call(`${base}/documents/${pdfId}/pages/3/text/position`)
            return {
              pdfId,
              imageId,
              page: page.bytes,
              text: text.json,
              imageLayout: (yield* call(`${base}/documents/${imageId}/layout`)).json
            }
          }))
        const derived = cachedFiles(config.DATA_DIR)
        expect(derived).toContain(`p3_IM_300_0_${PAGE_IMAGE_ENGINE}.png`)
        expect(derived).toContain(`t3_${PAGE_TEXT_ENGINE}.json`)

        yield* withBroker(config, (base) =>
          Effect.gen(function*() {
            const metadata = yield* call(`${base}/documents/${before.pdfId}`)
            expect(metadata.json.documentTitle).toBe("Trace")
            expect((yield* call(`${base}/documents/${before.pdfId}/layout`)).json.pageDimensionsList).toHaveLength(14)
            const page = yield* call(`${base}/documents/${before.pdfId}/pages/3/image?pageImageDescription=IM_300_0`)
            expect(Buffer.compare(Buffer.from(page.bytes), Buffer.from(before.page))).toBe(0)
            expect((yield* call(`${base}/documents/${before.pdfId}/pages/3/text/position`)).json).toEqual(before.text)
            const file = yield* call(`${base}/documents/${before.pdfId}/file`)
            expect(Buffer.compare(Buffer.from(file.bytes), pdf)).toBe(0)
            expect((yield* call(`${base}/documents/${before.imageId}/layout`)).json).toEqual(before.imageLayout)
            const imagePage = yield* call(
              `${base}/documents/${before.imageId}/pages/0/image?pageImageDescription=IM_200_0`
            )
            expect(pngSize(imagePage.bytes).width).toBe(200)
          }))
      }), { timeout: 180_000 })
  }

  it.effect(
    "PGlite: a second process on the same data directory is refused with a clear message",
    () =>
      Effect.gen(function*() {
        const dataDir = newDataDir()
        yield* withBroker({ DATA_DIR: dataDir }, () =>
          Effect.sync(() => {
            const second = spawnSync(process.execPath, ["scripts/start.mjs", "broker"], {
              env: { ...process.env, DATA_DIR: dataDir, BROKER_PORT: "0", DATABASE_URL: "" },
              encoding: "utf8",
              timeout: 60_000
            })
            expect(second.status).not.toBe(0)
            expect(second.stdout + second.stderr).toContain(`is in use by process ${process.pid}`)
          }))
      }),
    { timeout: 180_000 }
  )
})
