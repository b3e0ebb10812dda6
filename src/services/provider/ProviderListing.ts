/**
 * A folder as GET /documents answers it: a ProviderFolder with every subfolder expanded, to any
 * depth, and every entry carrying the parameters that fetch it again. What a listing leaves out:
 * hidden entries ('.'), what lies outside the root (a symbolic link out), what is neither a file
 * nor a folder, what the user may not view, and a link back to a folder being listed (a loop).
 */
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Option } from "effect"
import * as path from "node:path"
import type { ProviderDocument, ProviderFolder } from "../../schemas/provider/ProviderContract.ts"
import type { DocumentName } from "./DocumentNames.ts"
import type { Viewer } from "./ProviderAccess.ts"
import { type Entry, ProviderRoot } from "./ProviderRoot.ts"

/** Entries looked at together in one folder: enough to hide disk latency, few enough for file handles. */
const ENTRY_CONCURRENCY = 16

/** One order for every answer, whatever the machine's locale: file2 before file10. */
const byName = new Intl.Collator("en", { numeric: true })

/** The folder to list: where it is, what it is called, and how the request named it. */
export interface ListedFolder {
  readonly real: string
  readonly name: string
  readonly segments: ReadonlyArray<string>
  readonly naming: DocumentName
  readonly viewer: Viewer
}

export class ProviderListing extends Effect.Service<ProviderListing>()("docstack/ProviderListing", {
  effect: Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const root = yield* ProviderRoot

    const names = (real: string) =>
      fs.readDirectory(real).pipe(
        Effect.map((all) => all.filter((name) => !name.startsWith(".")))
      )

    /** The entries of a folder the viewer may see, with their names, sorted. */
    const visibleEntries = (real: string, viewer: Viewer) =>
      names(real).pipe(
        Effect.flatMap((all) =>
          Effect.forEach(all, (name) =>
            root.entry(path.join(real, name)).pipe(
              Effect.flatMap(Option.match({
                onNone: () => Effect.succeed(Option.none<readonly [string, Entry]>()),
                onSome: (entry) =>
                  viewer.mayView(entry.real, entry.kind).pipe(
                    Effect.map((yes) => yes ? Option.some([name, entry] as const) : Option.none())
                  )
              }))
            ), { concurrency: ENTRY_CONCURRENCY })
        ),
        Effect.map((found) =>
          found.flatMap(Option.toArray).sort(([a], [b]) => byName.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0))
        )
      )

    const folderAnswer = (
      folder: ListedFolder,
      ancestors: ReadonlySet<string>
    ): Effect.Effect<ProviderFolder, PlatformError> =>
      Effect.gen(function*() {
        const within = new Set([...ancestors, folder.real])
        const entries = yield* visibleEntries(folder.real, folder.viewer)
        const contents: Array<ProviderDocument> = []
        // One subfolder at a time: each looks at ENTRY_CONCURRENCY entries at once already.
        for (const [name, entry] of entries) {
          const segments = [...folder.segments, name]
          if (entry.kind === "file") {
            contents.push({ type: "file", name, parameters: folder.naming.parametersOf(segments) })
          } else if (!within.has(entry.real)) {
            const sub = yield* folderAnswer({ ...folder, real: entry.real, name, segments }, within).pipe(
              // A subfolder that cannot be read is left out, not the whole answer.
              Effect.map(Option.some),
              Effect.catchAll((error) =>
                Effect.logWarning(`Folder ${root.shown(entry.real)} left out of a listing: ${error.message}`).pipe(
                  Effect.as(Option.none<ProviderFolder>())
                )
              )
            )
            if (Option.isSome(sub)) contents.push(sub.value)
          }
        }
        return { type: "folder", name: folder.name, parameters: folder.naming.parametersOf(folder.segments), contents }
      })

    return {
      /**
       * The folder and everything below it that the viewer may see. A link to a folder on the way
       * down to it (`above`) or to one being listed is left out, so that a folder's answer is the
       * same whether it is asked for itself or as part of an answer for a folder above it.
       */
      folder: Effect.fn("ProviderListing.folder")((folder: ListedFolder, above: ReadonlyArray<string>) =>
        folderAnswer(folder, new Set(above)).pipe(Effect.orDie)
      )
    } as const
  }),
  dependencies: [ProviderRoot.Default]
}) {}
