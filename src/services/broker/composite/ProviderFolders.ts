/**
 * A provider's folder (its GET /documents answer, a ProviderFolder) as the parts of a composite
 * document. Numbered as a ZIP archive but from 0: depth-first over the whole tree, a subfolder
 * taking an index of its own with its contents after it, shown expanded in place. Its files are
 * links, fetched from the provider when first opened (docs/providers.md).
 */
import { Config, Data, Effect, Schema } from "effect"
import { readFile } from "node:fs/promises"
import { ProviderFolder } from "../../../schemas/provider/ProviderContract.ts"
import type { PartEntry } from "./Parts.ts"

export class FolderRejected extends Data.TaggedError("FolderRejected")<{ readonly message: string }> {}

/** The most entries (files and subfolders, at any depth) one folder may list. */
export const folderMaxEntries = Config.integer("PROVIDER_FOLDER_MAX_ENTRIES").pipe(Config.withDefault(10_000))

/** Entries of a folder at any depth. */
const entryCount = (folder: ProviderFolder) => {
  let count = 0
  const pending = [folder.contents]
  while (pending.length > 0) {
    const contents = pending.pop()!
    count += contents.length
    for (const item of contents) if (item.type === "folder") pending.push(item.contents)
  }
  return count
}

/** The folder's parts, or why it is refused. */
export const folderParts = (
  folder: ProviderFolder,
  maxEntries: number
): Effect.Effect<ReadonlyArray<PartEntry>, FolderRejected> => {
  if (entryCount(folder) > maxEntries) {
    return Effect.fail(
      new FolderRejected({ message: `The folder lists more than ${maxEntries} entries (PROVIDER_FOLDER_MAX_ENTRIES)` })
    )
  }
  let next = 0
  const walk = (contents: ProviderFolder["contents"]): Array<PartEntry> =>
    contents.map((item): PartEntry => {
      const index = next++
      return item.type === "folder"
        ? { kind: "folder", index, name: item.name, children: walk(item.contents) }
        : { kind: "link", index, name: item.name, parameters: item.parameters }
    })
  return Effect.succeed(walk(folder.contents))
}

/** The parts of a folder answer stored at `path` (as the broker received it). */
export const expandFolder = (path: string) =>
  Effect.gen(function*() {
    const text = yield* Effect.promise(() => readFile(path, "utf8"))
    const folder = yield* Schema.decodeUnknown(Schema.parseJson(ProviderFolder))(text).pipe(
      Effect.mapError((error) => new FolderRejected({ message: `The stored folder cannot be read: ${error.message}` }))
    )
    return yield* folderParts(folder, yield* folderMaxEntries.pipe(Effect.orDie))
  })
