/**
 * Corpus files through the real broker, feature by feature, on one broker:
 * - navigation: bookmarks are the document's outline and named destinations its name tree, both
 *   as MuPDF reads them;
 * - text (tracemonkey.pdf): a word is found where poppler sees it, on ink, and the pages containing
 *   a word are those where poppler's text has it, hyphenated at a line end or not;
 * - rotated pages (rotation.pdf, hello_world_rotated.pdf): they report their rotation, are drawn
 *   turned (and upright again with a further quarter turn), and their text is placed on the page
 *   as displayed, where poppler places it and where its ink is.
 * The per-file check of the whole corpus is corpus.test.ts.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { pngSize } from "../../support/http.ts"
import {
  type Box,
  corpusUploads,
  expectContains,
  expectInsidePage,
  get,
  greyPixels,
  inkIn,
  layoutOf,
  pageImage
} from "./corpus-broker-support.ts"
import {
  DESTINATIONS_SCRIPT,
  type MuOutline,
  mutoolRun,
  OUTLINE_SCRIPT,
  PDF_DIR,
  popplerText,
  popplerWords
} from "./corpus-support.ts"

const { uploadOk } = corpusUploads()

layer(brokerTestLayer(defaultBackend.config), { timeout: 120_000 })("PDF corpus through the broker", (it) => {
  // Entry counts from MANIFEST.tsv: "nested outline/bookmark tree (9 entries, 9 pages)", "58-entry outline".
  for (const [file, entries] of [["nested_outline.pdf", 9], ["freeculture.pdf", 58]] as const) {
    it.effect(`bookmarks of ${file} are its outline, as MuPDF reads it`, () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const outline = mutoolRun(OUTLINE_SCRIPT, `${PDF_DIR}${file}`) as ReadonlyArray<MuOutline>
        const count = (items: ReadonlyArray<MuOutline>): number =>
          items.reduce((n, item) => n + 1 + count(item.kids), 0)
        expect(count(outline)).toBe(entries)

        const id = yield* uploadOk(base, file)
        const reply = yield* get(base, `/documents/${id}/bookmarks`)
        expect(reply.status).toBe(200)
        const compare = (actual: ReadonlyArray<Bookmark>, expected: ReadonlyArray<MuOutline>, trail: string) => {
          // Titles, in order, at every level: the nesting is the same.
          expect(actual.map((b) => b.title), trail).toEqual(expected.map((o) => o.title))
          expected.forEach((item, i) => {
            const bookmark = actual[i]!
            const where = `${trail} > ${item.title}`
            if (item.uri?.startsWith("#")) {
              // A page of this document (1-based in the URI), and how far down it the view starts:
              // "zoom=nan,x,y" and "view=FitH,y" name it in points from the top, "view=Fit" is the top.
              expect(bookmark.page, where).toBe(Number(/page=(\d+)/.exec(item.uri)![1]) - 1)
              const top = /zoom=[^,]+,[^,]+,([\d.]+)/.exec(item.uri) ?? /view=FitB?H,([\d.]+)/.exec(item.uri)
              expect(Math.abs(bookmark.textPosition - (top ? Number(top[1]) : 0)), where).toBeLessThan(0.01)
            } else {
              // A web link: no page, the address (pdf.js writes it normalised, hence the URL objects).
              expect(bookmark.page, where).toBe(-1)
              expect(new URL(bookmark.fileName ?? "").href, where).toBe(new URL(item.uri ?? "").href)
            }
            if (item.kids.length > 0) expect(bookmark.nodeOpen, where).toBe(item.open)
            compare(bookmark.children, item.kids, where)
          })
        }
        compare(reply.json.bookmarks as ReadonlyArray<Bookmark>, outline, file)
      }), 60_000)
  }

  it.effect(
    "named destinations are the document's name tree, as MuPDF reads it (TAMReview.pdf and others)",
    () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        // TAMReview.pdf has one destination in a /Names tree, basicapi.pdf one in an old-style /Dests
        // dictionary, multi-column.pdf 118 (LaTeX hyperref) spread over a tree of several levels.
        for (const [file, count] of [["TAMReview.pdf", 1], ["basicapi.pdf", 1], ["multi-column.pdf", 118]] as const) {
          const expected = mutoolRun(DESTINATIONS_SCRIPT, `${PDF_DIR}${file}`) as Array<[string, number]>
          expect(expected, file).toHaveLength(count)
          const id = yield* uploadOk(base, file)
          const reply = yield* get(base, `/documents/${id}/destinations`)
          expect(reply.status).toBe(200)
          expect(reply.json.documentId).toEqual({ id })
          const listed = (reply.json.namedDestinations as Array<{ name: string; page: number }>).map((
            d
          ) => [d.name, d.page])
          expect(listed.sort(), file).toEqual(expected.sort())
        }
      }),
    60_000
  )

  it.effect("a word on page 0 of tracemonkey.pdf is found where poppler sees it, on ink", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const source = `${PDF_DIR}tracemonkey.pdf`
      const id = yield* uploadOk(base, "tracemonkey.pdf")
      const [page] = yield* layoutOf(base, id)
      const word = popplerWords(source, 0).filter((w) => w.text === "Andreas")
      expect(word).toHaveLength(1)

      // In-page search: the run holding the word, with the word's characters marked.
      const inPage = yield* get(base, `/documents/${id}/pages/0/text?searchText=andreas`)
      expect(inPage.status).toBe(200)
      const hits = inPage.json.searchResults as Array<
        {
          positionText: { pageNumber: number; position: Box; text: string }
          textRangeList: Array<{ firstCharacter: number; lastCharacter: number }>
        }
      >
      expect(hits).toHaveLength(1)
      const hit = hits[0]!
      expect(hit.positionText.pageNumber).toBe(0)
      expect(hit.textRangeList).toHaveLength(1)
      expect(hit.positionText.text.slice(hit.textRangeList[0]!.firstCharacter, hit.textRangeList[0]!.lastCharacter + 1))
        .toBe("Andreas")
      expectInsidePage(hit.positionText.position, page!.width, page!.height)
      expectContains(hit.positionText.position, word[0]!, 1)

      // Document search: the match itself, boxed within 2 pt of poppler's word box on every side
      // (a fifth of the 10 pt type: a highlight sits on the word).
      const inDocument = yield* get(base, `/documents/${id}/search?fromPage=0&toPage=0&searchText=Andreas`)
      expect(inDocument.status).toBe(200)
      expect(inDocument.json.searchStatus).toBe("COMPLETED")
      const matches = inDocument.json.pagesResults["0"] as Array<{ positionText: { position: Box; text: string } }>
      expect(matches.map((m) => m.positionText.text)).toEqual(["Andreas"])
      const box = matches[0]!.positionText.position
      expect(Math.abs(box.x - word[0]!.x0)).toBeLessThan(2)
      expect(Math.abs(box.y - word[0]!.y0)).toBeLessThan(2)
      expect(Math.abs(box.x + box.w - word[0]!.x1)).toBeLessThan(2)
      expect(Math.abs(box.y + box.h - word[0]!.y1)).toBeLessThan(2)

      // Drawn one pixel per point, the box covers the word's ink.
      const grey = yield* greyPixels(yield* pageImage(base, id, 0, `IM_${page!.width}_0`))
      expect(inkIn(grey, box)).toBeGreaterThan(0.05)
    }), 60_000)

  it.effect(
    "pages containing a word are those where poppler's text has it, hyphenated at a line end or not",
    () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const text = popplerText(`${PDF_DIR}tracemonkey.pdf`)
        expect(text).toHaveLength(14)
        const id = yield* uploadOk(base, "tracemonkey.pdf")
        // TraceMonkey is split "TraceMon-|key" on page 7 and nanojit "nano-|jit" on page 10.
        for (const word of ["TraceMonkey", "nanojit", "SpiderMonkey", "LuaJIT", "recursion", "Haghighat"]) {
          const expected = text.flatMap((
            pageText,
            i
          ) => (pageText.toLowerCase().includes(word.toLowerCase()) ? [i] : []))
          expect(expected.length, word).toBeGreaterThan(0)
          const reply = yield* get(base, `/documents/${id}/pages?searchText=${word}`)
          expect(reply.status).toBe(200)
          expect(reply.json.pageList, word).toEqual(expected)
        }
        // The hyphenated match is reported in both of its pieces, each with its own box.
        const split = yield* get(base, `/documents/${id}/search?fromPage=10&toPage=10&searchText=nanojit`)
        expect(
          (split.json.pagesResults["10"] as Array<{ positionText: { text: string } }>).map((m) => m.positionText.text)
        ).toEqual(["nano-", "jit"])
      }),
    60_000
  )

  it.effect(
    "rotated pages report their rotation and are drawn turned, text included (rotation.pdf)",
    () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const source = `${PDF_DIR}rotation.pdf`
        const id = yield* uploadOk(base, "rotation.pdf")
        const pages = yield* layoutOf(base, id)
        expect(pages.map((p) => [p.width, p.height, p.rotation])).toEqual([[612, 792, 0], [612, 792, 90]])
        expect(pngSize(yield* pageImage(base, id, 0, "IM_600_0"))).toEqual({ width: 600, height: 776 })
        expect(pngSize(yield* pageImage(base, id, 1, "IM_600_0"))).toEqual({ width: 600, height: 464 })
        // A further quarter turn asked by the client brings the landscape page back upright.
        expect(pngSize(yield* pageImage(base, id, 1, "IM_600_90"))).toEqual({ width: 600, height: 776 })

        // The text of the turned page is placed on the page as displayed (792 x 612), where poppler
        // places it and where its ink is; turned the wrong way it would be in the opposite corner.
        const text = yield* get(base, `/documents/${id}/pages/1/text/position`)
        const first = (text.json.positionTextList as Array<{ text: string; position: Box; rotation: number }>)[0]!
        expect(first.text).toMatch(/^This is my second page/)
        expectInsidePage(first.position, 792, 612)
        expectContains(first.position, popplerWords(source, 1).find((w) => w.text === "This")!, 1)
        const grey = yield* greyPixels(yield* pageImage(base, id, 1, "IM_792_0"))
        expect([grey.info.width, grey.info.height]).toEqual([792, 612])
        expect(inkIn(grey, first.position)).toBeGreaterThan(0.05)
        const opposite = {
          x: 792 - first.position.x - first.position.w,
          y: 612 - first.position.y - first.position.h,
          w: first.position.w,
          h: first.position.h
        }
        expect(inkIn(grey, opposite)).toBeLessThan(0.01)
      }),
    60_000
  )

  it.effect(
    "every page of hello_world_rotated.pdf is /Rotate 90: landscape images, text on the turned page",
    () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const source = `${PDF_DIR}hello_world_rotated.pdf`
        const id = yield* uploadOk(base, "hello_world_rotated.pdf")
        const pages = yield* layoutOf(base, id)
        expect(pages).toHaveLength(5)
        for (const [i, page] of pages.entries()) {
          expect([page.width, page.height, page.rotation]).toEqual([612, 792, 90])
          expect(pngSize(yield* pageImage(base, id, i, "IM_600_0"))).toEqual({ width: 600, height: 464 })
        }
        const text = yield* get(base, `/documents/${id}/pages/0/text/position`)
        const runs = text.json.positionTextList as Array<{ text: string; position: Box; rotation: number }>
        expect(runs.map((r) => r.text)).toEqual(["Hello world"])
        // Horizontal in the content stream, so it reads top to bottom once the page is turned.
        expect(runs[0]!.rotation).toBe(90)
        expectInsidePage(runs[0]!.position, 792, 612)
        for (const word of popplerWords(source, 0)) expectContains(runs[0]!.position, word, 1)
        const grey = yield* greyPixels(yield* pageImage(base, id, 0, "IM_792_0"))
        expect(inkIn(grey, runs[0]!.position)).toBeGreaterThan(0.05)
      }),
    60_000
  )
})

interface Bookmark {
  readonly title: string
  readonly page: number
  readonly textPosition: number
  readonly nodeOpen: boolean
  readonly children: ReadonlyArray<Bookmark>
  readonly fileName: string | null
}
