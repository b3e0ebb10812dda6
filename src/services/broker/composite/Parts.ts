/**
 * The parts of a composite document (an email, a ZIP archive, a provider's folder) as a tree,
 * stored as JSON in SQL. Each file part is a blob in the BlobStore, content-addressed; its name is
 * only a title and never touches the file system. A provider folder's files are links: the
 * parameters that fetch them from their provider, on first use.
 *
 * Indices follow the spec: email body is part 0, attachments from 1; ZIP entries from 1 with no
 * part 0, numbered depth-first over the whole archive, a folder taking an index of its own with its
 * contents after it, nested in its `children`. A provider folder is numbered as a ZIP archive, from
 * 0 (docs/providers.md).
 */
import { Effect, Option, Schema, Stream } from "effect"
import { createHash } from "node:crypto"
import { BlobStore, BlobStoreError, type BlobTooLarge, type StoredBlob } from "../../common/BlobStore.ts"

export interface PartFile {
  readonly kind: "file"
  readonly index: number
  /** A title: the attachment's or entry's file name (or an email's subject). */
  readonly name: string
  /** As declared by the container (email parts); `null` when it says nothing (ZIP entries). */
  readonly mimeType: string | null
  /** SHA-256 of the bytes in the BlobStore. */
  readonly hash: string
  readonly size: number
}

export interface PartFolder {
  readonly kind: "folder"
  readonly index: number
  readonly name: string
  readonly children: ReadonlyArray<PartEntry>
}

/** A file that stays with its provider until first opened: the parameters of its GET /documents. */
export interface PartLink {
  readonly kind: "link"
  readonly index: number
  readonly name: string
  readonly parameters: Readonly<Record<string, string>>
}

export type PartEntry = PartFile | PartFolder | PartLink

const Index = Schema.Int.pipe(Schema.nonNegative())

export const PartFile: Schema.Schema<PartFile> = Schema.Struct({
  kind: Schema.Literal("file"),
  index: Index,
  name: Schema.String,
  mimeType: Schema.NullOr(Schema.String),
  hash: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/)),
  size: Schema.Int.pipe(Schema.nonNegative())
})

export const PartFolder: Schema.Schema<PartFolder> = Schema.Struct({
  kind: Schema.Literal("folder"),
  index: Index,
  name: Schema.String,
  children: Schema.Array(Schema.suspend((): Schema.Schema<PartEntry> => PartEntry))
})

export const PartLink: Schema.Schema<PartLink> = Schema.Struct({
  kind: Schema.Literal("link"),
  index: Index,
  name: Schema.String,
  parameters: Schema.Record({ key: Schema.String, value: Schema.String })
})

export const PartEntry: Schema.Schema<PartEntry> = Schema.Union(PartFile, PartFolder, PartLink)

/** A composite's parts, in order. */
export const Parts = Schema.Array(PartEntry)

/** The same, as the JSON text stored in SQL. */
export const PartsFromJson = Schema.parseJson(Parts)

/** Every file of a tree, in index order, folders walked into. */
export const fileEntries = (parts: ReadonlyArray<PartEntry>): ReadonlyArray<PartFile> =>
  parts.flatMap((part) => (part.kind === "file" ? [part] : part.kind === "folder" ? fileEntries(part.children) : []))

/** The part with this index, at any folder depth (ZIP indices run over the whole archive). */
export const findEntry = (parts: ReadonlyArray<PartEntry>, index: number): PartEntry | undefined => {
  for (const part of parts) {
    if (part.index === index) return part
    if (part.kind === "folder") {
      const found = findEntry(part.children, index)
      if (found) return found
    }
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------

/**
 * Stores the parts of one expansion and remembers which blobs it created, so that an expansion
 * that fails can take back exactly those: a blob that already existed (the same bytes uploaded
 * before, or met twice in this container) may be referenced elsewhere and is left alone.
 */
export interface PartStore {
  readonly putStream: <E>(
    bytes: Stream.Stream<Uint8Array, E>,
    limitBytes: number
  ) => Effect.Effect<StoredBlob, E | BlobTooLarge>
  readonly putBytes: (bytes: Uint8Array) => Effect.Effect<StoredBlob>
  /** Removes the blobs this store created; for a failed expansion. */
  readonly rollback: Effect.Effect<void>
}

const isStoreError = (e: unknown): e is BlobStoreError => e instanceof BlobStoreError

/** A PartStore over the BlobStore; failures of the store itself are defects, as elsewhere. */
export const makePartStore: Effect.Effect<PartStore, never, BlobStore> = Effect.map(BlobStore, (blobs) => {
  const created = new Set<string>()
  const exists = (hash: string) => blobs.size(hash).pipe(Effect.map(Option.isSome))

  const putStream = <E>(
    bytes: Stream.Stream<Uint8Array, E>,
    limitBytes: number
  ): Effect.Effect<StoredBlob, E | BlobTooLarge> =>
    Effect.suspend(() => {
      const digest = createHash("sha256")
      let existed = false
      // Once the last byte has passed, and before put commits the blob, ask whether it is already there.
      const probe = Stream.fromEffect(
        Effect.suspend(() => exists(digest.digest("hex"))).pipe(Effect.map((found) => (existed = found)))
      )
      const hashed = bytes.pipe(
        Stream.tap((chunk) => Effect.sync(() => digest.update(chunk))),
        Stream.concat(Stream.drain(probe))
      )
      return blobs.put(hashed, limitBytes).pipe(
        Effect.tap((stored) => Effect.sync(() => existed || created.add(stored.hash))),
        Effect.catchIf(isStoreError, Effect.die)
      )
    })

  const putBytes = (bytes: Uint8Array) =>
    Effect.gen(function*() {
      const existed = yield* exists(createHash("sha256").update(bytes).digest("hex"))
      const stored = yield* blobs.putBytes(bytes)
      if (!existed) created.add(stored.hash)
      return stored
    }).pipe(Effect.orDie)

  const rollback = Effect.suspend(() =>
    Effect.forEach([...created], (hash) => blobs.remove(hash).pipe(Effect.ignore), { discard: true }).pipe(
      Effect.tap(() => Effect.sync(() => created.clear()))
    )
  )

  return { putStream, putBytes, rollback } satisfies PartStore
})
