/**
 * Reading a document in the browser viewer, in real headless Chromium against a viewer and a broker
 * on loopback: the first page painted with its words selectable over the image, find with its
 * highlights over the words, downloads, zoom and the states a reader must understand.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { corpusFile } from "../support/http.ts"
import { viewerAndBroker } from "../viewer/support.ts"
import {
  contrastOf,
  events,
  openedDocument,
  openTab,
  pagePainted,
  SCREENSHOTS,
  shownPageNumber,
  uploaded,
  waitForEvent,
  withViewerTab
} from "./viewer-tab.ts"

layer(viewerAndBroker(), { timeout: 180_000 })("the browser viewer, reading", (it) => {
  it.scoped("opens a corpus PDF: page 1 painted, its words selectable exactly over the image", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const id = yield* uploaded("pdf/tracemonkey.pdf")
        const tab = yield* openTab(chrome, base, `?uuid=${id}`)
        const loaded = yield* Effect.promise(() => waitForEvent(tab, "documentloaded"))
        expect(loaded.detail).toEqual({ uuid: id, title: "tracemonkey.pdf", pageCount: 14 })
        yield* Effect.promise(() => pagePainted(tab, 1))
        expect(yield* Effect.promise(() => tab.title())).toBe("tracemonkey.pdf")
        expect(yield* Effect.promise(() => tab.locator("docstack-viewer .page-count").textContent())).toBe("of 14")

        // The page as a reader sees it: an image of text, not a blank or one-colour area.
        const page1 = tab.locator("docstack-viewer .page[data-page-number='1']")
        const shot = yield* Effect.promise(() => page1.screenshot({ path: `${SCREENSHOTS}/viewer-page1.png` }))
        expect(yield* Effect.promise(() => contrastOf(shot))).toBeGreaterThan(20)
        const image = yield* Effect.promise(() =>
          page1.locator("img.page-image").evaluate((img: HTMLImageElement) => ({
            natural: img.naturalWidth,
            shown: img.getBoundingClientRect().width
          }))
        )
        // Drawn at the displayed width (× devicePixelRatio 1), rounded up to the width step.
        expect(image.natural).toBeGreaterThanOrEqual(image.shown)
        expect(image.natural).toBeLessThan(image.shown + 64)

        // The text layer holds the title, and its span lies over the title's ink.
        const title = page1.locator(".text-layer span", { hasText: "Trace-based" }).first()
        yield* Effect.promise(() => title.waitFor())
        const box = (yield* Effect.promise(() => title.boundingBox()))!
        const pageBox = (yield* Effect.promise(() => page1.boundingBox()))!
        // In tracemonkey, the title starts 13 % from the page's left and 10 % from its top.
        expect((box.x - pageBox.x) / pageBox.width).toBeCloseTo(0.13, 1)
        expect((box.y - pageBox.y) / pageBox.height).toBeCloseTo(0.1, 1)
        const ink = yield* Effect.promise(() => tab.screenshot({ clip: box }))
        expect(yield* Effect.promise(() => contrastOf(ink))).toBeGreaterThan(40)

        // Selected and copied as text, lines kept apart.
        const selected = yield* Effect.promise(() =>
          page1.locator(".text-layer").evaluate((layer) => {
            const range = document.createRange()
            range.selectNodeContents(layer)
            const selection = window.getSelection()!
            selection.removeAllRanges()
            selection.addRange(range)
            return selection.toString()
          })
        )
        expect(selected).toContain("Trace-based Just-in-Time Type Specialization for Dynamic")
        expect(selected).toContain("Languages")
        expect(selected.split("\n").length).toBeGreaterThan(20)
      })
    ))

  it.scoped("finds a word: the count, every hit highlighted over its word, next and previous across pages", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { id, tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf")
        yield* Effect.promise(() => tab.keyboard.press("Control+f"))
        const input = tab.locator("docstack-find-bar input[type=search]")
        yield* Effect.promise(() => input.waitFor())
        yield* Effect.promise(() => input.pressSequentially("tracing"))
        yield* Effect.promise(() => input.press("Enter"))
        const done = yield* Effect.promise(() => waitForEvent(tab, "searchresults", "detail.done && detail.total > 0"))
        // Every page's text as the broker reads it, for the count.
        const expected = yield* Effect.promise(async () => {
          let count = 0
          for (let page = 0; page < 14; page++) {
            const content = await (await fetch(`${base}/viewergwt/pageContent?uuid=${id}&pagePosition=${page}`)).json()
            const text = content.positionTextList.map((run: { text: string }) => run.text).join(" ")
            count += (text.match(/tracing/gi) ?? []).length
          }
          return count
        })
        expect(done.detail.total).toBe(expected)
        const status = tab.locator("docstack-find-bar .status")
        expect(yield* Effect.promise(() => status.textContent())).toBe(`1 of ${expected}`)

        // The current hit is over a word that reads "tracing".
        const current = tab.locator("docstack-viewer .hit.current").first()
        yield* Effect.promise(() => current.waitFor())
        const hitBox = (yield* Effect.promise(() => current.boundingBox()))!
        const wordUnder = yield* Effect.promise(() =>
          tab.locator("docstack-viewer .text-layer span").evaluateAll((spans, box) =>
            spans.filter((span) => {
              const r = span.getBoundingClientRect()
              const x = box.x + box.width / 2
              const y = box.y + box.height / 2
              return x >= r.left && x <= r.right && y >= r.top && y <= r.bottom
            }).map((span) => span.textContent ?? ""), hitBox)
        )
        expect(wordUnder.join(" ").toLowerCase()).toContain("tracing")

        // Next moves through the hits to another page; previous comes back.
        const firstPage = yield* Effect.promise(() => shownPageNumber(tab))
        for (
          let step = 0;
          step < expected && (yield* Effect.promise(() => shownPageNumber(tab))) === firstPage;
          step++
        ) {
          yield* Effect.promise(() => tab.locator("docstack-find-bar button[aria-label='Next match']").click())
        }
        const nextPage = yield* Effect.promise(() => shownPageNumber(tab))
        expect(Number(nextPage)).toBeGreaterThan(Number(firstPage))
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/viewer-find.png` }))
        yield* Effect.promise(() => input.press("Shift+Enter"))
        yield* Effect.promise(() => tab.waitForFunction(() => true))
        const back = yield* Effect.promise(() => status.textContent())
        expect(back).toMatch(new RegExp(`^\\d+ of ${expected}$`))

        // A regular expression that does not compile is said, not thrown.
        yield* Effect.promise(() => tab.locator("docstack-find-bar button[aria-label='Regular expression']").click())
        yield* Effect.promise(() => input.fill("(unclosed"))
        yield* Effect.promise(() => input.press("Enter"))
        yield* Effect.promise(() => tab.locator("docstack-find-bar .status.error").waitFor())
      })
    ))

  it.scoped("downloads the original bytes and the PDF rendition", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const id = yield* uploaded("office/fake-email-attachment.eml")
        const pdfId = yield* uploaded("pdf/tracemonkey.pdf")
        const tab = yield* openTab(chrome, base, `?uuid=${pdfId}`, { acceptDownloads: true })
        yield* Effect.promise(() => pagePainted(tab, 1))
        const [download] = yield* Effect.promise(() =>
          Promise.all([tab.waitForEvent("download"), tab.locator("[data-action=download-original]").click()])
        )
        const path = yield* Effect.promise(() => download.path())
        expect(readFileSync(path).equals(corpusFile("pdf/tracemonkey.pdf"))).toBe(true)
        expect(download.suggestedFilename()).toBe("tracemonkey.pdf")

        // An email's part: its original is the part's own file, its PDF a real PDF.
        const email = yield* openTab(chrome, base, `?uuid=${id}`, { acceptDownloads: true })
        yield* Effect.promise(() => pagePainted(email, 1))
        const [rendered] = yield* Effect.promise(() =>
          Promise.all([email.waitForEvent("download"), email.locator("[data-action=download-pdf]").click()])
        )
        const renderedBytes = readFileSync(yield* Effect.promise(() => rendered.path()))
        expect(renderedBytes.subarray(0, 5).toString("latin1")).toBe("%PDF-")
      })
    ))

  it.scoped("zooms by steps, to fit and with Ctrl+wheel, keeping a sharper image for the new size", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf")
        const width = () =>
          tab.locator("docstack-viewer .page[data-page-number='1']").evaluate((page) =>
            page.getBoundingClientRect().width
          )
        const fitWidth = yield* Effect.promise(width)
        yield* Effect.promise(() => tab.locator("docstack-viewer select.zoom-select").selectOption("page-fit"))
        const fitPage = yield* Effect.promise(width)
        expect(fitPage).toBeLessThan(fitWidth)
        // Whole page in view: its height fits the viewport.
        const heights = yield* Effect.promise(() =>
          tab.locator("docstack-viewer").evaluate((viewer) => ({
            page: viewer.shadowRoot!.querySelector(".page")!.getBoundingClientRect().height,
            viewport: viewer.shadowRoot!.querySelector(".viewport")!.clientHeight
          }))
        )
        expect(heights.page).toBeLessThanOrEqual(heights.viewport)

        yield* Effect.promise(() => tab.locator("docstack-viewer select.zoom-select").selectOption("2"))
        yield* Effect.promise(() => waitForEvent(tab, "pagerendered", "detail.pageNumber === 1 && detail.width > 1500"))
        // 200 %: 612 points × 96/72 × 2.
        expect(yield* Effect.promise(width)).toBeCloseTo(1632, 0)

        // Ctrl + wheel up zooms in around the pointer.
        yield* Effect.promise(() => tab.mouse.move(600, 400))
        yield* Effect.promise(() => tab.keyboard.down("Control"))
        yield* Effect.promise(() => tab.mouse.wheel(0, -200))
        yield* Effect.promise(() => tab.keyboard.up("Control"))
        yield* Effect.promise(() =>
          tab.waitForFunction(() => window.__viewerEvents.filter((e) => e.name === "zoomchange").length >= 4)
        )
        const zooms = yield* Effect.promise(() => events(tab, "zoomchange"))
        expect(zooms.at(-1)!.detail.zoom).toBeGreaterThan(2)
      })
    ))

  it.scoped("at 400 %: tiles of the visible part, never a whole page past 2,400 pixels", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf", "&zoom=400")
        yield* Effect.promise(() =>
          tab.waitForFunction(() =>
            [...document.querySelector("docstack-viewer")!.shadowRoot!.querySelectorAll<HTMLImageElement>("img.tile")]
              .some((tile) => tile.complete && tile.naturalWidth > 0)
          )
        )
        const requests = yield* Effect.promise(() =>
          tab.evaluate(() => performance.getEntriesByType("resource").map((entry) => entry.name))
        )
        const widths = requests.filter((url) => url.includes("/imageServlet?"))
          .map((url) => Number(new URL(url).searchParams.get("desc")))
        expect(Math.max(...widths)).toBeLessThanOrEqual(2400)
        const crops = requests.filter((url) => url.includes("/cropImageServlet?"))
          .map((url) => new URL(url).searchParams.get("desc")!)
        expect(crops.length).toBeGreaterThan(0)
        // Only tiles of what is in view (1200 × 800 px of a 3264-pixel-wide page): a handful of 512-pixel tiles.
        expect(crops.length).toBeLessThanOrEqual(12)
        for (const desc of crops) expect(desc).toMatch(/^width=3264;x=\d+;y=\d+;w=\d+;h=\d+$/)
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/viewer-zoom.png` }))
      })
    ))

  it.scoped("a jump to the last page never fetches the pages in between", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/pdf2image-memory-error-test-400p.pdf")
        yield* Effect.promise(() => tab.keyboard.press("End"))
        yield* Effect.promise(() => pagePainted(tab, 400))
        const pages = yield* Effect.promise(() =>
          tab.evaluate(() =>
            performance.getEntriesByType("resource").map((entry) => entry.name)
              .filter((url) => url.includes("/imageServlet?"))
              .map((url) => Number(new URL(url).searchParams.get("pagePosition")))
          )
        )
        expect(pages.filter((page) => page > 3 && page < 396)).toEqual([])
      })
    ))

  it.scoped("prints through the printPage servlet: every page's image in a hidden frame", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf")
        // The frame's page calls print() once its images are in; here that call is recorded, not shown.
        yield* Effect.promise(() => tab.locator("[data-action=print]").click())
        const frame = yield* Effect.promise(async () => {
          const handle = await tab.locator("docstack-viewer iframe.print").elementHandle()
          return (await handle!.contentFrame())!
        })
        yield* Effect.promise(() =>
          frame.waitForFunction(() =>
            document.images.length === 14 && [...document.images].every((img) => img.complete && img.naturalWidth > 0)
          )
        )
        expect(frame.url()).toContain("printPage?")
        expect(new URL(frame.url()).searchParams.get("page")).toBe("0-13")
      })
    ))

  it.scoped("says what is wrong instead of a blank page: an unknown document", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const tab = yield* openTab(chrome, base, "?uuid=b64_doesNotExist0000000000")
        const failed = yield* Effect.promise(() => waitForEvent(tab, "error"))
        expect(failed.detail.kind).toBe("notFound")
        const message = tab.locator("docstack-viewer .message[role=alert]")
        expect(yield* Effect.promise(() => message.textContent())).toContain("does not exist")
      })
    ))
})
