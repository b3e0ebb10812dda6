/**
 * The SQL backend: PostgreSQL through @effect/sql-pg when DATABASE_URL is set, otherwise PGlite
 * under DATA_DIR (locked to this process). Migrations run before anything else uses it.
 */
import { Migrator } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, String as Str } from "effect"
import * as path from "node:path"
import { migrations } from "../migrations/index.ts"
import { lockDataDir } from "../services/sql/DataDirLock.ts"
import * as PgliteClient from "../services/sql/PgliteClient.ts"
import { StorageConfig } from "../services/StorageConfig.ts"

const MigrationsLive = Layer.effectDiscard(Migrator.make({})({ loader: migrations }))

export const SqlLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { dataDir, databaseUrl, pgliteSharedBuffers } = yield* StorageConfig
    const client = Option.match(databaseUrl, {
      onNone: () =>
        PgliteClient.layer(path.join(dataDir, "pgdata"), pgliteSharedBuffers).pipe(Layer.provide(Layer.scopedDiscard(lockDataDir(dataDir)))),
      onSome: (url) =>
        PgClient.layer({ url, transformQueryNames: Str.camelToSnake, transformResultNames: Str.snakeToCamel, applicationName: "docstack" })
    })
    return Layer.provideMerge(MigrationsLive, client)
  })
)
