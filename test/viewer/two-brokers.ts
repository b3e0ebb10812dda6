/**
 * Two broker processes on one PostgreSQL schema and one blob directory, each on a port of its own
 * that it keeps across a restart, and a viewer (in this process) with both as rendition targets.
 * For the tests that kill a broker: PGlite is one process's database, so these need DATABASE_URL.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Schema } from "effect"
import type { ChildProcess } from "node:child_process"
import { isolatedDatabaseUrl, newDataDir, viewerTestLayer, ViewerUrl } from "../../src/layers/Test.ts"
import { call, type Reply } from "../support/http.ts"
import { awaitExit, freePort, startService } from "../support/processes.ts"

export const databaseUrl = process.env.DATABASE_URL

export interface BrokerProcess {
  readonly url: string
  readonly port: number
  child: ChildProcess
}

/** Two brokers sharing a fresh schema and a fresh DATA_DIR; both killed when the scope closes. */
export const twoBrokers = Effect.gen(function*() {
  const database = yield* isolatedDatabaseUrl(databaseUrl!)
  const env = { DATABASE_URL: database.url, DATA_DIR: newDataDir(), HEALTH_CHECK_INTERVAL: "200 millis" }
  const brokers: Array<BrokerProcess> = []
  // One after the other: the second finds the schema migrated.
  for (let i = 0; i < 2; i++) {
    const port = yield* freePort
    const { child, base } = yield* startService("broker", env, port)
    brokers.push({ url: base, port, child })
  }
  return {
    brokers,
    /** SIGKILL: the broker gets no chance to close a connection or finish an answer. */
    kill: (broker: BrokerProcess) =>
      Effect.suspend(() => {
        broker.child.kill("SIGKILL")
        return awaitExit(broker.child)
      }),
    /** Starts a killed broker again on the same port (the viewer knows it by its URL). */
    restart: (broker: BrokerProcess) =>
      Effect.map(startService("broker", env, broker.port), ({ child }) => {
        broker.child = child
      })
  }
})

const Assignment = Schema.Struct({ id: Schema.String, target: Schema.String })

/** A viewer on a schema of its own with `targets`; answers its URL and where its documents went. */
export const viewerOf = (targets: ReadonlyArray<string>, settings: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      viewerTestLayer({
        DATABASE_URL: databaseUrl!,
        RENDITION_TARGETS: targets.join(","),
        VIEWER_WEATHER_INTERVAL: "200 millis",
        ...settings
      })
    )
    const sql = Context.get(context, SqlClient.SqlClient)
    const url = Context.get(context, ViewerUrl)
    return {
      servlet: (pathAndQuery: string) => call(`${url}/viewergwt/${pathAndQuery}`),
      /** The table viewer_documents: each document's target, by broker document ID. */
      assignments: sql`SELECT document_id AS id, target FROM viewer_documents`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(Assignment))),
        Effect.map((rows) => new Map(rows.map((row) => [row.id, row.target]))),
        Effect.orDie
      )
    }
  })

/** How many of `ids` each target holds, in the order of `targets`. */
export const countPerTarget = (
  assignments: ReadonlyMap<string, string>,
  ids: ReadonlyArray<string>,
  targets: ReadonlyArray<string>
) => targets.map((target) => ids.filter((id) => assignments.get(id) === target).length)

/** A page image or a page's text as a viewer's client sees it: 200, a PNG 300 px wide or text runs. */
export const answeredRight = (reply: Reply, what: "image" | "text") =>
  reply.status === 200 && (what === "image"
    ? reply.contentType === "image/png" && reply.bytes.readUInt32BE(16) === 300
    : Array.isArray(reply.json?.positionTextList) && reply.json.positionTextList.length > 0)

/** The viewer's two calls the tests repeat, for page 0 of `id`. */
export const pageCall = (id: string, what: "image" | "text") =>
  what === "image" ? `imageServlet?uuid=${id}&pagePosition=0&desc=300` : `pageContent?uuid=${id}&pagePosition=0`
