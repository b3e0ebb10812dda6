/**
 * GET /documents of the reference provider: finds what the parameters name, one path segment at a
 * time, checking at each folder on the way that the user may enter it (so a missing file inside a
 * folder the user may not view answers 403, not 404: its absence is not shown either), then answers
 * a file's bytes, streamed, or a folder's listing.
 */
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Option, type Stream } from "effect"
import * as path from "node:path"
import type { ProviderFolder } from "../../schemas/provider/ProviderContract.ts"
import { AccessDenied, DocumentNotFound, type InvalidRequest } from "../../schemas/provider/ProviderErrors.ts"
import { type DocumentName, documentName, type DocumentParameters } from "./DocumentNames.ts"
import { mediaTypeOf } from "./MediaTypes.ts"
import { ProviderAccess, type Viewer } from "./ProviderAccess.ts"
import { ProviderListing } from "./ProviderListing.ts"
import { type Entry, ProviderRoot } from "./ProviderRoot.ts"

/** A document the request may view. */
export interface Located {
  readonly entry: Entry
  /** Its name as a listing shows it: the last segment, or the store's or root folder's name. */
  readonly name: string
  readonly naming: DocumentName
  readonly viewer: Viewer
  /** The real folders the path went through on its way down (a listing does not go back up into them). */
  readonly above: ReadonlyArray<string>
}

/** A file as GET /documents sends it. */
export interface FileAnswer {
  readonly _tag: "File"
  readonly name: string
  readonly contentType: string
  readonly size: number
  readonly read: Stream.Stream<Uint8Array, PlatformError>
}

export interface FolderAnswer {
  readonly _tag: "Folder"
  readonly folder: ProviderFolder
}

export type LocateError = InvalidRequest | DocumentNotFound | AccessDenied

export class ProviderDocuments extends Effect.Service<ProviderDocuments>()("docstack/ProviderDocuments", {
  effect: Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const root = yield* ProviderRoot
    const access = yield* ProviderAccess
    const listing = yield* ProviderListing

    const notFound = (naming: DocumentName) => new DocumentNotFound({ message: `No document at ${naming.written}` })
    const denied = (naming: DocumentName, viewer: Viewer) =>
      new AccessDenied({
        message: viewer.user === undefined
          ? `Access to ${naming.written} needs a user (user or alf_ticket)`
          : `User '${viewer.user}' may not view ${naming.written}`
      })

    /** The entry at `candidate` if the viewer may view it: none if absent, 403 if forbidden. */
    const step = (
      candidate: string,
      naming: DocumentName,
      viewer: Viewer
    ): Effect.Effect<Entry, DocumentNotFound | AccessDenied> =>
      root.entry(candidate).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail<DocumentNotFound | AccessDenied>(notFound(naming)),
          onSome: (entry) =>
            viewer.mayView(entry.real, entry.kind).pipe(
              Effect.flatMap((yes) => yes ? Effect.succeed(entry) : Effect.fail(denied(naming, viewer)))
            )
        }))
      )

    const locate = Effect.fn("ProviderDocuments.locate")(function*(parameters: DocumentParameters) {
      const naming = yield* documentName(parameters)
      // Who asks is settled first: an unknown ticket is refused whatever it asks for.
      const viewer = yield* access.viewer(parameters)
      let entry = yield* step(
        naming.store === undefined ? root.root : path.join(root.root, naming.store),
        naming,
        viewer
      )
      if (entry.kind !== "folder") return yield* notFound(naming)
      const above: Array<string> = []
      for (const segment of naming.segments) {
        if (entry.kind !== "folder") return yield* notFound(naming)
        above.push(entry.real)
        entry = yield* step(path.join(entry.real, segment), naming, viewer)
      }
      const name = naming.segments.at(-1) ?? naming.store ?? path.basename(root.root)
      return { entry, name, naming, viewer, above } satisfies Located
    })

    return {
      locate,
      /** What GET /documents answers: a file to stream, or a folder's listing. */
      open: Effect.fn("ProviderDocuments.open")(function*(parameters: DocumentParameters) {
        const { above, entry, name, naming, viewer } = yield* locate(parameters)
        if (entry.kind === "folder") {
          const folder = yield* listing.folder(
            { real: entry.real, name, segments: naming.segments, naming, viewer },
            above
          )
          return { _tag: "Folder", folder } satisfies FolderAnswer
        }
        return {
          _tag: "File",
          name,
          contentType: mediaTypeOf(name),
          size: entry.size,
          read: fs.stream(entry.real)
        } satisfies FileAnswer
      })
    } as const
  }),
  dependencies: [ProviderRoot.Default, ProviderAccess.Default, ProviderListing.Default]
}) {}
