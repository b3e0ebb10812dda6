/**
 * The annotations of the reference provider's files, kept beside each file in a hidden folder:
 * `<folder>/.annotations/<file name>.json`, an array in creation order. A write replaces the whole
 * file atomically (a temporary file renamed over it), and the writes to one file wait for each
 * other (one lock per annotation file), so that concurrent requests never lose an annotation and
 * a reader never sees half a file. A file that is not what the provider writes is refused (500,
 * naming it), never read around: the next write would drop what could not be read.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Either, ParseResult, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { ProviderAnnotation } from "../../schemas/provider/ProviderContract.ts"
import { AnnotationNotFound, AnnotationsUnreadable } from "../../schemas/provider/ProviderErrors.ts"
import { makeKeyedLocks } from "../common/KeyedLocks.ts"
import type { DocumentParameters } from "./DocumentNames.ts"
import { type HiddenFile, hiddenFileOf, readHiddenText, writeJsonAtomically } from "./HiddenFiles.ts"
import { ProviderDocuments } from "./ProviderDocuments.ts"
import { ProviderRoot } from "./ProviderRoot.ts"

export const ANNOTATIONS_FOLDER = ".annotations"

/** A stored annotation: the contract's, with the ID the provider gave it. */
type StoredAnnotation = ProviderAnnotation & { readonly id: string }

const decodeStored = Schema.decodeUnknownEither(Schema.parseJson(Schema.Array(ProviderAnnotation)))

/** 12 base64url characters: 72 random bits. */
const newAnnotationId = () => `an_${randomBytes(9).toString("base64url")}`

/** Where a file's annotations are kept, and how a message names that place. */
type AnnotationFile = HiddenFile

export class ProviderAnnotations extends Effect.Service<ProviderAnnotations>()("docstack/ProviderAnnotations", {
  effect: Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const root = yield* ProviderRoot
    const documents = yield* ProviderDocuments

    /** One lock per annotation file: the writes to one file wait for each other. */
    const locks = makeKeyedLocks()

    /** The annotation file of the file the parameters name; a folder has none. */
    const annotationFile = (parameters: DocumentParameters) =>
      hiddenFileOf(documents, root, ANNOTATIONS_FOLDER, "annotations", parameters)

    const unreadable = (at: AnnotationFile, why: string) =>
      new AnnotationsUnreadable({ message: `The annotation file ${at.shown} cannot be read: ${why}` })

    const read = (at: AnnotationFile) =>
      Effect.gen(function*() {
        const text = yield* readHiddenText(fs, at, "[]")
        const decoded = decodeStored(text)
        if (Either.isLeft(decoded)) {
          return yield* unreadable(at, ParseResult.TreeFormatter.formatErrorSync(decoded.left))
        }
        const ids = new Set<string>()
        for (const [i, annotation] of decoded.right.entries()) {
          if (typeof annotation.id !== "string" || annotation.id === "") {
            return yield* unreadable(at, `annotation ${i} has no id`)
          }
          if (ids.has(annotation.id)) return yield* unreadable(at, `the id '${annotation.id}' is given twice`)
          ids.add(annotation.id)
        }
        return decoded.right as ReadonlyArray<StoredAnnotation>
      })

    const write = (at: AnnotationFile, annotations: ReadonlyArray<StoredAnnotation>) =>
      writeJsonAtomically(fs, at, annotations)

    /** Reads, changes and writes one file's annotations, holding its lock throughout. */
    const change = <A, E>(
      at: AnnotationFile,
      f: (
        annotations: ReadonlyArray<StoredAnnotation>
      ) => Effect.Effect<readonly [ReadonlyArray<StoredAnnotation>, A], E>
    ) =>
      locks.withLock(at.file)(
        read(at).pipe(
          Effect.flatMap(f),
          Effect.flatMap(([annotations, result]) => write(at, annotations).pipe(Effect.as(result)))
        )
      )

    const notFound = (annotationId: string) =>
      new AnnotationNotFound({ annotationId, message: `No annotation '${annotationId}' on this document` })

    /** The annotation as stored: its ID first, the ID given (in a path) winning over one in the body. */
    const withId = (id: string, annotation: ProviderAnnotation): StoredAnnotation => {
      const { id: _ignored, ...rest } = annotation
      return { id, ...rest }
    }

    const list = Effect.fn("ProviderAnnotations.list")(function*(parameters: DocumentParameters) {
      // No lock: a write renames a whole file into place, so a read sees the file before or after it.
      return yield* read(yield* annotationFile(parameters))
    })

    return {
      list,
      ids: Effect.fn("ProviderAnnotations.ids")(function*(parameters: DocumentParameters) {
        return (yield* list(parameters)).map(({ id }) => ({ id }))
      }),
      get: Effect.fn("ProviderAnnotations.get")(function*(parameters: DocumentParameters, annotationId: string) {
        const found = (yield* list(parameters)).find(({ id }) => id === annotationId)
        return found ?? (yield* notFound(annotationId))
      }),
      create: Effect.fn("ProviderAnnotations.create")(
        function*(parameters: DocumentParameters, annotation: ProviderAnnotation) {
          const at = yield* annotationFile(parameters)
          return yield* change(at, (annotations) => {
            let id = newAnnotationId()
            while (annotations.some((a) => a.id === id)) id = newAnnotationId()
            const created = withId(id, annotation)
            return Effect.succeed([[...annotations, created], created] as const)
          })
        }
      ),
      update: Effect.fn("ProviderAnnotations.update")(
        function*(parameters: DocumentParameters, annotationId: string, annotation: ProviderAnnotation) {
          const at = yield* annotationFile(parameters)
          return yield* change(at, (annotations) => {
            const index = annotations.findIndex(({ id }) => id === annotationId)
            if (index < 0) return Effect.fail(notFound(annotationId))
            const updated = withId(annotationId, annotation)
            return Effect.succeed([annotations.map((a, i) => i === index ? updated : a), updated] as const)
          })
        }
      ),
      remove: Effect.fn("ProviderAnnotations.remove")(function*(parameters: DocumentParameters, annotationId: string) {
        const at = yield* annotationFile(parameters)
        yield* change(at, (annotations) =>
          annotations.some(({ id }) => id === annotationId)
            ? Effect.succeed([annotations.filter(({ id }) => id !== annotationId), undefined] as const)
            : Effect.fail(notFound(annotationId)))
      })
    } as const
  }),
  dependencies: [ProviderRoot.Default, ProviderDocuments.Default]
}) {}
