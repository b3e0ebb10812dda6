import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { BrokerUrl, ViewerUrl } from "../../src/layers/Test.ts"
import { browser } from "../support/browser.ts"
import { corpusFile, pngSize, uploadOk } from "../support/http.ts"
import { servlet, viewerAndBroker } from "./support.ts"

/** The `src` of every <img> of a page, unescaped as a browser reads them. */
const imageSources = (page: string) =>
  [...page.matchAll(/<img src="([^"]*)" width="(\d+)" height="(\d+)"/g)].map((m) => ({
    src: m[1]!.replace(/&amp;/g, "&"),
    width: Number(m[2]),
    height: Number(m[3])
  }))

describe("printServlet and printPage", () => {
  it.layer(viewerAndBroker(), { timeout: 180_000 })((it) => {
    it.effect("printServlet shows the pages asked (zero-based, ranges) as images of the viewer's own imageServlet", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/tracemonkey.pdf"))
        const reply = yield* servlet(`printServlet?uuid=${id}&desc=300&pages=${encodeURIComponent("0, 2-3, 2")}`)
        expect(reply.status).toBe(200)
        expect(reply.contentType).toContain("text/html")
        const images = imageSources(reply.text)
        expect(images.map((i) => new URLSearchParams(i.src.split("?")[1]).get("pagePosition"))).toEqual(["0", "2", "3"])
        expect(reply.text).toContain(`confirm(question)`)
        expect(reply.text).toContain(`"Print 3 pages?"`)
        expect(reply.text).toContain("Page 3 of 14")
        for (const image of images) {
          expect(image.src.startsWith("imageServlet?")).toBe(true)
          const png = yield* servlet(image.src)
          expect(png.status).toBe(200)
          const size = pngSize(png.bytes)
          expect(size.width).toBe(300)
          expect(Math.abs(size.height - image.height)).toBeLessThanOrEqual(1)
        }
      }))

    it.effect("desc IM_{width}_{rotation} turns the pages: landscape images of portrait pages", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/basicapi.pdf"))
        const reply = yield* servlet(`printServlet?uuid=${id}&desc=IM_400_90&pages=0&imagePrintStyle=FIT-WIDTH`)
        expect(reply.status).toBe(200)
        const [image] = imageSources(reply.text)
        const png = yield* servlet(image!.src)
        expect(png.status).toBe(200)
        const size = pngSize(png.bytes)
        expect(size.width).toBe(400)
        expect(size.height).toBeLessThan(size.width)
        expect(Math.abs(size.height - image!.height)).toBeLessThanOrEqual(1)
      }))

    it.effect("printServlet refuses a bad desc, page list or style with a 400 naming it, an unknown document with a 404", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/basicapi.pdf"))
        const cases = [
          ["desc=wide&pages=0", "desc"],
          ["desc=IM_300_45&pages=0", "desc"],
          ["desc=300&pages=0-99", "past the end"],
          ["desc=300&pages=3-1", "ends before it starts"],
          ["desc=300&pages=one", "pages"],
          ["desc=300&pages=0&imagePrintStyle=zoom", "imagePrintStyle"]
        ] as const
        for (const [query, named] of cases) {
          const reply = yield* servlet(`printServlet?uuid=${id}&${query}`)
          expect(reply.status, query).toBe(400)
          expect(reply.json.message, query).toContain(named)
        }
        expect((yield* servlet("printServlet?uuid=b64_nothing&desc=300&pages=0")).status).toBe(404)
      }))

    it.effect("printPage: the pages at renditionPrintWidth shown browserPrintWidth wide, one per sheet, printing on load", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/tracemonkey.pdf"))
        const query = `uuid=${id}&renditionPrintWidth=500&browserPrintWidth=250&page=1-2`
        const reply = yield* servlet(`printPage?nbPages=14&${query}`)
        expect(reply.status).toBe(200)
        const images = imageSources(reply.text)
        expect(images.map((i) => i.src)).toEqual(
          [1, 2].map((p) => `imageServlet?uuid=${id}&pagePosition=${p}&desc=500`)
        )
        expect(reply.text).toContain("width: 250px")
        expect(reply.text).toContain("@page")
        expect(reply.text).toContain("break-after: page")
        expect(reply.text).toContain(`window.addEventListener("load", () => window.print())`)
        const wrongCount = yield* servlet(`printPage?nbPages=13&${query}`)
        expect(wrongCount.status).toBe(400)
        expect(wrongCount.json.message).toContain("14 pages")
        expect((yield* servlet(`printPage?nbPages=14&${query.replace("page=1-2", "page=14")}`)).status).toBe(400)
      }))

    it.scoped("in a browser, the preview asks before printing and every page image is loaded", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/tracemonkey.pdf"))
        const chromium = yield* browser
        const page = yield* Effect.promise(() => chromium.newPage())
        const dialogs: Array<string> = []
        page.on("dialog", (dialog) => {
          dialogs.push(`${dialog.type()}: ${dialog.message()}`)
          void dialog.dismiss()
        })
        const url = `${yield* ViewerUrl}/viewergwt/printServlet?uuid=${id}&desc=400&pages=0-2`
        yield* Effect.promise(() => page.goto(url, { waitUntil: "load" }))
        const widths = yield* Effect.promise(() =>
          page.$$eval("img", (images) => images.map((img) => (img as HTMLImageElement).naturalWidth))
        )
        expect(widths).toEqual([400, 400, 400])
        expect(dialogs).toEqual(["confirm: Print 3 pages?"])
      }))
  })
})
