/**
 * The annotations of documents opened through POST /documents (spec: Annotations): the broker's
 * own, kept in SQL, and those the PDF file itself holds, which a user can change or delete too
 * (the change is kept beside the file). Also the creation policy, the XFDF export and the FDF ↔
 * XFDF conversion. See docs/annotations.md.
 */
import { Config, Effect, Option, Stream } from "effect"
import { randomBytes } from "node:crypto"
import {
  Annotation,
  type AnnotationFileType,
  AnnotationFlags,
  type AnnotationIds,
  AnnotationNotFound,
  Annotations as AnnotationList
} from "../../../schemas/broker/Annotations.ts"
import { DocumentIdRef, InvalidRequest } from "../../../schemas/broker/Document.ts"
import { capBody, uploadDrainBytes } from "../../common/BodyLimit.ts"
import { DerivedCache } from "../../common/DerivedCache.ts"
import { DocumentResolver, processingFailed } from "../documents/DocumentResolver.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import { fromPdfAnnotation, quadPointsOf, toPdfAnnotation } from "./AnnotationModel.ts"
import { AnnotationPolicies } from "./AnnotationPolicies.ts"
import { AnnotationBasis, ReadAnnotations } from "./AnnotationRequests.ts"
import { AnnotationStore } from "./AnnotationStore.ts"
import { parseFdf, writeFdf } from "./Fdf.ts"
import type { PageGeometry } from "./PageSpace.ts"
import { hasLineEndings, type PdfAnnotation } from "./PdfAnnotation.ts"
import { parseXfdf, writeXfdf } from "./Xfdf.ts"

export const AnnotationsConfig = Config.all({
  /** Largest FDF or XFDF file POST /annotations/conversion and POST /documents/{id}/file/annotations take. */
  maxFileBytes: Config.integer("ANNOTATION_FILE_MAX_BYTES").pipe(Config.withDefault(50 * 1024 * 1024)),
  drainBytes: uploadDrainBytes,
  /** Most annotations one PUT, POST or DELETE may name: each is checked and written in one transaction. */
  perRequest: Config.integer("ANNOTATIONS_PER_REQUEST").pipe(Config.withDefault(10_000))
})

const newAnnotationId = () => `a_${randomBytes(12).toString("base64url")}`

/**
 * The form of an ID a client may give a new annotation (docs/annotations.md): one URL path
 * segment, an XFDF name and a PDF /NM as it is, long enough not to be guessed by chance.
 */
const CLIENT_ID = /^[A-Za-z0-9_-]{8,64}$/

/** What its type needs that the annotation lacks, if anything. */
const shapeProblem = (a: Annotation): string | undefined => {
  const points = a.points?.length ?? 0
  switch (a.type) {
    case "Ink":
      return (a.inkList?.some((stroke) => stroke.length > 0) ?? false)
        ? undefined
        : "an Ink annotation needs inkList, with at least one point"
    case "Line":
      return points === 2 ? undefined : "a Line annotation needs points: its two ends"
    case "Polygon":
      return points >= 3 ? undefined : "a Polygon annotation needs at least three points"
    case "PolyLine":
      return points >= 2 ? undefined : "a PolyLine annotation needs at least two points"
    default:
      return undefined
  }
}

/** Everything wrong with an annotation for a document of `pageCount` pages (unknown: not checked). */
const problemsOfOne = (a: Annotation, pageCount: number | undefined): Array<string> => [
  ...(pageCount !== undefined && a.page >= pageCount
    ? [`page ${a.page} does not exist: the document has pages 0 to ${pageCount - 1}`]
    : []),
  ...(a.position.w < 0 || a.position.h < 0 ? ["position must have a width and height of 0 or more"] : []),
  ...(a.lineEndings !== undefined && !hasLineEndings(a.type) ? ["lineEndings is for Line and PolyLine only"] : []),
  ...[shapeProblem(a)].filter((p) => p !== undefined)
]

/** An annotation's flags when a client gives none: shown and printed (docs/annotations.md). */
const DEFAULT_FLAGS = new AnnotationFlags({ hidden: false, readonly: false, locked: false, print: true })

/** The annotation as the broker keeps it: its ID, its document, its dates and geometry completed. */
const completed = (
  a: Annotation,
  id: string,
  documentId: string,
  now: string,
  created: string | undefined,
  origin: "store" | "file"
) =>
  new Annotation({
    ...a,
    id: new DocumentIdRef({ id }),
    documentId: new DocumentIdRef({ id: documentId }),
    date: a.date ?? now,
    creationDate: a.creationDate ?? created ?? now,
    flags: a.flags ?? DEFAULT_FLAGS,
    origin,
    quadPoints: quadPointsOf(a)
  })

