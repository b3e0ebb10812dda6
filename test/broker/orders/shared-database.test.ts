/**
 * Two brokers on one PostgreSQL database (and one blob store) share the order book: every order
 * is carried out once, by one of them, and both take part. PGlite is one process's database, so
 * this runs only when DATABASE_URL is set (as in CI).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { brokerTestLayer, BrokerUrl, isolatedDatabaseUrl, newDataDir } from "../../../src/layers/Test.ts"
import { call, corpusFile, uploadOk } from "../../support/http.ts"

const databaseUrl = process.env.DATABASE_URL

const brokerAt = (config: Record<string, string>) =>
  Layer.build(brokerTestLayer(config)).pipe(Effect.map((context) => Context.get(context, BrokerUrl)))

const FILES = [
  "fake.odt",
  "docx-tables.docx",
  "fake-doc-emphasized-text.doc",
  "eng_spa_mult.rtf",
  "fake-power-point.ppt",
  "fake-power-point-table.pptx",
  "tests-example.xls",
  "contains-pictures.docx"
]

describe("several brokers on one database", () => {
  it.scoped.skipIf(!databaseUrl)(
    "share the conversion orders: each is done once, both brokers work",
    () =>
      Effect.gen(function*() {
        const database = yield* isolatedDatabaseUrl(databaseUrl!)
        const config = {
          DATABASE_URL: database.url,
          DATA_DIR: newDataDir(),
          OFFICE_INSTANCES: "1",
          ORDER_WORKERS: "1",
          ORDER_POLL_INTERVAL: "100 millis"
        }
        const first = yield* brokerAt(config)
        const second = yield* brokerAt(config)
        // All orders are queued through the first broker; the second only sees them in the table.
        const ids = yield* Effect.forEach(
          FILES,
          (name) => uploadOk(first, corpusFile(`office/${name}`), `?documentTitle=${name}`)
        )
        yield* Effect.forEach(
          ids,
          (id) =>
            call(`${first}/documents/${id}/layout`).pipe(
              Effect.map((reply) => expect(reply.status, reply.text).toBe(200))
            ),
          { concurrency: "unbounded" }
        )
        // Both brokers answer for every document.
        for (const id of ids) expect((yield* call(`${second}/documents/${id}/layout`)).status).toBe(200)

        const sql = yield* Layer.build(PgClient.layer({ url: Redacted.make(database.url), maxConnections: 1 })).pipe(
          Effect.map((c) => Context.get(c, PgClient.PgClient))
        )
        const orders = yield* sql<
          { state: string; attempts: number; processedBy: string }
        >`SELECT state, attempts, processed_by AS "processedBy" FROM orders`
        expect(orders).toHaveLength(FILES.length)
        expect(orders.every((o) => o.state === "PROCESSED" && o.attempts === 1)).toBe(true)
        expect(new Set(orders.map((o) => o.processedBy)).size).toBe(2)
      }),
    { timeout: 240_000 }
  )
})
