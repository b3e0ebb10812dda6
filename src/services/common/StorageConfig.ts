/**
 * Where the broker keeps its state: the data directory (blobs, caches, embedded database)
 * and, when set, an external PostgreSQL.
 */
import { Config, Effect, Option, Redacted } from "effect"

export class StorageConfig extends Effect.Service<StorageConfig>()("docstack/StorageConfig", {
  effect: Effect.gen(function*() {
    const dataDir = yield* Config.string("DATA_DIR").pipe(Config.withDefault("./data"))
    const databaseUrl = yield* Config.option(Config.redacted("DATABASE_URL")).pipe(
      Effect.map(Option.filter((url) => Redacted.value(url).trim() !== ""))
    )
    const pgliteSharedBuffers = yield* Config.string("PGLITE_SHARED_BUFFERS").pipe(Config.withDefault("16MB"))
    return { dataDir, databaseUrl, pgliteSharedBuffers } as const
  })
}) {}
