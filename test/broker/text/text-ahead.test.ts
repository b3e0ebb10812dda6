/**
 * A page drawn at least TEXT_AHEAD_MIN_WIDTH wide, when the engine has nothing else to do, has its
 * text positions read into the derived cache before anyone asks: the viewer's text layer asks for
 * them once the image has come. A thumbnail's drawing reads nothing ahead.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { DocumentResolver } from "../../../src/services/broker/documents/DocumentResolver.ts"
import { PAGE_TEXT_ENGINE } from "../../../src/services/broker/engine/PageEngine.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, pngSize, uploadOk } from "../../support/http.ts"

const pause = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))
const dataDir = mkdtempSync(join(tmpdir(), "docstack-text-ahead-"))

layer(brokerTestLayer({ ...defaultBackend.config, DATA_DIR: dataDir, TEXT_AHEAD_MIN_WIDTH: "400" }), {
  timeout: 120_000
})(
  "text read ahead",
  (it) => {
    it.effect("a page drawn for reading has its text kept before it is asked for; a thumbnail's does not", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const resolver = yield* DocumentResolver
        const id = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
        const { hash } = yield* resolver.pdfOf(yield* resolver.ready(id))
        // Where the derived cache keeps a page's runs (common/DerivedCache.ts).
        const kept = (page: number) =>
          Effect.sync(() => {
            const file = join(dataDir, "cache", hash.slice(0, 2), hash, `t${page}_${PAGE_TEXT_ENGINE}.json`)
            return existsSync(file) ? Option.some(readFileSync(file)) : Option.none()
          })
        const keptSoon = (page: number) =>
          Effect.gen(function*() {
            for (let attempt = 0; attempt < 100; attempt++) {
              const runs = yield* kept(page)
              if (Option.isSome(runs)) return runs
              yield* pause(100)
            }
            return yield* kept(page)
          })

        const thumbnail = yield* call(`${base}/documents/${id}/pages/5/image?pageImageDescription=IM_200_0`)
        expect(pngSize(thumbnail.bytes).width).toBe(200)
        const page = yield* call(`${base}/documents/${id}/pages/3/image?pageImageDescription=IM_1000_0`)
        expect(pngSize(page.bytes).width).toBe(1000)

        const ahead = yield* keptSoon(3)
        expect(Option.isSome(ahead)).toBe(true)
        expect(Option.isNone(yield* kept(5))).toBe(true)

        // What the viewer then gets is what was read ahead: the page's words, where they are.
        const text = yield* call(`${base}/documents/${id}/pages/3/text/position`)
        expect(text.status).toBe(200)
        const body = JSON.parse(text.bytes.toString()) as {
          pageNumber: number
          positionTextList: Array<{ text: string }>
        }
        expect(body.pageNumber).toBe(3)
        expect(body.positionTextList.map((run) => run.text).join(" ")).toContain("trace")
        expect(JSON.stringify(body.positionTextList)).toBe(Option.getOrThrow(ahead).toString())
      }))
  }
)
