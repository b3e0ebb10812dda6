/**
 * Organizing pages in the browser viewer, in real headless Chromium against a viewer and a broker on
 * loopback: pages dragged, extracted, deleted, merged with another document, and moved by keyboard
 * alone, each saved as a new document that then opens, read back through the pageContent servlet.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import type { Page } from "playwright-core"
import { viewerAndBroker } from "../viewer/support.ts"
import { openedDocument, SCREENSHOTS, uploaded, waitForEvent, withViewerTab } from "./viewer-tab.ts"

const CORPUS = fileURLToPath(new URL("../corpus/", import.meta.url))

/** A page's words as the broker reads them (0-based page). */
const pageText = async (base: string, uuid: string, page: number) => {
  const response = await fetch(`${base}/viewergwt/pageContent?uuid=${encodeURIComponent(uuid)}&pagePosition=${page}`)
  const content = await response.json() as { positionTextList: Array<{ text: string }> }
  return content.positionTextList.map((run) => run.text).join(" ")
}

/** The first words of a page: enough to tell it from the others. */
const opening = async (base: string, uuid: string, page: number) => (await pageText(base, uuid, page)).slice(0, 160)

const cell = (tab: Page, position: number) => tab.locator(`docstack-organizer-grid .cell[data-index="${position - 1}"]`)

interface Focused {
  readonly action: string | null
  readonly index: string | null
  readonly role: string | null
  /** Its accessible name, as far as a label or its text gives it. */
  readonly name: string
  readonly outline: string
}

/** The element with the keyboard focus, through the shadow roots. */
const focused = (tab: Page): Promise<Focused> =>
  tab.evaluate(() => {
    let element = document.activeElement
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement
    const style = element === null ? null : getComputedStyle(element)
    return {
      action: element?.getAttribute("data-action") ?? null,
      index: element?.getAttribute("data-index") ?? null,
      role: element?.getAttribute("role") ?? null,
      name: (element?.getAttribute("aria-label") ?? element?.textContent ?? "").trim(),
      outline: style === null || style.outlineWidth === "0px" ? "none" : style.outlineStyle
    }
  })

/** Opens the organizer from the toolbar; answers once page 1's thumbnail is drawn. */
const openOrganizer = async (tab: Page) => {
  await tab.locator("docstack-viewer [data-action=organize]").click()
  await cell(tab, 1).locator("img").waitFor()
}

/** Clicks a button of the organizer's bar, by its data-action. */
const press = (tab: Page, action: string) => tab.locator(`docstack-page-organizer [data-action="${action}"]`).click()

/** The document the viewer opened after an order: its `documentloaded` event, another document than `from`. */
const resultOpened = async (tab: Page, from: string) =>
  (await waitForEvent(tab, "documentloaded", `detail.uuid !== ${JSON.stringify(from)}`, 120_000)).detail as {
    uuid: string
    title: string
    pageCount: number
  }

/** Drags the page at `from` (1-based position) to the left half of the page at `to`. */
const drag = async (tab: Page, from: number, to: number, screenshot?: string) => {
  const source = (await cell(tab, from).boundingBox())!
  const target = (await cell(tab, to).boundingBox())!
  await tab.mouse.move(source.x + source.width / 2, source.y + source.height / 2)
  await tab.mouse.down()
  await tab.mouse.move(target.x + target.width * 0.2, target.y + target.height / 2, { steps: 10 })
  await tab.locator("docstack-organizer-grid .marker").waitFor()
  if (screenshot !== undefined) await tab.screenshot({ path: screenshot })
  await tab.mouse.up()
}

