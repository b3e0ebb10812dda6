/**
 * A ZIP archive as the parts of a composite document: each entry streamed into the BlobStore, one at
 * a time, under limits counted on the bytes actually decompressed (never on declared sizes).
 *
 * Numbering (see Parts.ts): from 1, no part 0, depth-first over the whole archive in archive order;
 * a folder, met as a `dir/` entry or implied by a path such as `images/smile.gif`, takes the next
 * index when first met and its contents follow it. Archives inside the archive are parts like any
 * other file: they are expanded when that part is opened, by calling `expandZip` on it.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Config, Effect, Schema, Stream } from "effect"
import { stat } from "node:fs/promises"
import type { Readable } from "node:stream"
import * as yauzl from "yauzl"
import type { BlobStore } from "../../common/BlobStore.ts"
import { makePartStore, type PartEntry } from "./Parts.ts"

/** The archive cannot be expanded: damaged, encrypted, or over a limit. `message` says which. */
export class ArchiveRejected extends Schema.TaggedError<ArchiveRejected>()(
  "ArchiveRejected",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {}

export const ZipLimits = Config.all({
  /** Entries in the central directory, folders and skipped entries included. */
  maxEntries: Config.integer("ZIP_MAX_ENTRIES").pipe(Config.withDefault(10_000)),
  /** Decompressed bytes of all entries together. */
  maxTotalBytes: Config.number("ZIP_MAX_TOTAL_BYTES").pipe(Config.withDefault(1024 * 1024 * 1024)),
  /** Decompressed size over compressed size, per entry and for the whole archive (zip-bomb guard). */
  maxRatio: Config.number("ZIP_MAX_RATIO").pipe(Config.withDefault(200)),
  /** Folder levels an entry may sit under. */
  maxDepth: Config.integer("ZIP_MAX_DEPTH").pipe(Config.withDefault(32))
})

/** Expansion ratios are only held against an entry (or archive) once it has expanded past this. */
export const RATIO_GRACE_BYTES = 1024 * 1024

/** Entries no one means as content: macOS resource forks and Finder metadata. */
const isSkipped = (segments: ReadonlyArray<string>) =>
  segments[0] === "__MACOSX" || segments[segments.length - 1] === ".DS_Store"

interface FileNode {
  readonly kind: "file"
  readonly name: string
  readonly hash: string
  readonly size: number
}

interface FolderNode {
  readonly kind: "folder"
  readonly name: string
  readonly children: Array<FileNode | FolderNode>
  readonly folders: Map<string, FolderNode>
}

const newFolder = (name: string): FolderNode => ({ kind: "folder", name, children: [], folders: new Map() })

/** Indices depth-first: a folder first, then what it holds. */
const numbered = (nodes: ReadonlyArray<FileNode | FolderNode>, counter: { next: number }): ReadonlyArray<PartEntry> =>
  nodes.map((node): PartEntry => {
    const index = counter.next++
    return node.kind === "file"
      ? { kind: "file", index, name: node.name, mimeType: null, hash: node.hash, size: node.size }
      : { kind: "folder", index, name: node.name, children: numbered(node.children, counter) }
  })

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

const damaged = (error: unknown) =>
  new ArchiveRejected({ message: `The ZIP archive is damaged or unreadable: ${reasonOf(error)}` })

const openArchive = (path: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      // decodeStrings off: yauzl would refuse names such as "../x"; here a name is only a title.
      try: () =>
        yauzl.openPromise(path, {
          lazyEntries: true,
          autoClose: false,
          decodeStrings: false,
          validateEntrySizes: true
        }),
      catch: (error) => new ArchiveRejected({ message: `The file is not a readable ZIP archive: ${reasonOf(error)}` })
    }).pipe(Effect.tap((zip) => Effect.sync(() => zip.on("error", () => {})))), // errors arrive through the promises
    (zip) => Effect.sync(() => zip.close())
  )

/**
 * Stores every entry of the ZIP archive at `path` and returns the tree of parts. Entry names are
 * titles only (a `../` in one changes nothing). A rejected archive leaves no blob behind that it
 * created.
 */
