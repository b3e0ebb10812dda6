/**
 * Page images as the broker serves them: the request checked against the page and the limits, the
 * image taken from memory (recent ones), from the derived cache on disk, or drawn by the engine;
 * requests for one image at the same moment share one drawing.
 */
import { Cache, Config, Duration, Effect, Exit, Schema } from "effect"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import { type PageImageDescriptor, PageImageDescriptorFromString } from "../../../schemas/broker/PageImage.ts"
import { DerivedCache } from "../../common/DerivedCache.ts"
import { pageImageName, Renditions } from "../conversion/Renditions.ts"
import { DocumentResolver, processingFailed } from "../documents/DocumentResolver.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import type { PdfSource } from "../engine/PdfRequest.ts"
import { RenderPage } from "./PageRequests.ts"

export const PageImagesConfig = Config.all({
  maxPageImageWidth: Config.integer("MAX_PAGE_IMAGE_WIDTH").pipe(Config.withDefault(10_000)),
  pageImageMemoryCache: Config.integer("PAGE_IMAGE_MEMORY_CACHE").pipe(Config.withDefault(64))
})

export class PageImages extends Effect.Service<PageImages>()("docstack/PageImages", {
  effect: Effect.gen(function*() {
    const config = yield* PageImagesConfig
    const resolver = yield* DocumentResolver
    const derived = yield* DerivedCache
    const engine = yield* PdfEngine
    const { defaultDescriptor } = yield* Renditions

    /** The engine's drawing of a page, kept in the derived cache. */
    const render = (source: PdfSource, page: number, descriptor: PageImageDescriptor) =>
      derived.bytes(
        source.hash,
        pageImageName(page, descriptor),
        engine.run(new RenderPage({ ...source, page, ...engine.renderSettings(descriptor) }))
      )

    // Recent page images stay in memory, and concurrent requests for one image share one drawing.
    const recent = yield* Cache.makeWith({
      capacity: config.pageImageMemoryCache,
      lookup: (key: string) => {
        const [hash, path, page, descriptor] = JSON.parse(key) as [string, string, number, string]
        return Schema.decode(PageImageDescriptorFromString)(descriptor).pipe(
          Effect.orDie,
          Effect.flatMap((d) => render({ hash, path }, page, d))
        )
      },
      timeToLive: (exit) => (Exit.isSuccess(exit) ? Duration.minutes(30) : Duration.zero)
    })

    return {
      /** The page as a PNG drawn as `requested` says (DEFAULT_PAGE_IMAGE when it says nothing). */
      pageImage: Effect.fn("PageImages.pageImage")(
        function*(documentId: string, page: number, requested: PageImageDescriptor | undefined) {
          const doc = yield* resolver.ready(documentId)
          const pages = yield* resolver.checkPage(doc, page)
          const descriptor = requested ?? defaultDescriptor
          if (descriptor.width < 1 || descriptor.width > config.maxPageImageWidth) {
            return yield* new InvalidRequest({
              message: `Image width must be between 1 and ${config.maxPageImageWidth} pixels (MAX_PAGE_IMAGE_WIDTH)`
            })
          }
          const box = pages[page]!
          const turned = ((box.rotation + descriptor.rotation) / 90) % 2 === 1
          const height = Math.round(
            (descriptor.width * (turned ? box.width : box.height)) / (turned ? box.height : box.width)
          )
          if (descriptor.width * height > engine.maxImagePixels) {
            return yield* new InvalidRequest({
              message:
                `A ${descriptor.width}x${height} image has more pixels than the limit of ${engine.maxImagePixels} (MAX_IMAGE_PIXELS)`
            })
          }
          const pdf = yield* resolver.pdfOf(doc)
          return yield* recent.get(JSON.stringify([pdf.hash, pdf.path, page, descriptor.key])).pipe(
            Effect.mapError(processingFailed(doc.id))
          )
        }
      )
    }
  }),
  dependencies: [DocumentResolver.Default, DerivedCache.Default, PdfEngine.Default, Renditions.Default]
}) {}
