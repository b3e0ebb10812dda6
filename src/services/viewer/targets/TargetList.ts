/**
 * The rendition targets: the brokers a viewer sends its calls to (table viewer_targets). The list
 * survives a restart; RENDITION_TARGETS seeds it when the database holds none, and POST/PUT weather
 * replace it or add to it (docs/viewer.md "Rendition targets").
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Config, ConfigError, Effect, Either, Schema } from "effect"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"

/** A target's address as it is kept: an http(s) URL without a trailing slash, query or fragment. */
const normalTarget = (text: string): string | undefined => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search !== "" || url.hash !== "") return undefined
  if (url.username !== "" || url.password !== "") return undefined
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`
}

/**
 * Reads the weather body: a brace-enclosed, bracket-enclosed, comma-separated list of URLs,
 * `{[http://broker-a:8761, http://broker-b:8761]}`; white space anywhere between, each URL may be
 * quoted. Duplicates are kept once.
 */
export const parseTargetList = (body: string): Effect.Effect<ReadonlyArray<string>, InvalidRequest> => {
  const match = /^\s*\{\s*\[([^\]]*)\]\s*\}\s*$/.exec(body)
  if (match === null) {
    return Effect.fail(
      new InvalidRequest({
        message:
          "The body must be a list of broker URLs in braces and brackets, e.g. {[http://broker-a:8761, http://broker-b:8761]}"
      })
    )
  }
  const items = match[1]!.split(",").map((item) => item.trim().replace(/^"(.*)"$/, "$1").trim()).filter((item) =>
    item !== ""
  )
  if (items.length === 0) {
    return Effect.fail(new InvalidRequest({ message: "The list names no broker URL: give at least one" }))
  }
  const urls: Array<string> = []
  for (const item of items) {
    const url = normalTarget(item)
    if (url === undefined) {
      return Effect.fail(
        new InvalidRequest({
          message: `'${item}' is not a broker URL: give http(s)://host:port, without user, query or fragment`
        })
      )
    }
    if (!urls.includes(url)) urls.push(url)
  }
  return Effect.succeed(urls)
}

/** The targets a fresh database starts with: RENDITION_TARGETS, comma-separated, else the local broker. */
const seedTargets = Config.string("RENDITION_TARGETS").pipe(
  Config.withDefault(""),
  Config.zipWith(
    Config.integer("BROKER_PORT").pipe(Config.withDefault(8761)),
    (list, port) =>
      list.trim() === "" ? [`http://127.0.0.1:${port === 0 ? 8761 : port}`] : list.split(",").map((s) => s.trim())
  ),
  Config.mapOrFail((items) => {
    const urls = items.map(normalTarget)
    const bad = items.find((_, i) => urls[i] === undefined)
    return bad === undefined
      ? Either.right([...new Set(urls as Array<string>)])
      : Either.left(
        ConfigError.InvalidData([], `RENDITION_TARGETS: '${bad}' is not an http(s) URL of a broker`)
      )
  })
)

const TargetRow = Schema.Struct({ url: Schema.String })

export class TargetList extends Effect.Service<TargetList>()("docstack/viewer/TargetList", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const seed = yield* seedTargets

    const read = sql`SELECT url FROM viewer_targets ORDER BY position`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(TargetRow))),
      Effect.map((rows) => rows.map((row) => row.url)),
      Effect.orDie
    )

    const write = (urls: ReadonlyArray<string>) =>
      sql.withTransaction(
        Effect.gen(function*() {
          yield* sql`DELETE FROM viewer_targets`
          for (const [position, url] of urls.entries()) {
            yield* sql`INSERT INTO viewer_targets ${sql.insert({ url, position })}`
          }
        })
      ).pipe(Effect.orDie)

    // Seeded once: another viewer instance on the same database may have seeded it first.
    if ((yield* read).length === 0) {
      yield* sql.withTransaction(
        Effect.gen(function*() {
          for (const [position, url] of seed.entries()) {
            yield* sql`INSERT INTO viewer_targets ${sql.insert({ url, position })} ON CONFLICT DO NOTHING`
          }
        })
      ).pipe(Effect.orDie)
    }
    yield* Effect.logInfo(`Rendition targets: ${(yield* read).join(", ")}`)

    return {
      /** The targets, in order. */
      list: read,
      /** POST weather: the whole list replaced. */
      replace: (urls: ReadonlyArray<string>) => write(urls),
      /** PUT weather: addresses added after the others, those already there kept where they are. */
      add: (urls: ReadonlyArray<string>) =>
        Effect.flatMap(read, (current) => write([...current, ...urls.filter((url) => !current.includes(url))]))
    }
  })
}) {}
