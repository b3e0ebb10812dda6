/**
 * Artefacts derived from a PDF (page images, page text), kept on disk under the PDF's content hash
 * so they survive restarts and are shared by every document with the same bytes.
 */
import { FileSystem, Path } from "@effect/platform"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { StorageConfig } from "./StorageConfig.ts"

export class DerivedCache extends Effect.Service<DerivedCache>()("docstack/DerivedCache", {
  effect: Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const { dataDir } = yield* StorageConfig
    const root = path.resolve(dataDir, "cache")
    const dirOf = (hash: string) => path.join(root, hash.slice(0, 2), hash)
    // Names come from canonical descriptors and page numbers; keep them to a safe alphabet all the same.
    const fileOf = (hash: string, name: string) => path.join(dirOf(hash), name.replace(/[^A-Za-z0-9_.~-]/g, "_"))

    return {
      get: Effect.fn("DerivedCache.get")((hash: string, name: string) =>
        fs.readFile(fileOf(hash, name)).pipe(Effect.map(Option.some), Effect.orElseSucceed(() => Option.none<Uint8Array>()))
      ),
      /** Best effort: a cache that cannot be written only costs a recomputation later. */
      put: Effect.fn("DerivedCache.put")((hash: string, name: string, bytes: Uint8Array) =>
        Effect.gen(function*() {
          const temp = path.join(dirOf(hash), `.${randomUUID()}`)
          yield* fs.makeDirectory(dirOf(hash), { recursive: true })
          yield* fs.writeFile(temp, bytes)
          yield* fs.rename(temp, fileOf(hash, name))
        }).pipe(Effect.catchAll((error) => Effect.logWarning("Derived cache write failed", error)))
      ),
      drop: Effect.fn("DerivedCache.drop")((hash: string) =>
        fs.remove(dirOf(hash), { recursive: true, force: true }).pipe(Effect.catchAll((error) => Effect.logWarning("Derived cache removal failed", error)))
      )
    } as const
  })
}) {}
