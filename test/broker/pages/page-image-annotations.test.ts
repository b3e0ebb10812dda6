/**
 * The page image filter A on real corpus files: `A~0` leaves out of the image the annotations
 * GET /annotation lists (a client that draws them itself would show them twice), and draws every
 * other one; without it (or with `A~1`) they are drawn as before. Judged on pixels: the rectangle
 * of each listed annotation, against a blank area of the same image.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, uploadOk } from "../../support/http.ts"

const WIDTH = 800

interface Region {
  readonly left: number
  readonly top: number
  readonly width: number
  readonly height: number
}

/** Mean and standard deviation of each colour channel in a region of a PNG. */
const channels = (png: Uint8Array, region: Region) =>
  Effect.promise(async () => {
    // stats() reads the input, not the extract: the region is cut out first.
    const { channels } = await sharp(await sharp(png).extract(region).png().toBuffer()).stats()
    return channels.slice(0, 3).map((c) => ({ mean: Math.round(c.mean), stdev: Math.round(c.stdev) }))
  })

/** The pixels of an annotation's position (points, page as shown) in an image WIDTH pixels wide, shrunk by a pixel. */
const regionOf = (position: { x: number; y: number; w: number; h: number }, pageWidth: number): Region => {
  const scale = WIDTH / pageWidth
  return {
    left: Math.ceil(position.x * scale) + 1,
    top: Math.ceil(position.y * scale) + 1,
    width: Math.max(1, Math.floor(position.w * scale) - 2),
    height: Math.max(1, Math.floor(position.h * scale) - 2)
  }
}

/** Top right corner of the page, empty on every file used here. */
const BLANK: Region = { left: WIDTH - 60, top: 10, width: 40, height: 40 }

layer(brokerTestLayer(defaultBackend.config), { timeout: 180_000 })(
  "page images without the listed annotations",
  (it) => {
    it.effect("A~0 leaves out each listed annotation (its area shows the page as under it); the default draws it", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        for (
          const file of [
            "annotation-freetext.pdf",
            "annotation-square-circle-without-appearance.pdf",
            "annotation-link-text-popup.pdf"
          ]
        ) {
          const id = yield* uploadOk(base, corpusFile(`pdf/${file}`))
          const image = (descriptor: string) =>
            call(`${base}/documents/${id}/pages/0/image?pageImageDescription=${descriptor}`).pipe(
              Effect.map((reply) => {
                expect(reply.status, file).toBe(200)
                return reply.bytes
              })
            )
          // Without them first: the worker's document is then asked to draw them, and must.
          const without = yield* image(`IM_${WIDTH}_0_FILTERS~A~0`)
          const drawn = yield* image(`IM_${WIDTH}_0`)
          expect((yield* image(`IM_${WIDTH}_0_FILTERS~A~1`)).equals(drawn), file).toBe(true)

          const pageWidth = (yield* call(`${base}/documents/${id}/layout`)).json.pageDimensionsList[0].width as number
          const listed = (yield* call(`${base}/annotation?documentId=${id}`)).json.annotations as Array<any>
          expect(listed.length, file).toBeGreaterThan(0)
          const blank = yield* channels(without, BLANK)
          expect(blank.every((c) => c.mean === 255 && c.stdev === 0), file).toBe(true)
          for (const annotation of listed.filter((a) => a.position.w > 4 && a.position.h > 4)) {
            const region = regionOf(annotation.position, pageWidth)
            const label = `${file} ${annotation.type} at ${JSON.stringify(region)}`
            expect(yield* channels(without, region), label).toEqual(blank)
            expect(yield* channels(drawn, region), label).not.toEqual(blank)
          }
        }
      }))

    it.effect("a highlight goes and the text under it stays; crops cut the image asked for", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, corpusFile("pdf/annotation-highlight.pdf"))
        const [highlight] = (yield* call(`${base}/annotation?documentId=${id}`)).json.annotations as Array<any>
        expect(highlight.type).toBe("Highlight")
        const region = regionOf(highlight.position, 595.32)
        const image = (query: string) =>
          call(`${base}/documents/${id}/pages/0/image?${query}`).pipe(Effect.map((r) => r.bytes))
        const drawn = yield* channels(yield* image(`pageImageDescription=IM_${WIDTH}_0`), region)
        const without = yield* channels(yield* image(`pageImageDescription=IM_${WIDTH}_0_FILTERS~A~0`), region)
        // Drawn: yellow behind the text (blue well under red). Left out: black text on white, no colour.
        expect(drawn[0]!.mean - drawn[2]!.mean).toBeGreaterThan(100)
        expect(Math.abs(without[0]!.mean - without[2]!.mean)).toBeLessThan(3)
        expect(without[0]!.stdev).toBeGreaterThan(20)

        const crop = `crop=${region.left},${region.top},${region.width},${region.height}`
        const croppedWithout = yield* image(`pageImageDescription=IM_${WIDTH}_0_FILTERS~A~0&${crop}`)
        const croppedDrawn = yield* image(`pageImageDescription=IM_${WIDTH}_0&${crop}`)
        const whole = { left: 0, top: 0, width: region.width, height: region.height }
        expect(yield* channels(croppedWithout, whole)).toEqual(without)
        expect(yield* channels(croppedDrawn, whole)).toEqual(drawn)
      }))

    it.effect("form fields are drawn with A~0: a form's image is the same either way", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        for (const [file, page] of [["textfields.pdf", 0], ["prefilled_f1040.pdf", 1]] as const) {
          const id = yield* uploadOk(base, corpusFile(`pdf/${file}`))
          const image = (descriptor: string) =>
            call(`${base}/documents/${id}/pages/${page}/image?pageImageDescription=${descriptor}`).pipe(
              Effect.map((r) => r.bytes)
            )
          const without = yield* image(`IM_${WIDTH}_0_FILTERS~A~0`)
          expect(without.equals(yield* image(`IM_${WIDTH}_0`)), file).toBe(true)
          if (file === "prefilled_f1040.pdf") {
            // The one filled field, "foobar" in dark blue (widget /Rect 158.4 48 396 60 on a 612 x 792
            // page): the start of its text, inside the field's lines, is blue on white.
            const scale = WIDTH / 612
            const field = yield* channels(without, {
              left: Math.round(160 * scale),
              top: Math.round((792 - 58) * scale),
              width: Math.round(26 * scale),
              height: Math.round(8 * scale)
            })
            expect(field[2]!.mean - field[0]!.mean).toBeGreaterThan(5)
          }
        }
      }))
  }
)
