/**
 * Finding one's way in the browser viewer, in real headless Chromium against a viewer and a broker
 * on loopback: bookmarks, thumbnails, the parts of a ZIP archive, the keyboard alone, a long
 * document kept light by virtualization, a phone-sized screen and the French catalog.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { viewerAndBroker } from "../viewer/support.ts"
import {
  contrastOf,
  openedDocument,
  openTab,
  pagePainted,
  SCREENSHOTS,
  shownPageNumber,
  uploaded,
  waitForEvent,
  withViewerTab
} from "./viewer-tab.ts"

const pageChangedTo = (tab: Parameters<typeof shownPageNumber>[0], pageNumber: number) =>
  tab.waitForFunction(
    (n) => window.__viewerEvents.filter((e) => e.name === "pagechange").at(-1)?.detail.pageNumber === n,
    pageNumber
  )

layer(viewerAndBroker(), { timeout: 180_000 })("the browser viewer, navigation", (it) => {
  it.scoped("a bookmark click goes to its page, a nested one once its parent is expanded", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/nested_outline.pdf")
        yield* Effect.promise(() => tab.locator("[data-action=sidebar]").click())
        yield* Effect.promise(() => tab.getByRole("tab", { name: "Bookmarks" }).click())
        yield* Effect.promise(() => tab.getByRole("treeitem", { name: "2. Main Content" }).first().waitFor())
        yield* Effect.promise(() => tab.getByText("2. Main Content", { exact: true }).click())
        yield* Effect.promise(() => pageChangedTo(tab, 4))
        expect(yield* Effect.promise(() => shownPageNumber(tab))).toBe("4")
        yield* Effect.promise(() => pagePainted(tab, 4))

        // "2.2 Second Topic" sits under "2. Main Content" (open in the file's outline).
        yield* Effect.promise(() => tab.getByText("2.2 Second Topic", { exact: true }).click())
        yield* Effect.promise(() => pageChangedTo(tab, 6))
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/viewer-bookmarks.png` }))
      })
    ))

  it.scoped("thumbnails navigate, and the current page is marked in them", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf")
        yield* Effect.promise(() => tab.locator("[data-action=sidebar]").click())
        const third = tab.locator("docstack-thumbnails").getByRole("button", { name: "Page 3", exact: true })
        yield* Effect.promise(() => third.click())
        yield* Effect.promise(() => pageChangedTo(tab, 3))
        yield* Effect.promise(() => pagePainted(tab, 3))
        yield* Effect.promise(() =>
          tab.waitForFunction(() =>
            document.querySelector("docstack-viewer")!.shadowRoot!.querySelector("docstack-thumbnails")!.shadowRoot!
              .querySelector("[aria-current=page]")?.getAttribute("aria-label") === "Page 3"
          )
        )
        // The thumbnail shows the page, not an empty frame.
        const thumb = yield* Effect.promise(() => third.screenshot())
        expect(yield* Effect.promise(() => contrastOf(thumb))).toBeGreaterThan(10)
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/viewer-thumbnails.png` }))
      })
    ))

  it.scoped("a ZIP archive opens its first document and its tree opens another part", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const id = yield* uploaded("office/all.windows.zip")
        const tab = yield* openTab(chrome, base, `?uuid=${id}`)
        const first = yield* Effect.promise(() => waitForEvent(tab, "documentloaded"))
        expect(first.detail.title).toBe("Hello.txt")
        yield* Effect.promise(() => pagePainted(tab, 1))
        const parts = tab.locator("docstack-parts")
        yield* Effect.promise(() => parts.getByText("smile.gif").click())
        const second = yield* Effect.promise(() => waitForEvent(tab, "documentloaded", "detail.title === 'smile.gif'"))
        expect(second.detail.uuid).toBe(`${id}/3`)
        yield* Effect.promise(() =>
          tab.waitForFunction(() => window.__viewerEvents.filter((e) => e.name === "pagerendered").length >= 2)
        )
        expect(yield* Effect.promise(() => tab.locator("docstack-viewer .toolbar .title").textContent())).toBe(
          "all.windows.zip › smile.gif"
        )
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/viewer-parts.png` }))
      })
    ))

  it.scoped("keyboard alone: focus is visible, keys move through pages, every control is labelled", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf")
        const press = (key: string) => Effect.promise(() => tab.keyboard.press(key))
        yield* press("End")
        yield* Effect.promise(() => pageChangedTo(tab, 14))
        yield* press("Home")
        yield* Effect.promise(() => pageChangedTo(tab, 1))
        yield* press("n")
        yield* Effect.promise(() => pageChangedTo(tab, 2))
        yield* press("ArrowRight")
        yield* Effect.promise(() => pageChangedTo(tab, 3))
        yield* press("p")
        yield* Effect.promise(() => pageChangedTo(tab, 2))
        yield* press("PageDown")
        yield* press("PageDown")
        yield* Effect.promise(() => pageChangedTo(tab, 3))

        // Tab walks the toolbar; each stop is labelled and shows a focus ring.
        const stops: Array<{ label: string; outline: string; tag: string }> = []
        for (let step = 0; step < 25; step++) {
          yield* press("Tab")
          stops.push(
            yield* Effect.promise(() =>
              tab.evaluate(() => {
                let active: Element | null = document.activeElement
                while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement
                const element = active as HTMLElement
                return {
                  tag: element.tagName,
                  label: element.getAttribute("aria-label") ?? element.textContent?.trim() ?? "",
                  outline: getComputedStyle(element).outlineStyle + getComputedStyle(element).boxShadow
                }
              })
            )
          )
        }
        // Past the last control focus leaves the page (the body) and comes round again.
        const inViewer = stops.filter((stop) => stop.tag !== "BODY")
        const labels = inViewer.map((stop) => stop.label)
        for (
          const label of ["Show or hide the side panel", "Next page", "Page number", "Zoom in", "Find in document"]
        ) {
          expect(labels).toContain(label)
        }
        for (const stop of inViewer) {
          expect(stop.label, JSON.stringify(labels)).not.toBe("")
          expect(stop.outline).not.toBe("nonenone")
        }
        // A page number typed and entered goes there.
        const field = tab.locator("docstack-viewer .page-number")
        yield* Effect.promise(() => field.fill("9"))
        yield* Effect.promise(() => field.press("Enter"))
        yield* Effect.promise(() => pageChangedTo(tab, 9))
      })
    ))

  it.scoped("a page kept while the pages above it leave the DOM keeps its image", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        // Opened at page 12 (page 1 is never drawn).
        const tab = yield* openTab(chrome, base, `?uuid=${yield* uploaded("pdf/tracemonkey.pdf")}&page=12`)
        yield* Effect.promise(() => pagePainted(tab, 12))
        const page12 = tab.locator("docstack-viewer .page[data-page-number='12']")
        // Scrolling down within page 12 drops page 11 from the DOM; the list moves page 12's element.
        yield* Effect.promise(() =>
          tab.locator("docstack-viewer .viewport").evaluate((viewport) => viewport.scrollBy({ top: 1000 }))
        )
        yield* Effect.promise(() =>
          tab.waitForFunction(
            () => !document.querySelector("docstack-viewer")!.shadowRoot!.querySelector(".page[data-page-number='11']"),
            null,
            {
              timeout: 10_000
            }
          )
        )
        yield* Effect.promise(() => tab.waitForTimeout(500))
        expect(yield* Effect.promise(() => page12.locator("img.page-image").count())).toBe(1)
        const shot = yield* Effect.promise(() => page12.screenshot())
        expect(yield* Effect.promise(() => contrastOf(shot))).toBeGreaterThan(20)
      })
    ))

  it.scoped("a 400-page document: at most a few pages in the DOM, page 200 reached and painted", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/pdf2image-memory-error-test-400p.pdf")
        const pagesInDom = () => tab.locator("docstack-viewer .page").count()
        expect(yield* Effect.promise(pagesInDom)).toBeLessThanOrEqual(6)
        // The scroll bar covers all 400 pages before any other image came.
        const listHeight = yield* Effect.promise(() =>
          tab.locator("docstack-viewer .list").evaluate((list) => list.getBoundingClientRect().height)
        )
        const pageHeight = yield* Effect.promise(() =>
          tab.locator("docstack-viewer .page").first().evaluate((page) => page.getBoundingClientRect().height)
        )
        expect(listHeight).toBeGreaterThan(399 * pageHeight)
        yield* Effect.promise(() =>
          tab.evaluate(() => (document.querySelector("docstack-viewer") as any).goToPage(200))
        )
        yield* Effect.promise(() => pagePainted(tab, 200))
        expect(yield* Effect.promise(() => shownPageNumber(tab))).toBe("200")
        expect(yield* Effect.promise(pagesInDom)).toBeLessThanOrEqual(6)
      })
    ))

  it.scoped("at 360 px wide: the toolbar fits, the tools are in a menu, the page fills the width", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf", "", { width: 360, height: 740 })
        const toolbar = yield* Effect.promise(() =>
          tab.locator("docstack-viewer .toolbar").evaluate((bar) => ({
            scroll: bar.scrollWidth,
            client: bar.clientWidth
          }))
        )
        expect(toolbar.scroll).toBeLessThanOrEqual(toolbar.client)
        const page = (yield* Effect.promise(() => tab.locator("docstack-viewer .page").first().boundingBox()))!
        expect(page.width).toBeGreaterThan(320)
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/viewer-360.png` }))
        yield* Effect.promise(() => tab.locator("[data-action=more]").click())
        yield* Effect.promise(() => tab.getByRole("menuitem", { name: "Rotate this page clockwise" }).click())
        const rotated = (yield* Effect.promise(() => tab.locator("docstack-viewer .page").first().boundingBox()))!
        // Turned a quarter: now wider than tall.
        expect(rotated.width).toBeGreaterThan(rotated.height)
      })
    ))

  it.scoped("on a touch screen: two fingers spread apart zoom in around them", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf", "", {
          width: 400,
          height: 800,
          hasTouch: true
        })
        const before = (yield* Effect.promise(() => tab.locator("docstack-viewer .page").first().boundingBox()))!
        const touch = yield* Effect.promise(() => tab.context().newCDPSession(tab))
        const fingers = (spread: number) => [{ x: 200 - spread, y: 400, id: 0 }, { x: 200 + spread, y: 400, id: 1 }]
        yield* Effect.promise(async () => {
          await touch.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: fingers(30) })
          for (let spread = 40; spread <= 120; spread += 10) {
            await touch.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: fingers(spread) })
          }
          await touch.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] })
        })
        yield* Effect.promise(() =>
          tab.waitForFunction(() => window.__viewerEvents.filter((e) => e.name === "zoomchange").length >= 2)
        )
        const after = (yield* Effect.promise(() => tab.locator("docstack-viewer .page").first().boundingBox()))!
        // The fingers spread fourfold: the page is shown about that much larger.
        expect(after.width / before.width).toBeGreaterThan(2.5)
      })
    ))

  it.scoped("in French: the toolbar's labels come from the French catalog", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf", "&lang=fr")
        expect(yield* Effect.promise(() => tab.locator("[data-action=next]").getAttribute("aria-label"))).toBe(
          "Page suivante"
        )
        expect(yield* Effect.promise(() => tab.locator("docstack-viewer .page-count").textContent())).toBe("sur 14")
      })
    ))
})
