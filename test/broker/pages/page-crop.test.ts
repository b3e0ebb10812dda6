/**
 * GET /documents/{id}/pages/{page}/image?crop=x,y,w,h on a real corpus PDF: the rectangle of the
 * whole image as drawn, pixel for pixel (compared with sharp), clipped at the image's edges; a
 * rectangle wholly outside, or a malformed one, is a 400 saying why.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, pngSize, uploadOk } from "../../support/http.ts"

const rawPixels = (png: Uint8Array, region?: sharp.Region) =>
  Effect.promise(async () => {
    const image = sharp(png).ensureAlpha()
    return (region ? image.extract(region) : image).raw().toBuffer()
  })

layer(brokerTestLayer(defaultBackend.config), { timeout: 120_000 })("cropped page images", (it) => {
  it.effect("a rectangle of the whole image, exactly its size and pixels, clipped at the edges", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      const image = (query: string) => call(`${base}/documents/${id}/pages/1/image?${query}`)
      const whole = yield* image("pageImageDescription=IM_600_90")
      expect(whole.status).toBe(200)
      const size = pngSize(whole.bytes)

      const cropped = yield* image("pageImageDescription=IM_600_90&crop=37,120,211,95")
      expect(cropped.status).toBe(200)
      expect(cropped.contentType).toBe("image/png")
      expect(pngSize(cropped.bytes)).toEqual({ width: 211, height: 95 })
      const expected = yield* rawPixels(whole.bytes, { left: 37, top: 120, width: 211, height: 95 })
      expect((yield* rawPixels(cropped.bytes)).equals(expected)).toBe(true)

      // Past the right and bottom edges: only what lies inside.
      const x = size.width - 40
      const y = size.height - 30
      const clipped = yield* image(`pageImageDescription=IM_600_90&crop=${x},${y},500,500`)
      expect(clipped.status).toBe(200)
      expect(pngSize(clipped.bytes)).toEqual({ width: 40, height: 30 })
      const corner = yield* rawPixels(whole.bytes, { left: x, top: y, width: 40, height: 30 })
      expect((yield* rawPixels(clipped.bytes)).equals(corner)).toBe(true)

      // The whole image is still the whole image: the crop did not take its place in the caches.
      expect((yield* image("pageImageDescription=IM_600_90")).bytes.equals(whole.bytes)).toBe(true)
    }))

  it.effect("a rectangle outside the image, or not four integers, is a 400", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("pdf/basicapi.pdf"))
      const image = (query: string) => call(`${base}/documents/${id}/pages/0/image?${query}`)
      const size = pngSize((yield* image("pageImageDescription=IM_300_0")).bytes)

      const outside = yield* image(`pageImageDescription=IM_300_0&crop=300,0,10,10`)
      expect(outside.status).toBe(400)
      expect(outside.json.message).toBe(
        `The crop rectangle 300,0,10,10 lies outside the ${size.width}x${size.height} image`
      )
      const below = yield* image(`pageImageDescription=IM_300_0&crop=0,${size.height},10,10`)
      expect(below.status).toBe(400)

      for (const crop of ["1,2,3", "0,0,0,5", "0,0,5,0", "-1,0,5,5", "a,b,c,d", "1.5,0,5,5", "1,2,3,4,5"]) {
        const reply = yield* image(`crop=${encodeURIComponent(crop)}`)
        expect(reply.status, crop).toBe(400)
        expect(reply.json.message, crop).toContain("crop must be x,y,w,h")
      }
    }))
})
