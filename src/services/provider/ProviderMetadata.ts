/**
 * The metadata properties of the reference provider's files (what a viewer's "update document
 * metadata" forwards), kept as annotations are (HiddenFiles.ts): `<folder>/.metadata/<file
 * name>.json`, one JSON object, replaced atomically, the writes to one file waiting for each other
 * so that two concurrent updates of different properties both stay. An update is merged into what
 * is stored (a null removes a property), never a replacement: a client sends what it changed.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Either, Schema } from "effect"
import { ProviderMetadata as Metadata } from "../../schemas/provider/ProviderContract.ts"
import { MetadataUnreadable } from "../../schemas/provider/ProviderErrors.ts"
import { makeKeyedLocks } from "../common/KeyedLocks.ts"
import { readableParseError } from "../common/ReadableIssues.ts"
import type { DocumentParameters } from "./DocumentNames.ts"
import { type HiddenFile, hiddenFileOf, readHiddenText, writeJsonAtomically } from "./HiddenFiles.ts"
import { ProviderDocuments } from "./ProviderDocuments.ts"
import { ProviderRoot } from "./ProviderRoot.ts"

export const METADATA_FOLDER = ".metadata"

const decodeStored = Schema.decodeUnknownEither(Schema.parseJson(Metadata))

export class ProviderMetadata extends Effect.Service<ProviderMetadata>()("docstack/ProviderMetadata", {
  effect: Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const root = yield* ProviderRoot
    const documents = yield* ProviderDocuments
    const locks = makeKeyedLocks()

    const metadataFile = (parameters: DocumentParameters) =>
      hiddenFileOf(documents, root, METADATA_FOLDER, "metadata", parameters)

    /** What is stored; a file that is not an object of values is refused (500), never overwritten. */
    const read = (at: HiddenFile) =>
      readHiddenText(fs, at, "{}").pipe(
        Effect.flatMap((text) => {
          const decoded = decodeStored(text)
          return Either.isRight(decoded)
            ? Effect.succeed(decoded.right)
            : Effect.fail(
              new MetadataUnreadable({
                message: `The metadata file ${at.shown} cannot be read: ${readableParseError(decoded.left)}`
              })
            )
        })
      )

    return {
      get: Effect.fn("ProviderMetadata.get")(function*(parameters: DocumentParameters) {
        // No lock: a write renames a whole file into place, so a read sees the file before or after it.
        return yield* read(yield* metadataFile(parameters))
      }),

      /** Merges `changes` into what is stored (null removes) and answers the whole stored object. */
      update: Effect.fn("ProviderMetadata.update")(function*(parameters: DocumentParameters, changes: Metadata) {
        const at = yield* metadataFile(parameters)
        return yield* locks.withLock(at.file)(Effect.gen(function*() {
          // A Map, not an object: a property named __proto__ is a property like any other.
          const merged = new Map(Object.entries(yield* read(at)))
          for (const [name, value] of Object.entries(changes)) {
            if (value === null) merged.delete(name)
            else merged.set(name, value)
          }
          const stored: Metadata = Object.fromEntries(merged)
          yield* writeJsonAtomically(fs, at, stored)
          return stored
        }))
      })
    } as const
  }),
  dependencies: [ProviderRoot.Default, ProviderDocuments.Default]
}) {}
