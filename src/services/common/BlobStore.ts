/**
 * Content-addressed bytes: originals, renditions, anything a document points at by SHA-256.
 * A port (Context.Tag) so an object store can stand in for the local file system later.
 */
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Context, Data, Effect, Layer, Option, Stream } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { StorageConfig } from "./StorageConfig.ts"

export interface StoredBlob {
  readonly hash: string
  readonly size: number
}

/** The stream was longer than the caller allowed; nothing was stored. */
export class BlobTooLarge extends Data.TaggedError("BlobTooLarge")<{ readonly limitBytes: number }> {}

/** The store itself failed (disk full, permissions, a blob missing that should be there). */
export class BlobStoreError
  extends Data.TaggedError("BlobStoreError")<{ readonly message: string; readonly cause?: unknown }>
{}

export interface ByteRange {
  /** First byte, inclusive. */
  readonly start: number
  /** Last byte, inclusive. */
  readonly end: number
}

export class BlobStore extends Context.Tag("docstack/BlobStore")<BlobStore, {
  /** Stores a stream, failing with BlobTooLarge as soon as it passes `limitBytes`. */
  readonly put: <E>(
    bytes: Stream.Stream<Uint8Array, E>,
    limitBytes: number
  ) => Effect.Effect<StoredBlob, E | BlobTooLarge | BlobStoreError>
  readonly putBytes: (bytes: Uint8Array) => Effect.Effect<StoredBlob, BlobStoreError>
  readonly size: (hash: string) => Effect.Effect<Option.Option<number>, BlobStoreError>
  readonly read: (hash: string) => Effect.Effect<Uint8Array, BlobStoreError>
  readonly stream: (hash: string, range?: ByteRange) => Stream.Stream<Uint8Array, BlobStoreError>
  /** A local file holding the blob, for engines that read files themselves (PDF workers). */
  readonly localPath: (hash: string) => Effect.Effect<string, BlobStoreError>
  readonly remove: (hash: string) => Effect.Effect<void, BlobStoreError>
}>() {
  /** Blobs as files under `<DATA_DIR>/blobs/<first two hex digits>/<sha256>`. */
  static readonly FileSystemLive = Layer.effect(
    BlobStore,
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const { dataDir } = yield* StorageConfig
      const root = path.resolve(dataDir, "blobs")
      const incoming = path.join(root, "incoming")
      const fail = (message: string) => (cause: PlatformError) =>
        new BlobStoreError({ message: `${message}: ${cause.message}`, cause })
      yield* fs.makeDirectory(incoming, { recursive: true }).pipe(
        Effect.mapError(fail("Cannot create the blob directory")),
        Effect.orDie
      )

      const fileOf = (hash: string) => path.join(root, hash.slice(0, 2), hash)

      const commit = (temp: string, hash: string, size: number) =>
        Effect.gen(function*() {
          const target = fileOf(hash)
          yield* fs.makeDirectory(path.dirname(target), { recursive: true })
          // Same bytes, same name: an existing file is already the blob, so the rename may overwrite it.
          yield* fs.rename(temp, target)
          return { hash, size }
        }).pipe(Effect.mapError(fail("Cannot store a blob")))

      const put = <E>(
        bytes: Stream.Stream<Uint8Array, E>,
        limitBytes: number
      ): Effect.Effect<StoredBlob, E | BlobTooLarge | BlobStoreError> =>
        Effect.scoped(
          Effect.gen(function*() {
            const temp = path.join(incoming, randomUUID())
            yield* Effect.addFinalizer(() => fs.remove(temp, { force: true }).pipe(Effect.ignore))
            const file = yield* fs.open(temp, { flag: "w" }).pipe(
              Effect.mapError(fail("Cannot open a blob for writing"))
            )
            const digest = createHash("sha256")
            let size = 0
            yield* Stream.runForEach(bytes, (chunk): Effect.Effect<void, BlobTooLarge | BlobStoreError> => {
              size += chunk.byteLength
              if (size > limitBytes) return Effect.fail(new BlobTooLarge({ limitBytes }))
              digest.update(chunk)
              return file.writeAll(chunk).pipe(Effect.mapError(fail("Cannot write a blob")))
            })
            return yield* commit(temp, digest.digest("hex"), size)
          })
        )

      const putBytes = (bytes: Uint8Array) =>
        Effect.gen(function*() {
          const temp = path.join(incoming, randomUUID())
          yield* fs.writeFile(temp, bytes).pipe(Effect.mapError(fail("Cannot write a blob")))
          return yield* commit(temp, createHash("sha256").update(bytes).digest("hex"), bytes.byteLength)
        })

      const size = (hash: string): Effect.Effect<Option.Option<number>, BlobStoreError> =>
        fs.stat(fileOf(hash)).pipe(
          Effect.map((info) => Option.some(Number(info.size))),
          Effect.catchIf((e) => e._tag === "SystemError" && e.reason === "NotFound", () => Effect.succeedNone),
          Effect.mapError(fail("Cannot read a blob"))
        )

      return BlobStore.of({
        put,
        putBytes,
        size,
        read: (hash) => fs.readFile(fileOf(hash)).pipe(Effect.mapError(fail(`Cannot read blob ${hash}`))),
        stream: (hash, range) =>
          fs.stream(fileOf(hash), range ? { offset: range.start, bytesToRead: range.end - range.start + 1 } : {}).pipe(
            Stream.mapError(fail(`Cannot read blob ${hash}`))
          ),
        localPath: (hash) =>
          size(hash).pipe(
            Effect.flatMap(Option.match({
              onNone: () => Effect.fail(new BlobStoreError({ message: `Blob ${hash} is missing from the store` })),
              onSome: () => Effect.succeed(fileOf(hash))
            }))
          ),
        remove: (hash) =>
          fs.remove(fileOf(hash), { force: true }).pipe(Effect.mapError(fail(`Cannot remove blob ${hash}`)))
      })
    })
  )
}
