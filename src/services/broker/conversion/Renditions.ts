/**
 * The PDF a document's pages come from, built once per content: converted, analysed (page boxes,
 * info, first page image) and recorded. Uploads of PDFs and images build it before they answer;
 * everything else builds it in a conversion order.
 */
import { Config, Effect, Option, Schema } from "effect"
import { type PageImageDescriptor, PageImageDescriptorFromString } from "../../../schemas/broker/PageImage.ts"
import { BlobStore } from "../../common/BlobStore.ts"
import { DerivedCache } from "../../common/DerivedCache.ts"
import { PAGE_IMAGE_ENGINE } from "../engine/PageEngine.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import { DocumentRegistry, PageRecord, type Rendition } from "../registry/DocumentRegistry.ts"
import { ConversionFailed, Converter } from "./Converter.ts"
import type { DetectedFormat } from "./FormatDetector.ts"
import { Analyze } from "./PdfAnalysis.ts"

export const RenditionsConfig = Config.all({
  maxPages: Config.integer("MAX_PAGES").pipe(Config.withDefault(20_000)),
  defaultPageImage: Config.string("DEFAULT_PAGE_IMAGE").pipe(Config.withDefault("IM_1240_0"))
})

/** Formats told apart by the file's name, not its bytes: the same bytes may convert both ways. */
const NAMED_FORMATS: ReadonlySet<string> = new Set(["csv", "text", "html"])

/**
 * Where the rendition of these bytes, read as this format, is kept: the source hash, or for formats
 * that the name decides, the hash and the format (so a CSV and the same bytes as text stay apart).
 */
export const renditionKey = (sourceHash: string, detected: DetectedFormat | undefined) =>
  detected?.kind === "office" && NAMED_FORMATS.has(detected.format) ? `${sourceHash}~${detected.format}` : sourceHash

/**
 * Where a page image is cached under its PDF's hash; the name says which engine drew it, so that an
 * image drawn by another engine (or version) is never served for this one.
 */
export const pageImageName = (page: number, descriptor: PageImageDescriptor) =>
  `p${page}_${descriptor.key}_${PAGE_IMAGE_ENGINE}.png`

export class Renditions extends Effect.Service<Renditions>()("docstack/Renditions", {
  effect: Effect.gen(function*() {
    const config = yield* RenditionsConfig
    const defaultDescriptor = yield* Schema.decode(PageImageDescriptorFromString)(config.defaultPageImage).pipe(
      Effect.orDie
    )
    const registry = yield* DocumentRegistry
    const blobs = yield* BlobStore
    const engine = yield* PdfEngine
    const derived = yield* DerivedCache
    const converter = yield* Converter

    const build = (sourceHash: string, detected: DetectedFormat) =>
      Effect.gen(function*() {
        const converted = yield* converter.toPdf(sourceHash, detected)
        const path = yield* blobs.localPath(converted.hash).pipe(Effect.orDie)
        const summary = yield* engine.run(
          new Analyze({ hash: converted.hash, path, firstPage: engine.renderSettings(defaultDescriptor) })
        ).pipe(
          Effect.mapError((error) =>
            new ConversionFailed({
              message: error._tag === "PdfOpenFailed" && error.reason === "password"
                ? "The PDF is protected by a password; upload it without the password protection"
                : detected.kind === "pdf"
                ? `The file cannot be read as a PDF: ${error.message}`
                : `The PDF converted from the ${detected.format.toUpperCase()} file cannot be read: ${error.message}`
            })
          )
        )
        if (summary.pages.length === 0) return yield* new ConversionFailed({ message: "The document has no pages" })
        if (summary.pages.length > config.maxPages) {
          return yield* new ConversionFailed({
            message:
              `The document has ${summary.pages.length} pages, more than the limit of ${config.maxPages} (MAX_PAGES)`
          })
        }
        const pages = summary.pages.map((box, i) => new PageRecord({ ...box, dpi: converted.dpis[i] ?? 72 }))
        if (summary.firstPage) {
          yield* derived.put(converted.hash, pageImageName(0, defaultDescriptor), summary.firstPage)
        }
        yield* registry.saveRendition(renditionKey(sourceHash, detected), converted.hash, pages, summary.info)
      })

    return {
      defaultDescriptor,

      find: (sourceHash: string, detected: DetectedFormat | undefined) =>
        registry.rendition(renditionKey(sourceHash, detected)),

      /**
       * Makes sure the rendition exists. One whose bytes went missing (a data directory restored
       * without its blobs) is built again.
       */
      prepare: Effect.fn("Renditions.prepare")(function*(sourceHash: string, detected: DetectedFormat) {
        const existing = yield* registry.rendition(renditionKey(sourceHash, detected))
        if (
          Option.isSome(existing) && Option.isSome(yield* blobs.size(existing.value.renditionHash).pipe(Effect.orDie))
        ) {
          return existing.value
        }
        yield* build(sourceHash, detected)
        return yield* registry.rendition(renditionKey(sourceHash, detected)).pipe(
          Effect.flatMap(Option.match({
            onSome: (rendition): Effect.Effect<Rendition> => Effect.succeed(rendition),
            onNone: () => Effect.die(new Error(`The rendition of ${sourceHash} was not recorded`))
          }))
        )
      })
    }
  }),
  dependencies: [DocumentRegistry.Default, PdfEngine.Default, DerivedCache.Default, Converter.Default]
}) {}
