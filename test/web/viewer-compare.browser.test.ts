/**
 * Comparing two versions of a document in the browser viewer, in real headless Chromium against a
 * viewer and a broker on loopback (LibreOffice converting): the first chapter of War and Peace
 * from the corpus and a copy with words replaced, deleted and inserted; a corpus .docx and a copy
 * with two words replaced inside its XML, uploaded from the chooser on a phone-sized screen.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate"
import type { Page } from "playwright-core"
import sharp from "sharp"
import { corpusFile } from "../support/http.ts"
import { servlet, viewerAndBroker } from "../viewer/support.ts"
import { type Box, type Focused, installProbes } from "./viewer-compare-probes.ts"
import { contrastOf, events, openTab, pagePainted, SCREENSHOTS, uploaded, withViewerTab } from "./viewer-tab.ts"

type Side = "left" | "right"

interface Edit {
  readonly from: string
  readonly to: string
  /** The words taken out, as the left shows them; null for an insertion. */
  readonly left: string | null
  /** The words put in, as the right shows them; null for a deletion. */
  readonly right: string | null
}

/** The first chapter of War and Peace from the corpus: four pages once LibreOffice has set it. */
const chapterOne = () => {
  const text = corpusFile("office/book-war-and-peace-1225p.txt").toString("utf8")
  return text.slice(0, text.indexOf("CHAPTER II"))
}

/** What the revised chapter changes: a word replaced, one deleted and one inserted on the first pages, one replaced on the last. */
const CHAPTER_EDITS: ReadonlyArray<Edit> = [
  { from: "so Genoa and Lucca", to: "so Venice and Lucca", left: "Genoa", right: "Venice" },
  { from: "what a virulent attack", to: "what a attack", left: "virulent", right: null },
  { from: "know that profound thinker", to: "know that truly profound thinker", left: null, right: "truly" },
  { from: "married Lise Meinen lately", to: "married Lise Meinen recently", left: "lately", right: "recently" }
]

/** Two words of contains-pictures.docx replaced inside its XML, as a reviser would in Word. */
const DOCX_EDITS: ReadonlyArray<Edit> = [
  { from: "quis nostrud exercitation", to: "quis nostrum exercitation", left: "nostrud", right: "nostrum" },
  { from: "partially obscuring", to: "entirely obscuring", left: "partially", right: "entirely" }
]

const revise = (text: string, edits: ReadonlyArray<Edit>) =>
  edits.reduce((revised, edit) => {
    if (!revised.includes(edit.from)) throw new Error(`the text has no "${edit.from}"`)
    return revised.replace(edit.from, edit.to)
  }, text)

/** The .docx with its document part revised, zipped again. */
const revisedDocx = (file: string, edits: ReadonlyArray<Edit>) => {
  const parts = unzipSync(new Uint8Array(corpusFile(file)))
  parts["word/document.xml"] = strToU8(revise(strFromU8(parts["word/document.xml"]!), edits))
  return zipSync(parts)
}

const uploadedBytes = (name: string, bytes: Uint8Array | string) => {
  const form = new FormData()
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), name)
  return servlet("uploadServlet", { method: "POST", body: form }).pipe(
    Effect.map((reply) => {
      if (reply.status !== 200) throw new Error(`upload of ${name} failed with ${reply.status}: ${reply.text}`)
      return reply.text
    })
  )
}

/**
 * The highlight lies over the word: most of each one's width is the other's, on the same line. The
 * word's box is its part of the text layer's span, whose letters are stretched to the run: close to
 * the page's glyphs, not exact.
 */
const covers = (highlight: Box, word: Box) => {
  const across = Math.min(highlight.x + highlight.w, word.x + word.w) - Math.max(highlight.x, word.x)
  const middle = (box: Box) => box.y + box.h / 2
  return across >= 0.6 * Math.min(highlight.w, word.w) && across >= 0.4 * Math.max(highlight.w, word.w) &&
    Math.abs(middle(highlight) - middle(word)) < highlight.h / 2
}

const inside = (box: Box, frame: Box) =>
  box.x >= frame.x - 1 && box.y >= frame.y - 1 && box.x + box.w <= frame.x + frame.w + 1 &&
  box.y + box.h <= frame.y + frame.h + 1

/** How many pixels of a screenshot are clearly red. */
const redPixels = async (png: Buffer) => {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  let red = 0
  for (let i = 0; i < info.width * info.height * 3; i += 3) {
    if (data[i]! > 180 && data[i + 1]! < 110 && data[i + 2]! < 110) red++
  }
  return red
}

