/**
 * The annotations of a document opened through POST /registry/documents: kept by its provider, and
 * reached through the five /documents/{id}/annotations endpoints (docs/providers.md). A document
 * that spans several provider files (a folder) shows their annotations together, each ID naming its
 * file (`<index>:<provider's id>`); pages are moved between the document shown and each provider
 * file (ProviderPages.ts).
 */
import { Effect, Option } from "effect"
import { AnnotationNotFound } from "../../../schemas/broker/Annotations.ts"
import { DocumentNotFound, InvalidRequest } from "../../../schemas/broker/Document.ts"
import type { ProviderAnnotation, ProviderParameters } from "../../../schemas/provider/ProviderContract.ts"
import { findEntry } from "../composite/Parts.ts"
import { DocumentResolver } from "../documents/DocumentResolver.ts"
import { ProviderClient } from "./ProviderClient.ts"
import { filesOf, type PageMap, type PageRun, type ProviderFileRef, toFilePage, toShownPage } from "./ProviderPages.ts"
import { type Provider, ProviderSettings } from "./ProviderSettings.ts"
import { ProviderStore } from "./ProviderStore.ts"

/** What one request works on: the provider, how to ask it, and how the document maps onto its files. */
interface Scope {
  readonly documentId: string
  readonly provider: Provider
  readonly credentials: ProviderParameters
  readonly map: PageMap
  /** The document is a folder (or a folder view): its annotation IDs name their file. */
  readonly spansFiles: boolean
  /** The document is one provider file, all of it: the provider's own lists answer as they are. */
  readonly wholeFile: ProviderFileRef | undefined
}

const FILE_ID = /^(\d{1,9}):(.+)$/s

