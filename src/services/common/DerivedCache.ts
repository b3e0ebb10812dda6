/**
 * Artefacts derived from a PDF (page images, page text, outline, merged and annotated files), kept
 * on disk under the PDF's content hash so they survive restarts and are shared by every document
 * with the same bytes. Each is computed once: the first request computes it, later ones read it.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Option, Schema, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { ByteRange } from "./BlobStore.ts"
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
    /** A new file name beside the artefacts of `hash`, to write into and rename into place. */
    const tempFile = (hash: string) =>
      fs.makeDirectory(dirOf(hash), { recursive: true }).pipe(Effect.as(path.join(dirOf(hash), `.${randomUUID()}`)))

    const get = Effect.fn("DerivedCache.get")((hash: string, name: string) =>
      fs.readFile(fileOf(hash, name)).pipe(
        Effect.map(Option.some),
        Effect.orElseSucceed(() => Option.none<Uint8Array>())
      )
    )

    /** Best effort: a cache that cannot be written only costs a recomputation later. */
    const put = Effect.fn("DerivedCache.put")((hash: string, name: string, bytes: Uint8Array) =>
      Effect.gen(function*() {
        const temp = yield* tempFile(hash)
        yield* fs.writeFile(temp, bytes)
        yield* fs.rename(temp, fileOf(hash, name))
      }).pipe(Effect.catchAll((error) => Effect.logWarning("Derived cache write failed", error)))
    )

    /** The artefact's bytes, computed by `compute` and kept when it is not there yet. */
    const bytes = <E>(hash: string, name: string, compute: Effect.Effect<Uint8Array, E>) =>
      get(hash, name).pipe(
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          onNone: () => compute.pipe(Effect.tap((computed) => put(hash, name, computed)))
        }))
      )

    /**
     * A file artefact too large to hold in memory: when it is not there yet, `write` makes it at
     * the path it is given (a worker thread may write it), and it is renamed into place. Its size.
     */
    const file = <E>(hash: string, name: string, write: (target: string) => Effect.Effect<void, E>) =>
      fs.stat(fileOf(hash, name)).pipe(
        Effect.map((info) => Number(info.size)),
        Effect.catchAll(() =>
          Effect.gen(function*() {
            const temp = yield* tempFile(hash).pipe(Effect.orDie)
            yield* write(temp).pipe(Effect.onError(() => fs.remove(temp, { force: true }).pipe(Effect.ignore)))
            yield* fs.rename(temp, fileOf(hash, name)).pipe(Effect.orDie)
            return Number((yield* fs.stat(fileOf(hash, name)).pipe(Effect.orDie)).size)
          })
        )
      )

    return {
      get,
      put,
      bytes,

      /** A JSON artefact: read and decoded when kept (an unreadable one is computed again), else computed and kept. */
      json: <A, I, E>(hash: string, name: string, schema: Schema.Schema<A, I>, compute: Effect.Effect<A, E>) => {
        const json = Schema.parseJson(schema)
        return get(hash, name).pipe(
          Effect.flatMap(Option.match({
            onSome: (kept) => Schema.decode(json)(new TextDecoder().decode(kept)).pipe(Effect.option),
            onNone: () => Effect.succeedNone
          })),
          Effect.flatMap(Option.match({
            onSome: Effect.succeed,
            onNone: () =>
              compute.pipe(
                Effect.tap((value) =>
                  Schema.encode(json)(value).pipe(
                    Effect.flatMap((text) => put(hash, name, new TextEncoder().encode(text))),
                    Effect.orDie
                  )
                )
              )
          }))
        )
      },

      file,

      /** A file artefact made from bytes computed by `compute` when it is not there yet. Its size. */
      fileFromBytes: <E>(hash: string, name: string, compute: Effect.Effect<Uint8Array, E>) =>
        file(
          hash,
          name,
          (target) => compute.pipe(Effect.flatMap((computed) => fs.writeFile(target, computed).pipe(Effect.orDie)))
        ),

      /** An artefact's bytes, or a range of them, as a stream from its file. */
      stream: (hash: string, name: string, range?: ByteRange) =>
        fs.stream(fileOf(hash, name), range ? { offset: range.start, bytesToRead: range.end - range.start + 1 } : {})
          .pipe(Stream.orDie),

      drop: Effect.fn("DerivedCache.drop")((hash: string) =>
        fs.remove(dirOf(hash), { recursive: true, force: true }).pipe(
          Effect.catchAll((error) => Effect.logWarning("Derived cache removal failed", error))
        )
      )
    } as const
  })
}) {}