/** Asks `read` until `passes` holds, then answers what it read; fails with the last reading. */
const eventually = async <A>(read: () => Promise<A>, passes: (value: A) => boolean, timeout = 30_000) => {
  const until = Date.now() + timeout
  for (;;) {
    const value = await read()
    if (passes(value)) return value
    if (Date.now() > until) throw new Error(`still not there after ${timeout} ms: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
}

const countIs = (tab: Page, text: string) =>
  tab.waitForFunction((expected) => window.probe.count() === expected, text, { timeout: 90_000 })

const position = (tab: Page, side: Side) => tab.evaluate((name) => window.probe.position(name), side)

/**
 * The current change shown on each side that has words for it: one current highlight over them,
 * inside the side's view; a side without any shows the same page as the other. Answers the pages
 * (1-based) holding the words.
 */
const changeShown = (tab: Page, edit: Edit) =>
  eventually(
    () =>
      tab.evaluate(([left, right]) => {
        const side = (name: "left" | "right", word: string | null) => ({
          word: word === null ? null : window.probe.word(name, word),
          current: window.probe.highlights(name, true),
          viewport: window.probe.viewport(name),
          position: window.probe.position(name)
        })
        return { left: side("left", left), right: side("right", right) }
      }, [edit.left, edit.right] as const),
    (shown) =>
      (["left", "right"] as const).every((name) => {
        const { current, viewport, word } = shown[name]
        if (edit[name] === null) {
          return current.length === 0 &&
            shown[name].position?.page === shown[name === "left" ? "right" : "left"].position?.page
        }
        return word !== null && current.length === 1 &&
          covers(current[0]!, word) && inside(current[0]!, viewport) &&
          current[0]!.kind === (name === "left" ? "deleted" : "inserted")
      })
  ).then((shown) => ({ left: shown.left.word?.page ?? null, right: shown.right.word?.page ?? null }))

/** The viewer at the left document, its comparison view open (on the chooser at first), probes installed. */
const compareOpened = (tab: Page, shown = "docstack-compare-chooser") =>
  Effect.promise(async () => {
    await pagePainted(tab, 1)
    await installProbes(tab)
    // On a narrow screen the tool is in the "more" menu.
    const more = tab.locator("docstack-viewer [data-action=more]")
    if (await more.isVisible()) {
      await more.click()
      await tab.getByRole("menuitem", { name: "Compare with another document" }).click()
    } else {
      await tab.locator("docstack-viewer [data-action=compare]").first().click()
    }
    await tab.locator(shown).first().waitFor()
  })

/** Everything Tab reaches in the comparison, from the viewer's last tool before it. */
const tabStops = async (tab: Page) => {
  await tab.locator("docstack-viewer .toolbar [data-action=dark]").focus()
  const stops: Array<Focused> = []
  for (let press = 0; press < 40; press++) {
    await tab.keyboard.press("Tab")
    const focused = await tab.evaluate(() => window.probe.focused())
    if (focused === null || !focused.inCompare) break
    stops.push(focused)
  }
  return stops
}

/** Wheel turns over the middle of a side: the reader scrolling it. */
const wheelOver = async (tab: Page, side: Side, deltaY: number) => {
  const view = await tab.evaluate((name) => window.probe.viewport(name), side)
  await tab.mouse.move(view.x + view.w / 2, view.y + view.h / 2)
  await tab.mouse.wheel(0, deltaY)
}

layer(viewerAndBroker(), { timeout: 300_000 })("the browser viewer, comparing", (it) => {
  it.scoped(
    "two versions differing in known words: highlighted on both sides, listed, badged, next/previous reach each, scrolled together",
    () =>
      withViewerTab((chrome, base) =>
        Effect.gen(function*() {
          const original = chapterOne()
          const left = yield* uploadedBytes("chapter-one.txt", original)
          const right = yield* uploadedBytes("chapter-one-revised.txt", revise(original, CHAPTER_EDITS))
          const tab = yield* openTab(chrome, base, `?uuid=${left}`)
          yield* compareOpened(tab)
          yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/compare-chooser.png` }))

          // A viewer link pasted names the document; anything else is said to be neither.
          const field = tab.getByRole("textbox", { name: "Document ID or viewer link" })
          yield* Effect.promise(() => field.fill("not a document"))
          yield* Effect.promise(() => field.press("Enter"))
          expect(yield* Effect.promise(() => tab.getByRole("alert").textContent())).toContain("neither a document ID")
          // A document that does not exist: the side and the comparison say so, never a blank panel.
          yield* Effect.promise(() => field.fill("b64_nothing"))
          yield* Effect.promise(() => field.press("Enter"))
          yield* Effect.promise(() => countIs(tab, "Comparison failed"))
          const missing = tab.locator("docstack-compared-side[data-side=right] .message")
          expect(yield* Effect.promise(() => missing.textContent())).toContain("does not exist")
          expect(yield* Effect.promise(() => tab.locator("docstack-compare .panel-body").textContent())).toContain(
            "Revised document:"
          )
          yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/compare-failed.png` }))
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=choose-another]").click())
          yield* Effect.promise(() => field.fill(`${base}/?uuid=${right}&page=2`))
          yield* Effect.promise(() => field.press("Enter"))
          yield* Effect.promise(() => countIs(tab, "4 changes"))

          // The list: each change with its type, page and words.
          const options = tab.locator("docstack-change-list [role=option]")
          expect(yield* Effect.promise(() => options.count())).toBe(4)
          const listed = yield* Effect.promise(() => options.allTextContents())
          for (const [index, edit] of CHAPTER_EDITS.entries()) {
            for (const word of [edit.left, edit.right]) if (word !== null) expect(listed[index]).toContain(word)
          }
          expect(yield* Effect.promise(() => options.nth(1).getAttribute("aria-label"))).toBe(
            "Deleted, p. 1. Original text: virulent"
          )

          // n walks every change in order, each shown on both sides over its words; then it wraps.
          const pages: Record<Side, Set<number>> = { left: new Set(), right: new Set() }
          for (const [index, edit] of CHAPTER_EDITS.entries()) {
            yield* Effect.promise(() => tab.keyboard.press("n"))
            yield* Effect.promise(() => countIs(tab, `${index + 1} of 4 changes`))
            const shown = yield* Effect.promise(() => changeShown(tab, edit))
            if (shown.left !== null) pages.left.add(shown.left - 1)
            if (shown.right !== null) pages.right.add(shown.right - 1)
            if (index === 0) yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/compare-sides.png` }))
          }
          yield* Effect.promise(() => tab.keyboard.press("n"))
          yield* Effect.promise(() => countIs(tab, "1 of 4 changes"))
          yield* Effect.promise(() => changeShown(tab, CHAPTER_EDITS[0]!))
          yield* Effect.promise(() => tab.keyboard.press("p"))
          yield* Effect.promise(() => countIs(tab, "4 of 4 changes"))
          yield* Effect.promise(() => changeShown(tab, CHAPTER_EDITS[3]!))
          yield* Effect.promise(() => tab.keyboard.press("Shift+F7"))
          yield* Effect.promise(() => countIs(tab, "3 of 4 changes"))
          yield* Effect.promise(() => changeShown(tab, CHAPTER_EDITS[2]!))
          yield* Effect.promise(() => tab.keyboard.press("F7"))
          yield* Effect.promise(() => countIs(tab, "4 of 4 changes"))
          // The buttons do the same.
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=previous-change]").click())
          yield* Effect.promise(() => countIs(tab, "3 of 4 changes"))
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=next-change]").click())
          yield* Effect.promise(() => countIs(tab, "4 of 4 changes"))
          yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/compare-last-change.png` }))

          // A click in the list shows that change; arrows walk the list.
          yield* Effect.promise(() => options.nth(1).click())
          yield* Effect.promise(() => countIs(tab, "2 of 4 changes"))
          yield* Effect.promise(() => changeShown(tab, CHAPTER_EDITS[1]!))
          yield* Effect.promise(() => tab.keyboard.press("ArrowDown"))
          yield* Effect.promise(() => countIs(tab, "3 of 4 changes"))
          expect((yield* Effect.promise(() => tab.evaluate(() => window.probe.focused())))?.role).toBe("option")
          yield* Effect.promise(() => changeShown(tab, CHAPTER_EDITS[2]!))
          yield* Effect.promise(() => tab.keyboard.press("Home"))
          yield* Effect.promise(() => countIs(tab, "1 of 4 changes"))

          // The thumbnails of the pages holding changed words have badges, on each side.
          expect([...pages.left].sort()).toEqual([0, 3])
          expect([...pages.right].sort()).toEqual([0, 1, 3])
          yield* Effect.promise(() => tab.getByRole("tab", { name: "Thumbnails" }).click())
          const badges = () => tab.evaluate(() => window.probe.badges())
          yield* Effect.promise(() => eventually(badges, (shown) => shown.join() === [...pages.left].sort().join()))
          expect(
            yield* Effect.promise(() =>
              tab.locator("docstack-compare docstack-thumbnails button.thumb").first().getAttribute("aria-label")
            )
          ).toBe("Page 1 (changed)")
          yield* Effect.promise(() =>
            tab.locator("docstack-compare docstack-thumbnails img").first().evaluate((img: HTMLImageElement) =>
              img.decode()
            )
          )
          yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/compare-thumbnails.png` }))
          yield* Effect.promise(() => tab.locator("docstack-compare [data-thumbnails=right]").click())
          yield* Effect.promise(() => eventually(badges, (shown) => shown.join() === [...pages.right].sort().join()))

          // Scrolling one side scrolls the other to the same page and place; unlinked, it stays.
          const together = (leader: Side) =>
            eventually(
              () => Promise.all([position(tab, "left"), position(tab, "right")]),
              ([l, r]) => l !== null && r !== null && l.page === r.page && Math.abs(l.fraction - r.fraction) < 0.01
            ).then((both) => both[leader === "left" ? 1 : 0]!)
          const before = (yield* Effect.promise(() => position(tab, "right")))!
          yield* Effect.promise(() => wheelOver(tab, "left", 1500))
          // The wheel scrolls a frame later: the left side moves first, then the right follows.
          yield* Effect.promise(() =>
            eventually(() => position(tab, "left"), (left) => left !== null && left.scrollTop > before.scrollTop + 500)
          )
          const followed = yield* Effect.promise(() => together("left"))
          expect(followed.scrollTop).toBeGreaterThan(before.scrollTop + 500)
          yield* Effect.promise(() => wheelOver(tab, "right", -700))
          yield* Effect.promise(() => together("right"))
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=link]").click())
          const still = (yield* Effect.promise(() => position(tab, "right")))!
          yield* Effect.promise(() => wheelOver(tab, "left", 900))
          yield* Effect.promise(() => tab.waitForTimeout(400))
          expect((yield* Effect.promise(() => position(tab, "right")))!.scrollTop).toBe(still.scrollTop)
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=link]").click())
          yield* Effect.promise(() => together("left"))

          // One zoom for both sides.
          const zoomShown = () => tab.locator("docstack-compare [data-action=page-width]").textContent()
          const widthBefore = yield* Effect.promise(zoomShown)
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=zoomIn]").click())
          yield* Effect.promise(() => eventually(zoomShown, (shown) => shown !== widthBefore))
          const pageWidths = () =>
            tab.evaluate(() =>
              (["left", "right"] as const).map((name) =>
                document.querySelector("docstack-viewer")!.shadowRoot!.querySelector("docstack-compare")!.shadowRoot!
                  .querySelector(`docstack-compared-side[data-side=${name}] .page`)!.getBoundingClientRect().width
              )
            )
          const [leftWidth, rightWidth] = yield* Effect.promise(pageWidths)
          expect(leftWidth).toBeCloseTo(rightWidth!, 0)
          yield* Effect.promise(() => tab.keyboard.press("Control+0"))
          yield* Effect.promise(() => eventually(zoomShown, (shown) => shown === widthBefore))

          // Every control is reached by Tab, named, and shows where the focus is.
          const stops = yield* Effect.promise(() => tabStops(tab))
          const actions = stops.map((stop) => stop.action).filter((action) => action !== null)
          for (
            const action of [
              "compare-panel",
              "previous-change",
              "next-change",
              "zoomOut",
              "page-width",
              "zoomIn",
              "link",
              "swap",
              "choose-another",
              "image-comparison",
              "close-compare"
            ]
          ) expect(actions).toContain(action)
          expect(stops.filter((stop) => stop.role === "tab").length).toBe(2)
          expect(stops.filter((stop) => stop.role === "region").map((stop) => stop.label)).toEqual([
            "Original: chapter-one.txt",
            "Revised: chapter-one-revised.txt"
          ])
          for (const stop of stops) {
            expect(stop.label, JSON.stringify(stop)).not.toBe("")
            expect(stop.ring, JSON.stringify(stop)).toBe(true)
          }

          // Swapped, the revision is the original: what it put in, the other took out.
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=swap]").click())
          yield* Effect.promise(() => countIs(tab, "4 changes"))
          expect(yield* Effect.promise(() => tab.locator("docstack-compare .side.left .title").textContent())).toBe(
            "chapter-one-revised.txt"
          )
          yield* Effect.promise(() => tab.keyboard.press("F7"))
          yield* Effect.promise(() => changeShown(tab, { from: "", to: "", left: "Venice", right: "Genoa" }))
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=swap]").click())
          yield* Effect.promise(() => countIs(tab, "4 changes"))

          // Another document: the revision, opened in this browser a moment ago, is among the recent ones.
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=choose-another]").click())
          const recent = tab.getByRole("button", { name: "Compare with chapter-one-revised.txt" })
          yield* Effect.promise(() => recent.click())
          yield* Effect.promise(() => countIs(tab, "4 changes"))

          // The sides' own events stay inside: the page hears only of the document the viewer shows.
          const loaded = yield* Effect.promise(() => events(tab, "documentloaded"))
          expect(loaded.map((event) => event.detail.uuid)).toEqual([left])

          // The image comparison runs as an order with its progress, and its result opens, painted.
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=image-comparison]").click())
          yield* Effect.promise(() => tab.locator("docstack-viewer .order-dialog").waitFor())
          yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/compare-image-order.png` }))
          const result = yield* Effect.promise(() =>
            tab.waitForFunction(
              (first) => {
                const all = window.__viewerEvents
                const opened = all.findIndex((event) => event.name === "documentloaded" && event.detail.uuid !== first)
                return opened >= 0 &&
                  all.slice(opened).some((event) => event.name === "pagerendered" && event.detail.pageNumber === 1) &&
                  all[opened]!.detail
              },
              left,
              { timeout: 120_000 }
            ).then((handle) => handle.jsonValue())
          )
          expect(result.uuid).not.toBe(left)
          expect(yield* Effect.promise(() => tab.locator("docstack-compare").count())).toBe(0)
          const page1 = tab.locator("docstack-viewer .viewport .page[data-page-number='1']")
          const shot = yield* Effect.promise(() =>
            page1.screenshot({ path: `${SCREENSHOTS}/compare-image-result.png` })
          )
          // The broker's image comparison: the pages' common ink faded, what differs in red.
          expect(yield* Effect.promise(() => contrastOf(shot))).toBeGreaterThan(3)
          expect(yield* Effect.promise(() => redPixels(shot))).toBeGreaterThan(100)
        })
      ),
    // Two conversions, two comparisons, an image comparison and the walk through every control.
    240_000
  )

  it.scoped(
    "a .docx revised inside its XML, uploaded from the chooser on a 360 px screen: the sides stack and work",
    () =>
      withViewerTab((chrome, base) =>
        Effect.gen(function*() {
          const file = "office/contains-pictures.docx"
          const left = yield* uploaded(file)
          const tab = yield* openTab(chrome, base, `?uuid=${left}`, { width: 360, height: 740 })
          yield* compareOpened(tab)
          yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/compare-narrow-chooser.png` }))
          yield* Effect.promise(() =>
            tab.locator("docstack-compare-chooser input[type=file]").setInputFiles({
              name: "contains-pictures-revised.docx",
              mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
              buffer: Buffer.from(revisedDocx(file, DOCX_EDITS))
            })
          )
          yield* Effect.promise(() => countIs(tab, "2 changes"))

          // Stacked: the original above the revision, each as wide as the screen.
          const [top, bottom] = yield* Effect.promise(() =>
            tab.evaluate(() => [window.probe.viewport("left"), window.probe.viewport("right")])
          )
          expect(top!.y + top!.h).toBeLessThanOrEqual(bottom!.y)
          expect(top!.w).toBeGreaterThan(330)

          for (const [index, edit] of DOCX_EDITS.entries()) {
            yield* Effect.promise(() => tab.keyboard.press("n"))
            yield* Effect.promise(() => countIs(tab, `${index + 1} of 2 changes`))
            yield* Effect.promise(() => changeShown(tab, edit))
          }
          yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/compare-narrow.png` }))

          // The list floats over the pages and closes once a change is chosen in it.
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=compare-panel]").click())
          yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/compare-narrow-list.png` }))
          yield* Effect.promise(() => tab.locator("docstack-change-list [role=option]").first().click())
          yield* Effect.promise(() => countIs(tab, "1 of 2 changes"))
          expect(yield* Effect.promise(() => tab.locator("docstack-compare .panel").count())).toBe(0)
          yield* Effect.promise(() => changeShown(tab, DOCX_EDITS[0]!))

          // Closed and opened again, the comparison comes back to the same two documents.
          yield* Effect.promise(() => tab.locator("docstack-compare [data-action=close-compare]").click())
          expect(yield* Effect.promise(() => tab.locator("docstack-compare").count())).toBe(0)
          yield* compareOpened(tab, "docstack-compared-side")
          yield* Effect.promise(() => countIs(tab, "2 changes"))
          yield* Effect.promise(() =>
            tab.evaluate(() => document.querySelector("docstack-viewer")!.setAttribute("theme", "dark"))
          )
          yield* Effect.promise(() => tab.keyboard.press("F7"))
          yield* Effect.promise(() => changeShown(tab, DOCX_EDITS[0]!))
          yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/compare-narrow-dark.png` }))
        })
      ),
    120_000
  )
})
