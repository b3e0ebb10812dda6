/**
 * Transformation orders (spec: Transformations): each transformation detail becomes one PDF made of
 * its elements' pages in order (merge, split, reorder), after the request's redactions are applied
 * for real to the source pages; its other annotations are written into the result. The result
 * documents are ordinary documents. The PDF work runs in the PDF engine's worker threads.
 * See docs/transformations.md.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import type { Annotation } from "../../../schemas/broker/Annotations.ts"
import type { Bookmark } from "../../../schemas/broker/Content.ts"
import {
  type AnnotationsInFile,
  DocumentIdRef,
  DocumentProcessingFailed,
  type FileFormatParam,
  InvalidRequest
} from "../../../schemas/broker/Document.ts"
import { OrderIdRef } from "../../../schemas/broker/Orders.ts"
import {
  TransformationOrder,
  TransformationOrderCreated,
  TransformationRequest
} from "../../../schemas/broker/Transformations.ts"
import { toPdfAnnotation } from "../annotations/AnnotationModel.ts"
import { Annotations } from "../annotations/Annotations.ts"
import type { PageGeometry } from "../annotations/PageSpace.ts"
import type { PdfAnnotation, PdfRect } from "../annotations/PdfAnnotation.ts"
import { DocumentFiles } from "../documents/DocumentFiles.ts"
import { DocumentRegistration } from "../documents/DocumentRegistration.ts"
import { DocumentResolver } from "../documents/DocumentResolver.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import { type OrderRecord, Orders } from "../orders/Orders.ts"
import { DocumentOutline } from "../outline/DocumentOutline.ts"
import { moveBookmarks } from "../outline/OutlineEntry.ts"
import { Transform } from "./TransformRequests.ts"

const REDACTIONS = new Set(["RedactText", "Redact"])

/** The areas of a redaction in PDF space: each quadrilateral's box, or the annotation's rectangle. */
const regionsOf = (a: PdfAnnotation): Array<{ readonly page: number; readonly rect: PdfRect }> => {
  const quads = a.quadPoints ?? []
  if (quads.length < 8) return [{ page: a.page, rect: a.rect }]
  const regions: Array<{ page: number; rect: PdfRect }> = []
  for (let i = 0; i + 7 < quads.length; i += 8) {
    const xs = [quads[i]!, quads[i + 2]!, quads[i + 4]!, quads[i + 6]!]
    const ys = [quads[i + 1]!, quads[i + 3]!, quads[i + 5]!, quads[i + 7]!]
    regions.push({ page: a.page, rect: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] })
  }
  return regions
}

const Result = Schema.Struct({ documentIds: Schema.Array(Schema.String) })
const decodeResult = Schema.decodeUnknownOption(Result)
const decodeRequest = Schema.decodeUnknown(TransformationRequest)
const encodeRequest = Schema.encodeSync(TransformationRequest)

const toTransformationOrder = (order: OrderRecord) => {
  const ids = Option.match(decodeResult(order.result), { onNone: () => [], onSome: (r) => r.documentIds })
  return new TransformationOrder({
    transformationOrderId: new OrderIdRef({ id: order.id }),
    currentState: order.state,
    format: order.format ?? "pdf",
    transformationResultDocumentID: ids[0] === undefined ? null : new DocumentIdRef({ id: ids[0] }),
    transformationResultDocumentIDs: ids.map((id) => new DocumentIdRef({ id })),
    queuedDate: order.queuedDate,
    processedDate: order.processedDate,
    processingTime: order.processingMs === null ? null : Math.round(order.processingMs),
    errorMessage: order.errorMessage
  })
}

/** The document an annotation of the request belongs to: its own documentId, or the only source. */
const documentOf = (a: Annotation, sources: ReadonlyArray<string>) =>
  a.documentId?.id.replaceAll("@", "/") ?? (sources.length === 1 ? sources[0] : undefined)

