/**
 * Comparisons (spec: Comparisons): image comparisons as orders, page i against page i, whose result
 * is a document of difference images; and the word-level text difference of two documents.
 * See docs/comparisons.md.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Config, ConfigError, Effect, Either, Option, ParseResult, Schema } from "effect"
import {
  ComparisonOrder,
  ComparisonOrderCreated,
  type ComparisonRequest,
  DifferenceResult,
  HexColor,
  parseColor,
  TextChange
} from "../../../schemas/broker/Comparisons.ts"
import { DocumentIdRef, DocumentProcessingFailed } from "../../../schemas/broker/Document.ts"
import { OrderIdRef } from "../../../schemas/broker/Orders.ts"
import { DerivedCache } from "../../common/DerivedCache.ts"
import { DocumentRegistration } from "../documents/DocumentRegistration.ts"
import { DocumentResolver } from "../documents/DocumentResolver.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import { type OrderRecord, Orders } from "../orders/Orders.ts"
import { Compare, DiffText } from "./CompareRequests.ts"

/** A colour setting, read as requests' colours are; one that is not a colour stops the broker at start. */
const hexColorConfig = (name: string, fallback: string) =>
  Config.string(name).pipe(
    Config.withDefault(fallback),
    Config.mapOrFail((value) =>
      Schema.decodeEither(HexColor)(value).pipe(
        Either.mapLeft((error) => ConfigError.InvalidData([name], ParseResult.TreeFormatter.formatErrorSync(error)))
      )
    )
  )

export const ComparisonsConfig = Config.all({
  /** The spec's visualization.image.comparison.default.fuzz: 3 to 5 keeps antialiasing from showing as differences. */
  defaultFuzz: Config.integer("VISUALIZATION_IMAGE_COMPARISON_DEFAULT_FUZZ").pipe(Config.withDefault(4)),
  defaultHighlight: hexColorConfig("COMPARISON_HIGHLIGHT_COLOR", "#E8112D"),
  defaultLowlight: hexColorConfig("COMPARISON_LOWLIGHT_COLOR", "#B4B4B4"),
  /** Width in pixels at which pages are rendered to be compared. */
  pageWidth: Config.integer("COMPARISON_PAGE_WIDTH").pipe(Config.withDefault(1240))
})

/** What a comparison order keeps of its request, its colours settled. */
const Stored = Schema.Struct({
  leftDocumentId: Schema.String,
  rightDocumentId: Schema.String,
  fuzz: Schema.Int,
  highlightColor: Schema.String,
  lowlightColor: Schema.String
})
const decodeStored = Schema.decodeUnknown(Stored)
const Result = Schema.Struct({ targetDocumentId: Schema.String })
const decodeResult = Schema.decodeUnknownOption(Result)

