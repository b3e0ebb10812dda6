/**
 * The broker's memory cache of page images is bounded by bytes (PAGE_IMAGE_MEMORY_CACHE_BYTES):
 * after more images than fit, what it holds stays within the bound, and the images it let go are
 * served again from the disk cache, byte for byte as first drawn.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { PageImages } from "../../../src/services/broker/pages/PageImages.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, pngSize, uploadOk } from "../../support/http.ts"

const BOUND = 150_000

layer(brokerTestLayer({ ...defaultBackend.config, PAGE_IMAGE_MEMORY_CACHE_BYTES: String(BOUND) }), {
  timeout: 120_000
})("page images in memory, bounded by bytes", (it) => {
  it.effect("more images than fit: the memory cache stays within its bytes, the others come from disk", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const pageImages = yield* PageImages
      const id = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      const image = (page: number) => call(`${base}/documents/${id}/pages/${page}/image?pageImageDescription=IM_500_0`)

      const first = new Map<number, Uint8Array>()
      let served = 0
      for (let page = 0; page < 14; page++) {
        const answer = yield* image(page)
        expect(answer.status).toBe(200)
        expect(pngSize(answer.bytes).width).toBe(500)
        first.set(page, answer.bytes)
        served += answer.bytes.byteLength
        expect((yield* pageImages.memoryCache).weight).toBeLessThanOrEqual(BOUND)
      }
      const held = yield* pageImages.memoryCache
      expect(served).toBeGreaterThan(2 * BOUND)
      expect(held.entries).toBeGreaterThan(0)
      expect(held.entries).toBeLessThan(14)
      expect(held).toMatchObject({ capacity: BOUND })

      // Every page again, those let go included, at once: the same bytes, the bound still held.
      const again = yield* Effect.all(Array.from({ length: 14 }, (_, page) => image(page)), { concurrency: 4 })
      again.forEach((answer, page) => {
        expect(answer.status).toBe(200)
        expect(answer.bytes.equals(first.get(page)!)).toBe(true)
      })
      expect((yield* pageImages.memoryCache).weight).toBeLessThanOrEqual(BOUND)
    }))
})