export class Annotations extends Effect.Service<Annotations>()("docstack/Annotations", {
  effect: Effect.gen(function*() {
    const resolver = yield* DocumentResolver
    const derived = yield* DerivedCache
    const engine = yield* PdfEngine
    const store = yield* AnnotationStore
    const { policy } = yield* AnnotationPolicies
    const config = yield* AnnotationsConfig

    /** What annotations need of a document: its pages' geometry, and the annotations its PDF holds (kept in the derived cache). */
    const basisOf = Effect.fn("Annotations.basisOf")(function*(documentId: string) {
      const doc = yield* resolver.ready(documentId)
      if (!doc.renditionHash) {
        const pages = yield* resolver.pagesOf(doc)
        return new AnnotationBasis({
          pages: pages.map((p) => ({ x0: 0, y0: 0, width: p.width, height: p.height, rotation: p.rotation })),
          fileAnnotations: []
        })
      }
      const pdf = yield* resolver.pdfOf(doc)
      return yield* derived.json(
        pdf.hash,
        "annotations.json",
        AnnotationBasis,
        engine.run(new ReadAnnotations(pdf)).pipe(Effect.mapError(processingFailed(doc.id)))
      )
    })

    /** The document's annotations as they stand: the file's (as changed by users) and the broker's. */
    const current = (documentId: string) =>
      Effect.gen(function*() {
        const basis = yield* basisOf(documentId)
        const rows = yield* store.forDocument(documentId)
        const changed = new Map(rows.filter((r) => r.fromFile).map((r) => [r.id, r]))
        const fromFile = basis.fileAnnotations.flatMap((p) => {
          const change = changed.get(p.name)
          if (change) return change.deleted ? [] : [change.body]
          const geometry = basis.pages[p.page]
          return geometry ? [fromPdfAnnotation(p, geometry, documentId, "file")] : []
        })
        const stored = rows.filter((r) => !r.fromFile).map((r) => r.body)
        const fileIds = new Set(basis.fileAnnotations.map((p) => p.name))
        return {
          pages: basis.pages,
          fileIds,
          all: [...fromFile, ...stored],
          /** The file's annotations users deleted, as they were: a PUT naming one brings it back. */
          deletedFromFile: new Map(
            rows.filter((r) => r.fromFile && r.deleted && fileIds.has(r.id)).map((r) => [r.id, r.body])
          )
        }
      })

    type State = Effect.Effect.Success<ReturnType<typeof current>>

    const redactReasons = new Set(policy.availableRedactReasons.map((r) => r.symbolicName))

    /**
     * What is wrong with each of `annotations`, labelled by its place in `label`; `pageCountOf` gives
     * the page count of the annotation's document (undefined: not known yet). A redaction reason must
     * be one of the policy's, unless it is the one the annotation had before (`before`): a file's
     * redaction may carry any overlay text. `idProblems` adds what is wrong with the ID a client gave.
     */
    const problemsOf = (
      annotations: ReadonlyArray<Annotation>,
      label: string,
      pageCountOf: (a: Annotation) => number | undefined,
      before: (a: Annotation) => Annotation | undefined = () => undefined,
      idProblems: (a: Annotation) => ReadonlyArray<string> = () => []
    ) =>
      annotations.flatMap((a, i) => {
        const problems = [...idProblems(a), ...problemsOfOne(a, pageCountOf(a))]
        if (
          a.redactReason !== undefined && !redactReasons.has(a.redactReason) &&
          before(a)?.redactReason !== a.redactReason
        ) {
          problems.push(
            `redactReason '${a.redactReason}' is not one of the policy's (${[...redactReasons].join(", ")})`
          )
        }
        return problems.length === 0 ? [] : [`${label}[${i}] (${a.type}): ${problems.join(", ")}`]
      })

    const check = (
      annotations: ReadonlyArray<Annotation>,
      pages: ReadonlyArray<PageGeometry>,
      before: (a: Annotation) => Annotation | undefined,
      idProblems?: (a: Annotation) => ReadonlyArray<string>
    ) => {
      const problems = problemsOf(annotations, "annotations", () => pages.length, before, idProblems)
      return problems.length === 0 ? Effect.void : Effect.fail(new InvalidRequest({ message: problems.join("; ") }))
    }

    /**
     * What is wrong with the IDs clients gave new annotations (PUT): one the document shows (an
     * annotation's or a reply's) is taken, one of another form than CLIENT_ID refused, and one ID
     * may name one annotation of the body only. A deleted annotation of the file may be named
     * whatever its form: the PUT brings it back.
     */
    const clientIdProblems = (
      annotations: ReadonlyArray<Annotation>,
      { all, deletedFromFile }: Pick<State, "all" | "deletedFromFile">
    ) => {
      const shown = new Set(all.flatMap((a) => [a.id!.id, ...(a.replies ?? []).flatMap((r) => r.id ?? [])]))
      const given = new Map<string, number>()
      for (const a of annotations) if (a.id !== undefined) given.set(a.id.id, (given.get(a.id.id) ?? 0) + 1)
      return (a: Annotation): ReadonlyArray<string> => {
        if (a.id === undefined) return []
        const id = a.id.id
        if (shown.has(id)) {
          return [`id '${id}' is taken by an annotation the document shows: change that one with POST, or leave id out`]
        }
        if (!deletedFromFile.has(id) && !CLIENT_ID.test(id)) {
          return ["an id a client gives is 8 to 64 letters, digits, '_' or '-' (or leave id out)"]
        }
        return given.get(id)! > 1 ? [`id '${id}' is given to more than one annotation of the body`] : []
      }
    }

    /** A request naming more annotations than ANNOTATIONS_PER_REQUEST is refused before any is read. */
    const withinLimit = (annotations: ReadonlyArray<unknown>) =>
      annotations.length <= config.perRequest
        ? Effect.void
        : Effect.fail(
          new InvalidRequest({
            message:
              `The request names ${annotations.length} annotations, more than ${config.perRequest} (ANNOTATIONS_PER_REQUEST): send them in parts`
          })
        )

    const missing = (documentId: string, ids: ReadonlyArray<string>) =>
      new AnnotationNotFound({
        documentId,
        message: `No annotation ${ids.map((id) => `'${id}'`).join(", ")} on document '${documentId}'`
      })

    const idsOf = (annotations: ReadonlyArray<{ readonly id?: DocumentIdRef | undefined }>) =>
      Effect.forEach(
        annotations,
        (a, i) =>
          a.id === undefined
            ? Effect.fail(
              new InvalidRequest({
                message: `annotations[${i}] has no id: name each annotation to change by the id it was given`
              })
            )
            : Effect.succeed(a.id.id)
      )

    /**
     * Checks every annotation, then writes them all in one transaction: one that `replaces` an
     * annotation takes its ID, creation date and origin; any other is added under `newId`. Answers
     * the IDs written, in order.
     */
    const save = (
      documentId: string,
      annotations: ReadonlyArray<Annotation>,
      { fileIds, pages }: Pick<State, "fileIds" | "pages">,
      replaces: (a: Annotation) => Annotation | undefined,
      newId: (a: Annotation) => string = newAnnotationId,
      idProblems?: (a: Annotation) => ReadonlyArray<string>
    ) =>
      Effect.gen(function*() {
        yield* check(annotations, pages, replaces, idProblems)
        const now = new Date().toISOString()
        const rows = annotations.map((a) => {
          const before = replaces(a)
          if (before === undefined) {
            return { annotation: completed(a, newId(a), documentId, now, undefined, "store"), fromFile: false }
          }
          const id = before.id!.id
          const fromFile = fileIds.has(id)
          return {
            annotation: completed(a, id, documentId, now, before.creationDate, fromFile ? "file" : "store"),
            fromFile
          }
        })
        yield* store.save(documentId, rows)
        return rows.map((r) => r.annotation.id!.id)
      })

    /** Every annotation of the document in PDF space, with the geometry of its pages: for files written with them. */
    const inPdfSpace = (documentId: string) =>
      current(documentId).pipe(
        Effect.map(({ all, pages, fileIds }) => ({
          pages,
          annotations: all.flatMap((a) => (pages[a.page] ? [toPdfAnnotation(a, a.id!.id, pages[a.page]!)] : [])),
          /** Whether the file holds annotations of its own (shown, changed or deleted). */
          fileHasAnnotations: fileIds.size > 0
        }))
      )

    /** An FDF or XFDF body, up to ANNOTATION_FILE_MAX_BYTES: a larger one is refused without being held in memory. */
    const readFile = (body: Stream.Stream<Uint8Array, InvalidRequest>, what: string) =>
      Effect.gen(function*() {
        const tooLarge = () =>
          new InvalidRequest({
            message: `The ${what} file is larger than ${config.maxFileBytes} bytes (ANNOTATION_FILE_MAX_BYTES)`
          })
        const chunks = yield* Stream.runCollect(capBody(body, config.maxFileBytes, config.drainBytes, tooLarge))
        const bytes = Buffer.concat([...chunks])
        if (bytes.byteLength === 0) {
          return yield* new InvalidRequest({ message: `The body is empty: send the ${what} file's bytes` })
        }
        return bytes
      })

    const parse = (
      type: AnnotationFileType,
      bytes: Uint8Array
    ) => (type === "XFDF" ? parseXfdf(bytes) : parseFdf(bytes))
    const write = (type: AnnotationFileType, annotations: ReadonlyArray<PdfAnnotation>, fileName: string | undefined) =>
      type === "XFDF"
        ? new TextEncoder().encode(writeXfdf(annotations, fileName === undefined ? {} : { fileName }))
        : writeFdf(annotations, fileName === undefined ? {} : { fileName })

    return {
      list: Effect.fn("Annotations.list")(function*(documentId: string) {
        return new AnnotationList({ annotations: (yield* current(documentId)).all })
      }),

      /**
       * PUT: new annotations, each under the ID its client gave (checked by clientIdProblems) or a
       * new one. Naming a deleted annotation of the file brings it back, with the body given.
       */
      create: Effect.fn("Annotations.create")(function*(documentId: string, body: AnnotationList) {
        yield* withinLimit(body.annotations)
        const state = yield* current(documentId)
        yield* save(
          documentId,
          body.annotations,
          state,
          (a) => (a.id === undefined ? undefined : state.deletedFromFile.get(a.id.id)),
          (a) => a.id?.id ?? newAnnotationId(),
          clientIdProblems(body.annotations, state)
        )
      }),

      /** POST: annotations replaced, each named by its ID; one unknown ID changes nothing. */
      update: Effect.fn("Annotations.update")(function*(documentId: string, body: AnnotationList) {
        yield* withinLimit(body.annotations)
        const state = yield* current(documentId)
        const ids = yield* idsOf(body.annotations)
        const existing = new Map(state.all.map((a) => [a.id!.id, a]))
        const unknown = ids.filter((id) => !existing.has(id))
        if (unknown.length > 0) return yield* missing(documentId, unknown)
        yield* save(documentId, body.annotations, state, (a) => existing.get(a.id!.id))
      }),

      /**
       * Annotations read from a file (AnnotationImport.ts): one whose ID is that of one of the
       * document's annotations replaces it, every other is added under a new ID. Not bounded by
       * ANNOTATIONS_PER_REQUEST: the file's size bounds them. Answers the IDs written, in order.
       */
      replaceOrAdd: Effect.fn("Annotations.replaceOrAdd")(function*(
        documentId: string,
        annotations: ReadonlyArray<Annotation>
      ) {
        const state = yield* current(documentId)
        const existing = new Map(state.all.map((a) => [a.id!.id, a]))
        return yield* save(
          documentId,
          annotations,
          state,
          (a) => (a.id === undefined ? undefined : existing.get(a.id.id))
        )
      }),

      /** DELETE: the named annotations go; one unknown ID removes nothing. */
      remove: Effect.fn("Annotations.remove")(function*(documentId: string, body: AnnotationIds) {
        yield* withinLimit(body.annotations)
        const { all, fileIds } = yield* current(documentId)
        const ids = yield* idsOf(body.annotations)
        const existing = new Map(all.map((a) => [a.id!.id, a]))
        const unknown = ids.filter((id) => !existing.has(id))
        if (unknown.length > 0) return yield* missing(documentId, unknown)
        yield* store.remove(
          documentId,
          ids.filter((id) => !fileIds.has(id)),
          ids.filter((id) => fileIds.has(id)).map((id) => existing.get(id)!)
        )
      }),

      policy: Effect.fn("Annotations.policy")(function*(documentId: string) {
        yield* resolver.check(documentId)
        return policy
      }),

      /** GET /documents/{id}/file/annotations: every annotation the document shows, as XFDF. */
      xfdf: Effect.fn("Annotations.xfdf")(function*(documentId: string) {
        const { annotations } = yield* inPdfSpace(documentId)
        if (annotations.length === 0) {
          return yield* new AnnotationNotFound({ documentId, message: `Document '${documentId}' has no annotations` })
        }
        const title = Option.getOrUndefined(yield* resolver.title(documentId))
        return writeXfdf(annotations, title === undefined ? {} : { fileName: title })
      }),

      /** POST /annotations/conversion: FDF to XFDF and back (or a file rewritten in its own format). */
      convert: Effect.fn("Annotations.convert")(function*(
        documentId: string,
        sourceType: AnnotationFileType,
        targetType: AnnotationFileType,
        body: Stream.Stream<Uint8Array, InvalidRequest>
      ) {
        yield* resolver.check(documentId)
        const bytes = yield* readFile(body, sourceType)
        const annotations = yield* parse(sourceType, bytes).pipe(
          Effect.mapError((e) => new InvalidRequest({ message: e.message }))
        )
        const title = Option.getOrUndefined(yield* resolver.title(documentId))
        return write(targetType, annotations, title)
      }),

      inPdfSpace,
      readFile,
      problemsOf,
      basisOf
    }
  }),
  dependencies: [
    DocumentResolver.Default,
    DerivedCache.Default,
    PdfEngine.Default,
    AnnotationStore.Default,
    AnnotationPolicies.Default
  ]
}) {}