export class AnnotationProxy extends Effect.Service<AnnotationProxy>()("docstack/AnnotationProxy", {
  effect: Effect.gen(function*() {
    const { providers } = yield* ProviderSettings
    const client = yield* ProviderClient
    const store = yield* ProviderStore
    const resolver = yield* DocumentResolver

    /** The pages of documents, in layout order, counted with the document each belongs to. */
    const pagesOf = (ids: ReadonlyArray<string>) =>
      Effect.forEach(ids, (id) =>
        resolver.ready(id).pipe(
          Effect.flatMap(resolver.pagesOf),
          Effect.map((pages) => ({ id, count: pages.length }))
        ))

    /** The documents with pages a document shows: itself, or those under it. */
    const leavesOf = (documentId: string) =>
      resolver.resolve(documentId).pipe(
        Effect.flatMap((target) =>
          target.kind === "container" ? resolver.documentIdsUnder(target) : Effect.succeed([documentId])
        )
      )

    const scopeOf = Effect.fn("AnnotationProxy.scope")(function*(documentId: string, asked: ProviderParameters) {
      const rootId = documentId.split("/")[0]!
      const record = yield* store.find(rootId)
      if (Option.isNone(record)) {
        return yield* new DocumentNotFound({
          documentId,
          message:
            `${documentId} was not opened through POST /registry/documents: its annotations are at /annotation?documentId=`
        })
      }
      const provider = providers.get(record.value.provider)
      if (provider === undefined) {
        return yield* new DocumentNotFound({
          documentId,
          message: `The provider ${record.value.provider} of ${documentId} is no longer configured (PROVIDERS)`
        })
      }
      const root = yield* resolver.resolve(rootId)
      const isFolder = root.kind === "container" && root.format === "folder"
      // The provider file a document ID lies in: the document opened, or a folder's file `<root>/<i>`.
      const fileOf = (id: string): ProviderFileRef | undefined => {
        if (!isFolder) return { index: undefined, parameters: record.value.parameters }
        const index = Number(id.split("/")[1])
        const entry = Number.isInteger(index) ? findEntry(root.entries, index) : undefined
        return entry?.kind === "link" ? { index, parameters: entry.parameters } : undefined
      }
      const fileIdOf = (file: ProviderFileRef) => (file.index === undefined ? rootId : `${rootId}/${file.index}`)

      const shown = yield* pagesOf(yield* leavesOf(documentId))
      const runs: Array<PageRun> = []
      const offsets = new Map<string, Map<string, number>>()
      let shownFirst = 0
      for (const leaf of shown) {
        const file = fileOf(leaf.id)!
        const fileId = fileIdOf(file)
        if (!offsets.has(fileId)) {
          // Where each of the file's documents starts in the file's own page sequence.
          let first = 0
          const starts = new Map<string, number>()
          for (const part of yield* pagesOf(yield* leavesOf(fileId))) {
            starts.set(part.id, first)
            first += part.count
          }
          offsets.set(fileId, starts)
        }
        runs.push({ file, shownFirst, fileFirst: offsets.get(fileId)!.get(leaf.id)!, count: leaf.count })
        shownFirst += leaf.count
      }
      const own = fileOf(documentId)
      const spansFiles = isFolder && (documentId === rootId || own === undefined)
      return {
        documentId,
        provider,
        // Who asks, when the request says so; else who opened the document last.
        credentials: {
          ...record.value.credentials,
          ...Object.fromEntries(Object.entries(asked).filter(([name]) => provider.authenticationParameters.has(name)))
        },
        map: { runs, pageCount: shownFirst },
        spansFiles,
        wholeFile: !spansFiles && own !== undefined && fileIdOf(own) === documentId ? own : undefined
      } satisfies Scope
    })

    const parametersOf = (scope: Scope, file: ProviderFileRef) => ({ ...scope.credentials, ...file.parameters })

    const externalId = (scope: Scope, file: ProviderFileRef, id: string) =>
      scope.spansFiles ? `${file.index}:${id}` : id

    /** An annotation as the document shows it, or undefined when it stands on a page the document does not show. */
    const shownAs = (scope: Scope, file: ProviderFileRef, annotation: ProviderAnnotation) => {
      const page = toShownPage(scope.map, file, annotation.page)
      return page === undefined
        ? undefined
        : {
          ...annotation,
          page,
          ...(annotation.id === undefined ? {} : { id: externalId(scope, file, annotation.id) })
        }
    }

    const notFound = (scope: Scope, annotationId: string) =>
      new AnnotationNotFound({
        documentId: scope.documentId,
        message: `Document '${scope.documentId}' has no annotation '${annotationId}'`
      })

    /** The provider file and the provider's ID an annotation ID stands for. */
    const locate = (scope: Scope, annotationId: string) => {
      if (!scope.spansFiles) {
        const file = filesOf(scope.map)[0] ?? scope.wholeFile
        return file ? Effect.succeed({ file, id: annotationId }) : Effect.fail(notFound(scope, annotationId))
      }
      const match = FILE_ID.exec(annotationId)
      const file = match && filesOf(scope.map).find((f) => f.index === Number(match[1]))
      return file ? Effect.succeed({ file, id: match[2]! }) : Effect.fail(notFound(scope, annotationId))
    }

    /** The annotation, shown; 404 when it lies on pages this document does not show. */
    const fetchShown = (scope: Scope, annotationId: string) =>
      Effect.gen(function*() {
        const { file, id } = yield* locate(scope, annotationId)
        const annotation = yield* client.annotation(scope.provider, parametersOf(scope, file), id)
        const shown = shownAs(scope, file, annotation)
        return shown ?? (yield* notFound(scope, annotationId))
      })

    /** The provider file and page a page shown stands on; 400 past the document's pages. */
    const placeOf = (scope: Scope, page: number) => {
      const place = toFilePage(scope.map, page)
      return place
        ? Effect.succeed(place)
        : Effect.fail(
          new InvalidRequest({
            message: `Page ${page} does not exist: the document has pages 0 to ${scope.map.pageCount - 1}`
          })
        )
    }

    return {
      ids: Effect.fn("AnnotationProxy.ids")(function*(documentId: string, asked: ProviderParameters) {
        const scope = yield* scopeOf(documentId, asked)
        if (scope.wholeFile) return yield* client.annotationIds(scope.provider, parametersOf(scope, scope.wholeFile))
        const lists = yield* Effect.forEach(
          filesOf(scope.map),
          (file) =>
            client.annotations(scope.provider, parametersOf(scope, file)).pipe(
              Effect.map((list) => list.flatMap((a) => shownAs(scope, file, a)?.id ?? []))
            )
        )
        return lists.flat().map((id) => ({ id }))
      }),

      get: Effect.fn("AnnotationProxy.get")(
        function*(documentId: string, annotationId: string, asked: ProviderParameters) {
          return yield* fetchShown(yield* scopeOf(documentId, asked), annotationId)
        }
      ),

      create: Effect.fn("AnnotationProxy.create")(
        function*(documentId: string, annotation: ProviderAnnotation, asked: ProviderParameters) {
          const scope = yield* scopeOf(documentId, asked)
          const place = yield* placeOf(scope, annotation.page)
          // The provider assigns the ID.
          const { id: _given, ...fields } = annotation
          const created = yield* client.createAnnotation(scope.provider, parametersOf(scope, place.file), {
            ...fields,
            page: place.page
          })
          return shownAs(scope, place.file, created) ?? { ...created, page: annotation.page }
        }
      ),

      update: Effect.fn("AnnotationProxy.update")(
        function*(documentId: string, annotationId: string, annotation: ProviderAnnotation, asked: ProviderParameters) {
          const scope = yield* scopeOf(documentId, asked)
          const { file, id } = yield* locate(scope, annotationId)
          const place = yield* placeOf(scope, annotation.page)
          if (place.file.index !== file.index) {
            return yield* new InvalidRequest({
              message:
                `Page ${annotation.page} belongs to another file of the folder: an annotation cannot move between files`
            })
          }
          // Only what this document shows may be changed through it.
          if (!scope.wholeFile) yield* fetchShown(scope, annotationId)
          const updated = yield* client.updateAnnotation(scope.provider, parametersOf(scope, file), id, {
            ...annotation,
            id,
            page: place.page
          })
          return shownAs(scope, file, updated) ?? { ...updated, id: annotationId, page: annotation.page }
        }
      ),

      remove: Effect.fn("AnnotationProxy.remove")(
        function*(documentId: string, annotationId: string, asked: ProviderParameters) {
          const scope = yield* scopeOf(documentId, asked)
          const { file, id } = yield* locate(scope, annotationId)
          if (!scope.wholeFile) yield* fetchShown(scope, annotationId)
          yield* client.removeAnnotation(scope.provider, parametersOf(scope, file), id)
        }
      )
    }
  }),
  dependencies: [ProviderSettings.Default, ProviderClient.Default, ProviderStore.Default, DocumentResolver.Default]
}) {}
