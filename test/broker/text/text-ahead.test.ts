/**
 * A page drawn at least TEXT_AHEAD_MIN_WIDTH wide, when no other request is running or waiting,
 * has its text positions read into the derived cache before anyone asks: the viewer's text layer
 * asks for them once the image has come. A thumbnail's drawing, or a drawing while other work
 * runs, reads nothing ahead.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { DocumentResolver } from "../../../src/services/broker/documents/DocumentResolver.ts"
import { PAGE_TEXT_ENGINE } from "../../../src/services/broker/engine/PageEngine.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, pngSize, uploadOk } from "../../support/http.ts"
import { pollUntil } from "../../support/polling.ts"
import { sleep } from "../../support/processes.ts"

const dataDir = mkdtempSync(join(tmpdir(), "docstack-text-ahead-"))

/** tracemonkey.pdf uploaded, and a page's runs as the derived cache keeps them (common/DerivedCache.ts), if it does. */
const tracemonkey = Effect.gen(function*() {
  const base = yield* BrokerUrl
  const resolver = yield* DocumentResolver
  const id = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
  const { hash } = yield* resolver.pdfOf(yield* resolver.ready(id))
  const kept = (page: number) =>
    Effect.sync(() => {
      const file = join(dataDir, "cache", hash.slice(0, 2), hash, `t${page}_${PAGE_TEXT_ENGINE}.json`)
      return existsSync(file) ? Option.some(readFileSync(file)) : Option.none()
    })
  const draw = (page: number, width: number) =>
    call(`${base}/documents/${id}/pages/${page}/image?pageImageDescription=IM_${width}_0`).pipe(
      Effect.tap((answer) => expect(pngSize(answer.bytes).width).toBe(width))
    )
  return { base, id, kept, draw }
})

layer(brokerTestLayer({ ...defaultBackend.config, DATA_DIR: dataDir, TEXT_AHEAD_MIN_WIDTH: "400" }), {
  timeout: 120_000
})("text read ahead", (it) => {
  it.effect("a page drawn for reading has its text kept before it is asked for; a thumbnail's does not", () =>
    Effect.gen(function*() {
      const { base, draw, id, kept } = yield* tracemonkey
      yield* draw(5, 200)
      yield* draw(3, 1000)

      const ahead = yield* pollUntil(kept(3), Option.isSome)
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

  it.effect("a page drawn while another request runs has nothing read ahead", () =>
    Effect.gen(function*() {
      const { base, draw, kept } = yield* tracemonkey
      const vector = yield* uploadOk(base, corpusFile("pdf/issue12810.pdf"))
      // 38,600 paths at 6000 px: one long request of the engine's (about a second).
      const other = yield* Effect.fork(
        call(`${base}/documents/${vector}/pages/0/image?pageImageDescription=IM_6000_0`)
      )
      yield* sleep(300)
      yield* draw(6, 1000)
      // The other drawing was still running when the page came: the case this test is about.
      expect(Option.isNone(yield* Fiber.poll(other))).toBe(true)
      expect(pngSize((yield* Fiber.join(other)).bytes).width).toBe(6000)
      yield* sleep(1500)
      expect(Option.isNone(yield* kept(6))).toBe(true)
    }))
})
