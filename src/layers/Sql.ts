/**
 * The SQL backend: PostgreSQL through @effect/sql-pg when DATABASE_URL is set, otherwise PGlite
 * under DATA_DIR (locked to this process). Migrations run before anything else uses it.
 */
import * as Migrator from "@effect/sql/Migrator"
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { lockDataDir } from "../services/common/sql/DataDirLock.ts"
import { migrations } from "../services/common/sql/migrations/index.ts"
import * as PgliteClient from "../services/common/sql/PgliteClient.ts"
import * as PostgresClient from "../services/common/sql/PostgresClient.ts"
import { StorageConfig } from "../services/common/StorageConfig.ts"

const MigrationsLive = Layer.effectDiscard(Migrator.make({})({ loader: migrations }))

export const SqlLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { dataDir, databaseUrl, pgliteSharedBuffers } = yield* StorageConfig
    const client = Option.match(databaseUrl, {
      onNone: () =>
        PgliteClient.layer(path.join(dataDir, "pgdata"), pgliteSharedBuffers).pipe(
          Layer.provide(Layer.scopedDiscard(lockDataDir(dataDir)))
        ),
      onSome: PostgresClient.layer
    })
    return Layer.provideMerge(MigrationsLive, client)
  })
)
