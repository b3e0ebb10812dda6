/**
 * The reference provider's root folder (PROVIDER_ROOT, default `<DATA_DIR>/provider`, created when
 * missing) and the one test every path passes before it is read: its real path (symbolic links
 * followed) lies inside the root's real path, and no part of it below the root is hidden ('.').
 * Whatever fails the test is answered like a missing file, so that nothing tells a caller what
 * exists outside the root.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Config, Effect, Option } from "effect"
import * as path from "node:path"
import { StorageConfig } from "../common/StorageConfig.ts"

/** A file or folder the provider may serve. */
export interface Entry {
  readonly kind: "file" | "folder"
  /** Its real path: the one that is read, and whose folders' access files apply. */
  readonly real: string
  readonly size: number
}

export const ProviderRootConfig = Effect.gen(function*() {
  const { dataDir } = yield* StorageConfig
  return yield* Config.string("PROVIDER_ROOT").pipe(Config.withDefault(path.join(dataDir, "provider")))
})

export class ProviderRoot extends Effect.Service<ProviderRoot>()("docstack/ProviderRoot", {
  effect: Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const configured = yield* ProviderRootConfig
    yield* fs.makeDirectory(configured, { recursive: true })
    // The root's own real path: a root reached through a symbolic link is still a root.
    const root = yield* fs.realPath(configured)
    yield* Effect.logInfo(`Reference provider serving ${root}`)

    const isInside = (real: string) => {
      if (real === root) return true
      if (!real.startsWith(root + path.sep)) return false
      return !path.relative(root, real).split(path.sep).some((segment) => segment.startsWith("."))
    }

    /**
     * The file or folder at `candidate` (a path below the root), when it passes the test; none
     * when it is missing, unreadable, outside, hidden, or neither a file nor a folder.
     */
    const entry = Effect.fn("ProviderRoot.entry")(function*(candidate: string) {
      // Any failure (missing, a file used as a folder, a link loop, no permission) is "not there".
      const real = yield* fs.realPath(candidate).pipe(Effect.option)
      if (Option.isNone(real) || !isInside(real.value)) return Option.none<Entry>()
      const info = yield* fs.stat(real.value).pipe(Effect.option)
      if (Option.isNone(info)) return Option.none<Entry>()
      const kind = info.value.type === "File" ? "file" : info.value.type === "Directory" ? "folder" : undefined
      return kind === undefined
        ? Option.none<Entry>()
        : Option.some<Entry>({ kind, real: real.value, size: Number(info.value.size) })
    })

    /** The folders from the root down to `folder` (a real folder inside the root), the root first. */
    const foldersDownTo = (folder: string): ReadonlyArray<string> => {
      const below = path.relative(root, folder).split(path.sep).filter((segment) => segment !== "")
      return [root, ...below.map((_, i) => path.join(root, ...below.slice(0, i + 1)))]
    }

    /** A path inside the root as messages and logs show it: relative, never the disk's layout. */
    const shown = (real: string) => path.relative(root, real) || "."

    return { root, entry, foldersDownTo, shown } as const
  })
}) {}