export class Comparisons extends Effect.Service<Comparisons>()("docstack/Comparisons", {
  effect: Effect.gen(function*() {
    const config = yield* ComparisonsConfig
    const resolver = yield* DocumentResolver
    const registration = yield* DocumentRegistration
    const derived = yield* DerivedCache
    const orders = yield* Orders
    const engine = yield* PdfEngine
    const fs = yield* FileSystem.FileSystem

    const toComparisonOrder = (order: OrderRecord) =>
      decodeStored(order.request).pipe(
        Effect.orDie,
        Effect.map((stored) => {
          const target = Option.getOrUndefined(decodeResult(order.result))
          return new ComparisonOrder({
            comparisonOrderId: new OrderIdRef({ id: order.id }),
            leftDocumentId: new DocumentIdRef({ id: stored.leftDocumentId }),
            rightDocumentId: new DocumentIdRef({ id: stored.rightDocumentId }),
            targetDocumentId: target === undefined ? null : new DocumentIdRef({ id: target.targetDocumentId }),
            currentState: order.state,
            fuzz: stored.fuzz,
            highlightColor: stored.highlightColor,
            lowlightColor: stored.lowlightColor,
            queuedDate: order.queuedDate,
            processedDate: order.processedDate,
            processingTime: order.processingMs === null ? null : Math.round(order.processingMs),
            errorMessage: order.errorMessage
          })
        })
      )

    /** Carries out an order: the work behind POST /comparisons. */
    const run = (order: OrderRecord) =>
      Effect.scoped(Effect.gen(function*() {
        const stored = yield* decodeStored(order.request).pipe(
          Effect.mapError((e) => ({ message: `The order's request is unreadable: ${e.message}` }))
        )
        const [left, right] = yield* Effect.all([
          resolver.rendition(stored.leftDocumentId),
          resolver.rendition(stored.rightDocumentId)
        ])
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "docstack-compare-" }).pipe(Effect.orDie)
        const outPath = `${dir}/comparison.pdf`
        yield* engine.runDocumentWork(
          new Compare({
            left: left.pdf,
            right: right.pdf,
            width: config.pageWidth,
            fuzz: stored.fuzz,
            // Kept as #RRGGBB (HexColor decoded them when the order was made).
            highlight: [...parseColor(stored.highlightColor)!],
            lowlight: [...parseColor(stored.lowlightColor)!],
            maxPixels: engine.maxImagePixels,
            outPath
          })
        )
        const bytes = yield* fs.readFile(outPath).pipe(Effect.orDie)
        const title = `Comparison of ${left.title ?? left.documentId} and ${right.title ?? right.documentId}`
        const target = yield* registration.registerPdf(bytes, title)
        return { targetDocumentId: target.id }
      }))

    return {
      run,

      request: Effect.fn("Comparisons.request")(function*(body: ComparisonRequest) {
        yield* resolver.sourcePageCount(body.leftDocumentId)
        yield* resolver.sourcePageCount(body.rightDocumentId)
        // Both #RRGGBB: HexColor decoded the request's and the settings'.
        const highlightColor = body.highlightColor ?? config.defaultHighlight
        const lowlightColor = body.lowlightColor ?? config.defaultLowlight
        const id = yield* orders.submit({
          kind: "comparison",
          documentId: body.leftDocumentId,
          format: "pdf",
          request: {
            leftDocumentId: body.leftDocumentId,
            rightDocumentId: body.rightDocumentId,
            fuzz: body.fuzz ?? config.defaultFuzz,
            highlightColor,
            lowlightColor
          }
        })
        return new ComparisonOrderCreated({ comparisonOrderId: new OrderIdRef({ id }) })
      }),

      list: orders.list("comparison").pipe(Effect.flatMap((list) => Effect.forEach(list, toComparisonOrder))),

      /** One order; with `timeoutMs`, once it finished or that time passed. */
      get: Effect.fn("Comparisons.get")((id: string, timeoutMs: number | undefined) =>
        orders.poll("comparison", id, timeoutMs).pipe(Effect.flatMap(toComparisonOrder))
      ),

      remove: Effect.fn("Comparisons.remove")((id: string) => orders.removeOne("comparison", id)),

      removeAll: orders.removeAll("comparison"),

      /** GET /difference: the documents' text compared word by word, page after page (in a worker; kept per pair of PDFs). */
      difference: Effect.fn("Comparisons.difference")(function*(leftId: string, rightId: string) {
        const [left, right] = yield* Effect.all([resolver.rendition(leftId), resolver.rendition(rightId)], {
          concurrency: 2
        })
        const textChanges = yield* derived.json(
          left.pdf.hash,
          `difference-${right.pdf.hash}.json`,
          Schema.Array(TextChange),
          engine.runDocumentWork(new DiffText({ left: left.pdf, right: right.pdf })).pipe(
            Effect.mapError((e) => new DocumentProcessingFailed({ documentId: leftId, message: e.message }))
          )
        )
        return new DifferenceResult({
          leftDocumentId: new DocumentIdRef({ id: leftId }),
          rightDocumentId: new DocumentIdRef({ id: rightId }),
          textChanges
        })
      })
    }
  }),
  dependencies: [
    DocumentResolver.Default,
    DocumentRegistration.Default,
    DerivedCache.Default,
    Orders.Default,
    PdfEngine.Default
  ]
}) {}
