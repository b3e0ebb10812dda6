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