export const expandZip = Effect.fn("Zip.expandZip")(function*(path: string) {
  const limits = yield* Effect.orDie(ZipLimits)
  const store = yield* makePartStore
  return yield* Effect.scoped(Effect.gen(function*() {
    const archiveSize = yield* Effect.promise(() => stat(path)).pipe(Effect.map((info) => info.size))
    const zip = yield* openArchive(path)
    if (zip.entryCount > limits.maxEntries) {
      return yield* new ArchiveRejected({
        message:
          `The archive has ${zip.entryCount} entries, more than the ${limits.maxEntries} allowed (ZIP_MAX_ENTRIES)`
      })
    }
    const root = newFolder("")
    const folderAt = (segments: ReadonlyArray<string>) =>
      segments.reduce((parent, name) => {
        let folder = parent.folders.get(name)
        if (!folder) {
          folder = newFolder(name)
          parent.folders.set(name, folder)
          parent.children.push(folder)
        }
        return folder
      }, root)

    const entries = zip.eachEntry()
    let count = 0
    let total = 0
    while (true) {
      const next = yield* Effect.tryPromise({ try: () => entries.next(), catch: damaged })
      if (next.done) break
      const entry = next.value
      if (++count > limits.maxEntries) {
        return yield* new ArchiveRejected({
          message: `The archive has more than ${limits.maxEntries} entries (ZIP_MAX_ENTRIES)`
        })
      }
      const fullName = yauzl.getFileNameLowLevel(
        entry.generalPurposeBitFlag,
        entry.fileNameRaw,
        entry.extraFields,
        false
      )
      const segments = fullName.split("/").filter((segment) => segment !== "" && segment !== ".")
      if (segments.length === 0 || isSkipped(segments)) continue
      const isFolder = fullName.endsWith("/")
      const folders = isFolder ? segments : segments.slice(0, -1)
      if (folders.length > limits.maxDepth) {
        return yield* new ArchiveRejected({
          message: `Entry "${fullName}" is nested in more than ${limits.maxDepth} folders (ZIP_MAX_DEPTH)`
        })
      }
      const parent = folderAt(folders)
      if (isFolder) continue

      if (entry.isEncrypted()) {
        return yield* new ArchiveRejected({
          message: `The archive is password-protected (entry "${fullName}" is encrypted)`
        })
      }
      if (!entry.canDecodeFileData()) {
        return yield* new ArchiveRejected({
          message:
            `Entry "${fullName}" uses compression method ${entry.compressionMethod}; only stored and deflated entries can be read`
        })
      }
      const tooLarge = new ArchiveRejected({
        message: `The archive expands to more than ${limits.maxTotalBytes} bytes (ZIP_MAX_TOTAL_BYTES)`
      })
      if (total + entry.uncompressedSize > limits.maxTotalBytes) return yield* tooLarge

      const readable: Readable = yield* Effect.tryPromise({
        try: () => zip.openReadStreamPromise(entry),
        catch: damaged
      })
      // Errors reach the stream below while it is read; one that comes after (the inflater still
      // writing into a size check we stopped reading) must not become an uncaught exception.
      readable.on("error", () => {})
      let entryBytes = 0
      const bytes = Stream.fromAsyncIterable(readable as AsyncIterable<Uint8Array>, damaged).pipe(
        Stream.tap((chunk): Effect.Effect<void, ArchiveRejected> => {
          entryBytes += chunk.byteLength
          total += chunk.byteLength
          if (total > limits.maxTotalBytes) return Effect.fail(tooLarge)
          if (entryBytes > RATIO_GRACE_BYTES && entryBytes > limits.maxRatio * Math.max(entry.compressedSize, 1)) {
            return Effect.fail(
              new ArchiveRejected({
                message:
                  `Entry "${fullName}" expands to more than ${limits.maxRatio} times its compressed size (ZIP_MAX_RATIO): refused as a possible zip bomb`
              })
            )
          }
          if (total > RATIO_GRACE_BYTES && total > limits.maxRatio * archiveSize) {
            return Effect.fail(
              new ArchiveRejected({
                message:
                  `The archive expands to more than ${limits.maxRatio} times its size (ZIP_MAX_RATIO): refused as a possible zip bomb`
              })
            )
          }
          return Effect.void
        })
      )
      const stored = yield* store.putStream(bytes, limits.maxTotalBytes).pipe(
        Effect.catchTag("BlobTooLarge", () => Effect.fail(tooLarge)),
        Effect.ensuring(Effect.sync(() => readable.destroy()))
      )
      parent.children.push({ kind: "file", name: segments[segments.length - 1]!, hash: stored.hash, size: stored.size })
    }
    return numbered(root.children, { next: 1 })
  })).pipe(Effect.onError(() => store.rollback))
}) satisfies (path: string) => Effect.Effect<ReadonlyArray<PartEntry>, ArchiveRejected, BlobStore>
