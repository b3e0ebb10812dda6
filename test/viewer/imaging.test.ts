import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import { BrokerUrl } from "../../src/layers/Test.ts"
import { corpusFile, pngSize, uploadOk } from "../support/http.ts"
import { servlet, viewerAndBroker } from "./support.ts"

describe("imageServlet and cropImageServlet", () => {
  it.layer(viewerAndBroker(), { timeout: 120_000 })((it) => {
    it.effect("draws a page at the width asked, through the broker", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/tracemonkey.pdf"))
        const reply = yield* servlet(`imageServlet?uuid=${id}&pagePosition=0&desc=600`)
        expect(reply.status).toBe(200)
        expect(reply.contentType).toBe("image/png")
        expect(pngSize(reply.bytes).width).toBe(600)
      }))

    it.effect("returns the part of the page the crop descriptor names, pixel for pixel", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/tracemonkey.pdf"))
        const whole = yield* servlet(`imageServlet?uuid=${id}&pagePosition=0&desc=800`)
        const part = yield* servlet(
          `cropImageServlet?uuid=${id}&locale=en&pagePosition=0&desc=${
            encodeURIComponent("width=800;x=100;y=150;w=300;h=200")
          }`
        )
        expect(part.status).toBe(200)
        expect(pngSize(part.bytes)).toEqual({ width: 300, height: 200 })
        const expected = yield* Effect.promise(() =>
          sharp(whole.bytes).extract({ left: 100, top: 150, width: 300, height: 200 }).raw().toBuffer()
        )
        const actual = yield* Effect.promise(() => sharp(part.bytes).raw().toBuffer())
        expect(actual.equals(expected)).toBe(true)
      }))

    it.effect("refuses bad parameters before any broker is asked, each with a 400 naming the mistake", () =>
      Effect.gen(function*() {
        const missing = yield* servlet("imageServlet?pagePosition=0&desc=600")
        expect(missing.status).toBe(400)
        expect(missing.json.message).toContain("uuid")
        const width = yield* servlet("imageServlet?uuid=b64_x&pagePosition=0&desc=wide")
        expect(width.status).toBe(400)
        expect(width.json.message).toContain("desc")
        const crop = yield* servlet("cropImageServlet?uuid=b64_x&locale=en&pagePosition=0&desc=x=1")
        expect(crop.status).toBe(400)
        expect(crop.json.message).toContain("width=1200;x=100")
      }))

    it.effect("annotations=false leaves out the annotations GET annotations lists, whole pages and crops alike", () =>
      Effect.gen(function*() {
        // annotation-highlight.pdf: a yellow (255, 237, 0) highlight at x 70.9, y 96.3 (points) on page 0.
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/annotation-highlight.pdf"))
        const highlight = (yield* servlet(`annotations?uuid=${id}`)).json.annotations[0].position
        const yellow = (png: Uint8Array, left: number, top: number) =>
          Effect.promise(async () => {
            const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })
            let count = 0
            for (let y = Math.round(highlight.y - top); y < Math.round(highlight.y + highlight.h - top); y++) {
              for (let x = Math.round(highlight.x - left); x < Math.round(highlight.x + highlight.w - left); x++) {
                const i = (y * info.width + x) * 3
                if (data[i]! > 200 && data[i + 1]! > 200 && data[i + 2]! < 100) count++
              }
            }
            return count
          })
        // Drawn one pixel per point: the page of annotation-highlight.pdf is 595 points wide.
        const image = (query: string) => servlet(`imageServlet?uuid=${id}&pagePosition=0&desc=595${query}`)
        const drawn = yield* image("")
        expect(yield* yellow(drawn.bytes, 0, 0)).toBeGreaterThan(500)
        expect((yield* image("&annotations=true")).bytes.equals(drawn.bytes)).toBe(true)
        const bare = yield* image("&annotations=false")
        expect(bare.status).toBe(200)
        expect(yield* yellow(bare.bytes, 0, 0)).toBe(0)

        const crop = (query: string) =>
          servlet(
            `cropImageServlet?uuid=${id}&locale=en&pagePosition=0&desc=${
              encodeURIComponent("width=595;x=50;y=80;w=200;h=40")
            }${query}`
          )
        expect(yield* yellow((yield* crop("")).bytes, 50, 80)).toBeGreaterThan(500)
        expect(yield* yellow((yield* crop("&annotations=false")).bytes, 50, 80)).toBe(0)

        const wrong = yield* image("&annotations=no")
        expect(wrong.status).toBe(400)
        expect(wrong.json.message).toContain(`annotations: Expected one of "true", "false"`)
      }))

    it.effect("answers 404 for an unknown document and for a page past the end", () =>
      Effect.gen(function*() {
        const unknown = yield* servlet("imageServlet?uuid=b64_nothing&pagePosition=0&desc=600")
        expect(unknown.status).toBe(404)
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/basicapi.pdf"))
        const past = yield* servlet(`imageServlet?uuid=${id}&pagePosition=99&desc=600`)
        expect(past.status).toBe(404)
      }))
  })
})