layer(viewerAndBroker(), { timeout: 300_000 })("the browser viewer, organizing pages", (it) => {
  it.scoped("reorder two pages by dragging → the result's page order", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { id, tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf")
        const result = yield* Effect.promise(async () => {
          await openOrganizer(tab)
          await tab.screenshot({ path: `${SCREENSHOTS}/organize-open.png` })
          await drag(tab, 2, 1, `${SCREENSHOTS}/organize-dragging.png`)
          expect(await cell(tab, 1).getAttribute("aria-label")).toBe("Page 1: page 2 of tracemonkey.pdf")
          expect(await cell(tab, 2).getAttribute("aria-label")).toBe("Page 2: page 1 of tracemonkey.pdf")
          await tab.screenshot({ path: `${SCREENSHOTS}/organize-dropped.png` })
          await press(tab, "organize-save")
          return resultOpened(tab, id)
        })
        expect(result.pageCount).toBe(14)
        expect(result.title).toBe("tracemonkey.pdf (rearranged)")
        const [original1, original2] = yield* Effect.promise(() =>
          Promise.all([opening(base, id, 0), opening(base, id, 1)])
        )
        expect(original1).not.toBe(original2)
        expect(yield* Effect.promise(() => opening(base, result.uuid, 0))).toBe(original2)
        expect(yield* Effect.promise(() => opening(base, result.uuid, 1))).toBe(original1)
        // The original is untouched, and the viewer is back on the pages, of the new document.
        expect(yield* Effect.promise(() => opening(base, id, 0))).toBe(original1)
        expect(yield* Effect.promise(() => tab.locator("docstack-page-organizer").count())).toBe(0)
      })
    ))

  it.scoped("extract pages 3–5 → a 3-page document of those pages", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { id, tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf")
        const result = yield* Effect.promise(async () => {
          await openOrganizer(tab)
          await cell(tab, 3).click()
          await cell(tab, 5).click({ modifiers: ["Shift"] })
          expect(await tab.locator("docstack-organizer-grid .cell[aria-selected=true]").count()).toBe(3)
          expect(await tab.locator("docstack-page-organizer #title").getAttribute("placeholder")).toBe(
            "tracemonkey.pdf (pages 3–5)"
          )
          await tab.screenshot({ path: `${SCREENSHOTS}/organize-selected.png` })
          await press(tab, "organize-extract")
          return resultOpened(tab, id)
        })
        expect(result.pageCount).toBe(3)
        expect(result.title).toBe("tracemonkey.pdf (pages 3–5)")
        for (const page of [0, 1, 2]) {
          expect(yield* Effect.promise(() => opening(base, result.uuid, page))).toBe(
            yield* Effect.promise(() => opening(base, id, page + 2))
          )
        }
      })
    ))

  it.scoped("delete a page → one page fewer, that page's text gone", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { id, tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf")
        const result = yield* Effect.promise(async () => {
          await openOrganizer(tab)
          await cell(tab, 4).click()
          await press(tab, "delete")
          expect(await cell(tab, 4).getAttribute("aria-label")).toBe("Page 4: page 5 of tracemonkey.pdf")
          // Undo brings it back, redo takes it away again.
          await press(tab, "undo")
          expect(await cell(tab, 4).getAttribute("aria-label")).toBe("Page 4: page 4 of tracemonkey.pdf")
          await press(tab, "redo")
          expect(await tab.locator("docstack-page-organizer .count").textContent()).toBe("13 pages")
          await tab.locator("docstack-page-organizer #title").fill("Without page 4")
          await press(tab, "organize-save")
          return resultOpened(tab, id)
        })
        expect(result.pageCount).toBe(13)
        expect(result.title).toBe("Without page 4")
        const deleted = yield* Effect.promise(() => opening(base, id, 3))
        const texts = yield* Effect.promise(() =>
          Promise.all(Array.from({ length: 13 }, (_, page) => opening(base, result.uuid, page)))
        )
        expect(texts).not.toContain(deleted)
        expect(texts[3]).toBe(yield* Effect.promise(() => opening(base, id, 4)))
      })
    ))

  it.scoped("merge with an uploaded corpus PDF → the pages add up, the second document's after", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { id, tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf")
        // The second document's text, read from a copy uploaded apart from the dialog's.
        const reference = yield* uploaded("pdf/basicapi.pdf")
        const layout = yield* Effect.promise(async () =>
          (await fetch(`${base}/viewergwt/documentLayout?uuid=${reference}`)).json() as Promise<{
            pageDimensionsList: Array<unknown>
          }>
        )
        const count = layout.pageDimensionsList.length
        const result = yield* Effect.promise(async () => {
          await openOrganizer(tab)
          await press(tab, "merge")
          // A document the service does not have: said in the dialog, which stays open.
          const idField = tab.locator("docstack-merge-dialog #merge-id")
          await idField.fill("no-such-document")
          await idField.press("Enter")
          const error = tab.locator("docstack-merge-dialog .error")
          await error.waitFor()
          expect(await error.textContent()).toMatch(/^The document could not be added: ./)
          await tab.locator("docstack-merge-dialog input[type=file]").setInputFiles(`${CORPUS}pdf/basicapi.pdf`)
          // The added pages come after the last, selected, marked as another document's.
          await cell(tab, 15).locator(".source").waitFor({ timeout: 60_000 })
          expect(await cell(tab, 15).getAttribute("aria-label")).toBe("Page 15: page 1 of basicapi.pdf")
          expect(await tab.locator("docstack-organizer-grid .cell[aria-selected=true]").count()).toBe(count)
          await cell(tab, 15).locator("img").waitFor()
          await tab.screenshot({ path: `${SCREENSHOTS}/organize-merged.png` })
          await press(tab, "organize-save")
          return resultOpened(tab, id)
        })
        expect(result.pageCount).toBe(14 + count)
        expect(yield* Effect.promise(() => opening(base, result.uuid, 0))).toBe(
          yield* Effect.promise(() => opening(base, id, 0))
        )
        for (let page = 0; page < count; page++) {
          expect(yield* Effect.promise(() => opening(base, result.uuid, 14 + page))).toBe(
            yield* Effect.promise(() => opening(base, reference, page))
          )
        }
      })
    ))

  it.scoped("keyboard only: open, select, move and save; every control reached by Tab, labelled, with a focus ring", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { id, tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf")
        const result = yield* Effect.promise(async () => {
          await tab.locator("docstack-viewer [data-action=organize]").focus()
          await tab.keyboard.press("Enter")
          await cell(tab, 1).locator("img").waitFor()
          // The grid has the keyboard at once, on page 1.
          expect(await focused(tab)).toMatchObject({ index: "0", role: "option" })
          await tab.keyboard.press("ArrowRight")
          await tab.keyboard.press("ArrowRight")
          await tab.keyboard.press("Space")
          await tab.keyboard.press("Shift+ArrowRight")
          expect(await tab.locator("docstack-organizer-grid .cell[aria-selected=true]").count()).toBe(2)
          // Pages 3 and 4 moved two places towards the start.
          await tab.keyboard.press("Control+Alt+ArrowLeft")
          await tab.keyboard.press("Control+Alt+ArrowLeft")
          expect(await cell(tab, 1).getAttribute("aria-label")).toBe("Page 1: page 3 of tracemonkey.pdf")
          expect(await cell(tab, 2).getAttribute("aria-label")).toBe("Page 2: page 4 of tracemonkey.pdf")
          expect(await cell(tab, 3).getAttribute("aria-label")).toBe("Page 3: page 1 of tracemonkey.pdf")
          // The keyboard stayed on the page it was on, now at position 2.
          expect(await focused(tab)).toMatchObject({ index: "1" })
          await tab.screenshot({ path: `${SCREENSHOTS}/organize-keyboard.png` })

          // Back through the bar with Shift+Tab: each control named, with a visible focus ring.
          const seen: Array<Focused> = []
          for (let step = 0; step < 20; step++) {
            await tab.keyboard.press("Shift+Tab")
            const now = await focused(tab)
            seen.push(now)
            if (now.action === "organize-close") break
          }
          expect(seen.map((control) => control.action)).toEqual(expect.arrayContaining([
            "merge",
            "select-all",
            "delete",
            "move-later",
            "move-earlier",
            "reset",
            "undo",
            "organize-save",
            "organize-extract",
            "organize-close"
          ]))
          for (const control of seen) {
            expect(control.name, JSON.stringify(control)).not.toBe("")
            expect(control.outline, JSON.stringify(control)).not.toBe("none")
          }
          // Forward again to Save, and Enter.
          while ((await focused(tab)).action !== "organize-save") await tab.keyboard.press("Tab")
          await tab.keyboard.press("Enter")
          return resultOpened(tab, id)
        })
        expect(result.pageCount).toBe(14)
        const expected = [2, 3, 0, 1, 4]
        for (const [page, original] of expected.entries()) {
          expect(yield* Effect.promise(() => opening(base, result.uuid, page))).toBe(
            yield* Effect.promise(() => opening(base, id, original))
          )
        }
      })
    ))

  it.scoped("400 pages: a bounded number of cells, and one part of two ranges for the last page moved first", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { id, tab } = yield* openedDocument(chrome, base, "pdf/pdf2image-memory-error-test-400p.pdf")
        const { body, result } = yield* Effect.promise(async () => {
          await openOrganizer(tab)
          const cells = tab.locator("docstack-organizer-grid .cell")
          const atStart = await cells.count()
          expect(atStart).toBeLessThan(80)
          // End goes to page 400, scrolled into view; the cells stay as few.
          await tab.keyboard.press("End")
          await cell(tab, 400).locator("img").waitFor()
          expect(await cells.count()).toBeLessThan(80)
          await tab.screenshot({ path: `${SCREENSHOTS}/organize-400-end.png` })
          await tab.keyboard.press("Space")
          await tab.keyboard.press("Control+Alt+Home")
          const request = tab.waitForRequest((request) => request.url().includes("/transformation"))
          await cell(tab, 1).waitFor()
          expect(await cell(tab, 1).getAttribute("aria-label")).toMatch(/^Page 1: page 400 of/)
          await press(tab, "organize-save")
          return { body: (await request).postDataJSON(), result: await resultOpened(tab, id) }
        })
        expect(body.parts).toEqual([{ uuid: id, pages: [{ from: 399, to: 399 }, { from: 0, to: 398 }] }])
        expect(result.pageCount).toBe(400)
        expect(yield* Effect.promise(() => opening(base, result.uuid, 0))).toBe(
          yield* Effect.promise(() => opening(base, id, 399))
        )
      })
    ))

  it.scoped("at 360 px, in French: two columns, every page deleted says why nothing can be saved", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf", "&lang=fr", {
          width: 360,
          height: 740
        })
        yield* Effect.promise(async () => {
          await tab.locator("docstack-viewer [data-action=more]").click()
          await tab.locator("docstack-viewer .menu button", { hasText: "Organiser les pages" }).click()
          await cell(tab, 1).locator("img").waitFor()
          const lefts = new Set(
            await tab.locator("docstack-organizer-grid .cell").evaluateAll((cells) =>
              cells.map((cell) => Math.round(cell.getBoundingClientRect().left))
            )
          )
          expect(lefts.size).toBe(2)
          // Nothing sticks out of the element: the bars wrap.
          const overflow = await tab.locator("docstack-page-organizer").evaluate((organizer) =>
            [...organizer.shadowRoot!.querySelectorAll(".bar")].map((bar) => bar.scrollWidth - bar.clientWidth)
          )
          expect(overflow).toEqual([0, 0])
          await tab.screenshot({ path: `${SCREENSHOTS}/organize-narrow-fr.png` })
          await tab.keyboard.press("Control+a")
          await tab.keyboard.press("Delete")
          const save = tab.locator("docstack-page-organizer [data-action=organize-save]")
          expect(await save.getAttribute("aria-disabled")).toBe("true")
          const empty = tab.locator("docstack-page-organizer #empty")
          expect(await empty.textContent()).toContain("rien à enregistrer")
          expect(await save.getAttribute("aria-describedby")).toBe("empty")
          await tab.screenshot({ path: `${SCREENSHOTS}/organize-empty-fr.png` })
          // The keyboard is on Undo, which brings the pages back.
          expect(await focused(tab)).toMatchObject({ action: "undo" })
          await tab.keyboard.press("Enter")
          await cell(tab, 1).waitFor()
          expect(await tab.locator("docstack-page-organizer .count").textContent()).toBe("14 pages")
          expect(await save.getAttribute("aria-disabled")).toBe("false")
        })
      })
    ))

  it.scoped("on a touch screen a long press drags a page; the arrangement stays when the view closes, until reset", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf", "", { hasTouch: true })
        yield* Effect.promise(async () => {
          await tab.locator("docstack-viewer [data-action=organize]").tap()
          await cell(tab, 1).locator("img").waitFor()
          const cdp = await tab.context().newCDPSession(tab)
          const touch = (type: "touchStart" | "touchMove" | "touchEnd", x = 0, y = 0) =>
            cdp.send("Input.dispatchTouchEvent", { type, touchPoints: type === "touchEnd" ? [] : [{ x, y }] })
          const source = (await cell(tab, 3).boundingBox())!
          const target = (await cell(tab, 1).boundingBox())!
          const [fromX, fromY] = [source.x + source.width / 2, source.y + source.height / 2]
          const [toX, toY] = [target.x + target.width * 0.2, target.y + target.height / 2]
          await touch("touchStart", fromX, fromY)
          // Held still past the hold time, then moved: a drag, not a scroll.
          await tab.waitForTimeout(600)
          for (let step = 1; step <= 10; step++) {
            await touch("touchMove", fromX + ((toX - fromX) * step) / 10, fromY + ((toY - fromY) * step) / 10)
          }
          await tab.locator("docstack-organizer-grid .marker").waitFor()
          await touch("touchEnd")
          expect(await cell(tab, 1).getAttribute("aria-label")).toBe("Page 1: page 3 of tracemonkey.pdf")

          await tab.locator("docstack-page-organizer [data-action=organize-close]").tap()
          await tab.locator("docstack-page-organizer").waitFor({ state: "detached" })
          await tab.locator("docstack-viewer [data-action=organize]").tap()
          expect(await cell(tab, 1).getAttribute("aria-label")).toBe("Page 1: page 3 of tracemonkey.pdf")
          await press(tab, "reset")
          expect(await cell(tab, 1).getAttribute("aria-label")).toBe("Page 1: page 1 of tracemonkey.pdf")
        })
      })
    ))
})