export class Transformations extends Effect.Service<Transformations>()("docstack/Transformations", {
  effect: Effect.gen(function*() {
    const resolver = yield* DocumentResolver
    const files = yield* DocumentFiles
    const registration = yield* DocumentRegistration
    const outline = yield* DocumentOutline
    const orders = yield* Orders
    const engine = yield* PdfEngine
    const fs = yield* FileSystem.FileSystem
    const annotationService = yield* Annotations

    /** What can be checked before the order is queued: documents, ranges and annotations' pages (where the page count is known), the annotations themselves. */
    const validate = (body: TransformationRequest) =>
      Effect.gen(function*() {
        const sources = [
          ...new Set(body.transformationDetails.flatMap((d) => d.transformationElements.map((e) => e.documentId)))
        ]
        const pageCounts = new Map<string, Option.Option<number>>()
        for (const id of sources) pageCounts.set(id, yield* resolver.sourcePageCount(id))
        const problems: Array<string> = []
        body.transformationDetails.forEach((detail, d) =>
          detail.transformationElements.forEach((element, e) =>
            (element.pagesSelectionList ?? []).forEach((range, r) => {
              const where = `transformationDetails[${d}].transformationElements[${e}].pagesSelectionList[${r}]`
              if (range.minPage > range.maxPage) {
                problems.push(`${where}: minPage ${range.minPage} is after maxPage ${range.maxPage}`)
              }
              const count = pageCounts.get(element.documentId)!
              if (Option.isSome(count) && range.maxPage >= count.value) {
                problems.push(
                  `${where}: page ${range.maxPage} does not exist in ${element.documentId} (pages 0 to ${
                    count.value - 1
                  })`
                )
              }
            })
          )
        )
        const annotations = body.annotations?.annotations ?? []
        annotations.forEach((a, i) => {
          const id = documentOf(a, sources)
          if (id === undefined) {
            problems.push(
              `annotations.annotations[${i}] needs a documentId: the transformation has several source documents`
            )
          } else if (!pageCounts.has(id)) {
            problems.push(
              `annotations.annotations[${i}] names ${id}, which is not one of the transformation's documents`
            )
          }
        })
        problems.push(...annotationService.problemsOf(annotations, "annotations.annotations", (a) => {
          const id = documentOf(a, sources)
          return id === undefined ? undefined : Option.getOrUndefined(pageCounts.get(id) ?? Option.none())
        }))
        if (problems.length > 0) return yield* new InvalidRequest({ message: problems.join("; ") })
      })

    /**
     * A source's bookmarks on the pages `pageOf` places them, each opening where it did on pages
     * shown unrotated (a bookmark to the page's top, as one that fits the page, shows the whole
     * page). Only for sources without redactions: a title could name what was redacted.
     */
    const outlineOnPages = (
      bookmarks: ReadonlyArray<Bookmark>,
      geometries: ReadonlyArray<PageGeometry>,
      pageOf: (sourcePage: number) => number | undefined
    ) =>
      moveBookmarks(bookmarks, pageOf, (bookmark) => {
        const g = geometries[bookmark.page]
        return g === undefined || g.rotation !== 0 || bookmark.textPosition <= 0
          ? undefined
          : g.y0 + g.height - bookmark.textPosition
      })

    /** Carries out an order: the work behind POST /transformations. */
    const run = (order: OrderRecord) =>
      Effect.scoped(Effect.gen(function*() {
        const body = yield* decodeRequest(order.request).pipe(
          Effect.mapError((e) => ({ message: `The order's request is unreadable: ${e.message}` }))
        )
        const sourceIds = [
          ...new Set(body.transformationDetails.flatMap((d) => d.transformationElements.map((e) => e.documentId)))
        ]
        const sources = yield* Effect.forEach(sourceIds, (id) =>
          Effect.all({
            rendition: resolver.rendition(id),
            basis: annotationService.basisOf(id),
            bookmarks: outline.bookmarks(id)
          }).pipe(Effect.map((s) => ({ id, ...s }))))
        const index = new Map(sourceIds.map((id, i) => [id, i]))
        const annotations = body.annotations?.annotations ?? []
        // Pages not known when the order was queued (a conversion under way) are checked now.
        for (const [i, a] of annotations.entries()) {
          const source = sources[index.get(documentOf(a, sourceIds) ?? "") ?? -1]
          if (source !== undefined && source.basis.pages[a.page] === undefined) {
            return yield* Effect.fail({
              message: `annotations.annotations[${i}]: page ${a.page} does not exist in ${source.id} (pages 0 to ${
                source.basis.pages.length - 1
              })`
            })
          }
        }

        const redactionsOf = (sourceId: string) =>
          annotations.flatMap((a, i) => {
            if (!REDACTIONS.has(a.type) || documentOf(a, sourceIds) !== sourceId) {
              return []
            }
            return regionsOf(
              toPdfAnnotation(a, a.id?.id ?? `r${i}`, sources[index.get(sourceId)!]!.basis.pages[a.page]!)
            )
          })

        const titleOf = (id: string) => sources[index.get(id)!]!.rendition.title ?? undefined

        /** The bookmarks of an element's pages (`first` is its first page in the result), moved to where they landed. */
        const elementOutline = (documentId: string, taken: ReadonlyArray<{ readonly page: number }>, first: number) => {
          const source = sources[index.get(documentId)!]!
          if (redactionsOf(documentId).length > 0) return []
          return outlineOnPages(source.bookmarks.bookmarks, source.basis.pages, (sourcePage) => {
            const at = taken.findIndex((p) => p.page === sourcePage)
            return at < 0 ? undefined : first + at
          })
        }

        const outputs = body.transformationDetails.map((detail, d) => {
          const elements = detail.transformationElements.map((element) => {
            const source = sources[index.get(element.documentId)!]!
            const count = source.rendition.pages.length
            const ranges = element.pagesSelectionList && element.pagesSelectionList.length > 0
              ? element.pagesSelectionList
              : [{ minPage: 0, maxPage: count - 1 }]
            return ranges.flatMap((range) =>
              Array.from(
                { length: range.maxPage - range.minPage + 1 },
                (_, k) => ({ source: index.get(element.documentId)!, page: range.minPage + k })
              )
            )
          })
          const pages = elements.flat()
          // One element: its bookmarks. Several (a merge): a bookmark per element, as PDF tools that
          // combine files make, with the element's own bookmarks under it.
          const firsts = elements.map((_, e) => elements.slice(0, e).reduce((n, taken) => n + taken.length, 0))
          const moved = detail.transformationElements.map((element, e) =>
            elementOutline(element.documentId, elements[e]!, firsts[e]!)
          )
          const outline = elements.length === 1 ?
            moved[0]! :
            detail.transformationElements.flatMap((element, e) =>
              elements[e]!.length === 0 ? [] : [{
                title: element.documentTitle ?? titleOf(element.documentId) ?? `Document ${e + 1}`,
                page: firsts[e]!,
                open: true,
                children: moved[e]!
              }]
            )
          // Each annotation goes on every output page made from its source page.
          const written: Array<PdfAnnotation> = []
          annotations.forEach((a, i) => {
            if (REDACTIONS.has(a.type)) return
            const source = index.get(documentOf(a, sourceIds) ?? "")
            if (source === undefined) return
            const geometry = sources[source]!.basis.pages[a.page]!
            const targets = pages.flatMap((
              p,
              outputPage
            ) => (p.source === source && p.page === a.page ? [outputPage] : []))
            // Names stay unique in the result: a page taken twice gets a copy of its annotation with a name of its own.
            const name = a.id?.id ?? `t${d}-${i}`
            targets.forEach((outputPage, n) =>
              written.push({
                ...toPdfAnnotation(a, n === 0 ? name : `${name}-${outputPage}`, geometry),
                page: outputPage
              })
            )
          })
          return {
            pages,
            annotations: written,
            outline,
            title: detail.documentTitle ?? detail.transformationElements[0]!.documentTitle ??
              titleOf(detail.transformationElements[0]!.documentId)
          }
        })

        for (const [d, output] of outputs.entries()) {
          for (const p of output.pages) {
            const source = sources[p.source]!
            if (p.page >= source.rendition.pages.length) {
              return yield* Effect.fail({
                message: `transformationDetails[${d}]: page ${p.page} does not exist in ${source.id} (pages 0 to ${
                  source.rendition.pages.length - 1
                })`
              })
            }
          }
        }

        const outDir = yield* fs.makeTempDirectoryScoped({ prefix: "docstack-transform-" }).pipe(Effect.orDie)
        const results = yield* engine.runDocumentWork(
          new Transform({
            sources: sources.map((s) => ({ ...s.rendition.pdf, redactions: redactionsOf(s.id) })),
            outputs: outputs.map((o) => ({
              pages: o.pages,
              annotations: o.annotations,
              annotationMode: "objects" as const,
              title: o.title,
              outline: o.outline
            })),
            outDir
          })
        )
        const documentIds = yield* Effect.forEach(results, (file, i) =>
          fs.readFile(file).pipe(
            Effect.orDie,
            Effect.flatMap((bytes) => registration.registerPdf(bytes, outputs[i]!.title)),
            Effect.map((ref) => ref.id)
          ))
        return { documentIds }
      }))

    /** Runs one Transform request in the PDF engine and answers the bytes of its single output. */
    const transformOne = (request: Omit<ConstructorParameters<typeof Transform>[0], "outDir">) =>
      Effect.scoped(Effect.gen(function*() {
        const outDir = yield* fs.makeTempDirectoryScoped({ prefix: "docstack-annotated-" }).pipe(Effect.orDie)
        const [file] = yield* engine.runDocumentWork(new Transform({ ...request, outDir }))
        return yield* fs.readFile(file!).pipe(Effect.orDie)
      }))

    /**
     * The document's PDF with its annotations: redactions applied for real, the others as annotation
     * objects ("embed") or drawn into the pages ("flatten"). Kept in the derived cache, per set of
     * annotations; without annotations, the rendition itself.
     */
    const annotatedPdf = Effect.fn("Transformations.annotatedPdf")(
      function*(documentId: string, mode: Exclude<AnnotationsInFile, "none">) {
        const { annotations, pages, fileHasAnnotations } = yield* annotationService.inPdfSpace(documentId)
        // Nothing to write nor to take out: the rendition as it is.
        if (annotations.length === 0 && !fileHasAnnotations) return yield* files.file(documentId, "pdf")
        const redactions = annotations.filter((a) => a.subtype === "Redact")
        const others = annotations.filter((a) => a.subtype !== "Redact")
        const title = Option.getOrUndefined(yield* resolver.title(documentId))
        const key = createHash("sha256").update(JSON.stringify([mode, annotations, title])).digest("hex").slice(0, 32)
        return yield* files.derivedPdf(documentId, `annotated-${key}.pdf`, (pdf) =>
          Effect.gen(function*() {
            const bookmarks = redactions.length > 0
              ? []
              : outlineOnPages((yield* outline.bookmarks(documentId)).bookmarks, pages, (page) => page)
            return yield* transformOne({
              sources: [{ ...pdf, redactions: redactions.flatMap(regionsOf) }],
              outputs: [{
                pages: pages.map((_, page) => ({ source: 0, page })),
                annotations: others,
                annotationMode: mode === "embed" ? "objects" : "flatten",
                outline: bookmarks,
                title,
                replaceOwnAnnotations: true
              }]
            })
          }).pipe(Effect.mapError((e) =>
            new DocumentProcessingFailed({
              documentId,
              message: `Writing the annotations into the PDF failed: ${e.message}`
            })
          )))
      }
    )

    return {
      run,

      /**
       * GET /documents/{id}/file: the file as `format` asks, or (annotations embed or flatten) its
       * PDF with its annotations, which only the PDF can carry.
       */
      file: Effect.fn("Transformations.file")(
        function*(
          documentId: string,
          format: typeof FileFormatParam.Type["format"],
          annotations: AnnotationsInFile | undefined
        ) {
          if (annotations === undefined || annotations === "none") return yield* files.file(documentId, format)
          if (format !== "pdf" && format !== "rendered") {
            return yield* new InvalidRequest({ message: "annotations go with format=pdf: only the PDF carries them" })
          }
          return yield* annotatedPdf(documentId, annotations)
        }
      ),

      /** GET /documents/{id}/printable: the PDF with its annotations drawn in (or as `annotations` asks). */
      printable: (documentId: string, annotations: AnnotationsInFile) =>
        annotations === "none" ? files.printable(documentId) : annotatedPdf(documentId, annotations),

      request: Effect.fn("Transformations.request")(function*(body: TransformationRequest) {
        yield* validate(body)
        const first = body.transformationDetails[0]!.transformationElements[0]!.documentId
        const id = yield* orders.submit({
          kind: "transformation",
          documentId: first,
          format: "pdf",
          request: encodeRequest(body)
        })
        return new TransformationOrderCreated({ transformationOrderId: new OrderIdRef({ id }) })
      }),

      list: orders.list("transformation").pipe(Effect.map((list) => list.map(toTransformationOrder))),

      /** One order; with `timeoutMs`, once it finished or that time passed. */
      get: Effect.fn("Transformations.get")((id: string, timeoutMs: number | undefined) =>
        orders.poll("transformation", id, timeoutMs).pipe(Effect.map(toTransformationOrder))
      ),

      remove: Effect.fn("Transformations.remove")((id: string) => orders.removeOne("transformation", id)),

      removeAll: orders.removeAll("transformation")
    }
  }),
  dependencies: [
    DocumentResolver.Default,
    DocumentFiles.Default,
    DocumentRegistration.Default,
    DocumentOutline.Default,
    Annotations.Default,
    Orders.Default,
    PdfEngine.Default
  ]
}) {}
