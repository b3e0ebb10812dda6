/**
 * What the reference provider keeps about a file (its annotations, its metadata) lives beside it in
 * a hidden folder, `<folder>/<hidden>/<file name>.json`: out of listings and unreachable by any
 * name a request can give (a '.' segment names nothing). A write replaces the whole file
 * atomically (a temporary file renamed over it), so that a reader never sees half a file.
 */
import type { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import { DocumentNotFound } from "../../schemas/provider/ProviderErrors.ts"
import type { DocumentParameters } from "./DocumentNames.ts"
import type { ProviderDocuments } from "./ProviderDocuments.ts"
import type { ProviderRoot } from "./ProviderRoot.ts"

/** A hidden file, and how a message names it (relative to the root). */
export interface HiddenFile {
  readonly file: string
  readonly shown: string
}

/**
 * The hidden file in `hidden` kept for the file the parameters name; a folder has none (404,
 * `what` saying what only files have).
 */
export const hiddenFileOf = (
  documents: ProviderDocuments,
  root: ProviderRoot,
  hidden: string,
  what: string,
  parameters: DocumentParameters
) =>
  documents.locate(parameters).pipe(
    Effect.flatMap(({ entry, naming }) => {
      if (entry.kind === "folder") {
        return Effect.fail(new DocumentNotFound({ message: `${naming.written} is a folder: only files have ${what}` }))
      }
      // Beside the real file: a file reached through a link shares what is kept with the file.
      const file = path.join(path.dirname(entry.real), hidden, `${path.basename(entry.real)}.json`)
      return Effect.succeed<HiddenFile>({ file, shown: root.shown(file) })
    })
  )

/** Replaces the file with `value` as JSON: written whole to a temporary file beside it, then renamed over it. */
export const writeJsonAtomically = (fs: FileSystem.FileSystem, at: HiddenFile, value: unknown) =>
  Effect.gen(function*() {
    yield* fs.makeDirectory(path.dirname(at.file), { recursive: true })
    const temporary = `${at.file}.${randomBytes(6).toString("hex")}.tmp`
    yield* fs.writeFileString(temporary, `${JSON.stringify(value, null, 2)}\n`).pipe(
      Effect.zipRight(fs.rename(temporary, at.file)),
      Effect.tapError(() => fs.remove(temporary).pipe(Effect.ignore))
    )
  }).pipe(Effect.orDie)

/** The file's text, or `missing` when there is none yet. */
export const readHiddenText = (fs: FileSystem.FileSystem, at: HiddenFile, missing: string) =>
  fs.readFileString(at.file).pipe(
    Effect.catchIf((e) => e._tag === "SystemError" && e.reason === "NotFound", () => Effect.succeed(missing)),
    Effect.orDie
  )
