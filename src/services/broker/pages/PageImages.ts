/**
 * Page images as the broker serves them: the request checked against the page and the limits, the
 * image taken from memory (recent ones), from the derived cache on disk, or drawn by the engine;
 * requests for one image at the same moment share one drawing. A cropped image is cut from the
 * whole page's, after the caches, so that every rectangle of a page shares the one drawing.
 */
import { Config, Effect, Schema } from "effect"
import sharp from "sharp"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import {
  type PageImageCrop,
  type PageImageDescriptor,
  PageImageDescriptorFromString
} from "../../../schemas/broker/PageImage.ts"
import { BlobStore } from "../../common/BlobStore.ts"
import { DerivedCache } from "../../common/DerivedCache.ts"
import { makeMemoryCache } from "../../common/MemoryCache.ts"
import { pageImageName, Renditions } from "../conversion/Renditions.ts"
import { DocumentResolver, processingFailed } from "../documents/DocumentResolver.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import { DocumentText } from "../text/DocumentText.ts"
import { RenderPage } from "./PageRequests.ts"

export const PageImagesConfig = Config.all({
  maxPageImageWidth: Config.integer("MAX_PAGE_IMAGE_WIDTH").pipe(Config.withDefault(10_000)),
  /** The bytes of the PNGs kept in memory (the most recently used); every image is also kept on disk. */
  pageImageMemoryCacheBytes: Config.integer("PAGE_IMAGE_MEMORY_CACHE_BYTES").pipe(Config.withDefault(64 * 1024 * 1024)),
  /**
   * A page drawn at least this wide, when no other request is running or waiting, has its text positions
   * read ahead (DocumentText.readAhead): the viewer's text layer asks for them next. Thumbnails,
   * narrower, do not. Above MAX_PAGE_IMAGE_WIDTH, never.
   */
  textAheadMinWidth: Config.integer("TEXT_AHEAD_MIN_WIDTH").pipe(Config.withDefault(400))
})

export class PageImages extends Effect.Service<PageImages>()("docstack/PageImages", {
  scoped: Effect.gen(function*() {
    const config = yield* PageImagesConfig
    const resolver = yield* DocumentResolver
    const derived = yield* DerivedCache
    const blobs = yield* BlobStore
    const engine = yield* PdfEngine
    const { defaultDescriptor } = yield* Renditions
    const text = yield* DocumentText
    const scope = yield* Effect.scope

    /** After a drawing: the page's text read ahead, in the background, when no other request is running or waiting. */
    const readTextAhead = (hash: string, path: string, page: number, descriptor: PageImageDescriptor) =>
      descriptor.width < config.textAheadMinWidth
        ? Effect.void
        : Effect.flatMap(
          engine.busy,
          (busy) => busy ? Effect.void : Effect.asVoid(Effect.forkIn(text.readAhead({ hash, path }, page), scope))
        )

    /** The engine's drawing of a page of the PDF with this hash, kept in the derived cache. */
    const render = (hash: string, page: number, descriptor: PageImageDescriptor) =>
      derived.bytes(
        hash,
        pageImageName(page, descriptor),
        blobs.localPath(hash).pipe(
          Effect.flatMap((path) =>
            engine.run(new RenderPage({ hash, path, page, ...engine.renderSettings(descriptor) })).pipe(
              Effect.tap(() => readTextAhead(hash, path, page, descriptor))
            )
          )
        )
      )

    // Recent page images stay in memory within PAGE_IMAGE_MEMORY_CACHE_BYTES, and concurrent
    // requests for one image share one drawing (or one reading from disk). An image is kept by the
    // hash of its PDF: where that PDF lies is looked up (a stat, about 0.3 ms of the event loop's
    // time) only when the image is not in memory.
    const recent = yield* makeMemoryCache({
      capacity: config.pageImageMemoryCacheBytes,
      weigh: (png: Uint8Array) => png.byteLength,
      lookup: (key: string) => {
        const [hash, page, descriptor] = JSON.parse(key) as [string, number, string]
        return Schema.decode(PageImageDescriptorFromString)(descriptor).pipe(
          Effect.orDie,
          Effect.flatMap((d) => render(hash, page, d))
        )
      }
    })

    /**
     * The rectangle of a whole page's PNG, clipped to it; 400 when it lies wholly outside. The size
     * is read from the PNG itself, not computed: the drawing's rounding decides what "outside" is.
     */
    const cropped = (png: Uint8Array, crop: PageImageCrop) =>
      Effect.gen(function*() {
        const { height = 0, width = 0 } = yield* Effect.promise(() => sharp(png).metadata())
        if (crop.x >= width || crop.y >= height) {
          return yield* new InvalidRequest({
            message:
              `The crop rectangle ${crop.x},${crop.y},${crop.w},${crop.h} lies outside the ${width}x${height} image`
          })
        }
        const region = {
          left: crop.x,
          top: crop.y,
          width: Math.min(crop.w, width - crop.x),
          height: Math.min(crop.h, height - crop.y)
        }
        const buffer = yield* Effect.promise(() => sharp(png).extract(region).png().toBuffer())
        return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
      })

    return {
      /** What the memory cache holds: images, their bytes, and the bound (PAGE_IMAGE_MEMORY_CACHE_BYTES). */
      memoryCache: recent.stats,
      /**
       * The page as a PNG drawn as `requested` says (DEFAULT_PAGE_IMAGE when it says nothing), or
       * only the `crop` rectangle of it.
       */
      pageImage: Effect.fn("PageImages.pageImage")(
        function*(
          documentId: string,
          page: number,
          requested: PageImageDescriptor | undefined,
          crop?: PageImageCrop | undefined
        ) {
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
          const hash = yield* resolver.renditionHashOf(doc)
          const png = yield* recent.get(JSON.stringify([hash, page, descriptor.key])).pipe(
            Effect.mapError(processingFailed(doc.id))
          )
          return crop === undefined ? png : yield* cropped(png, crop)
        }
      )
    }
  }),
  dependencies: [
    DocumentResolver.Default,
    DerivedCache.Default,
    PdfEngine.Default,
    Renditions.Default,
    DocumentText.Default
  ]
}) {}
