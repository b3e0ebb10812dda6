/**
 * The browser viewer in a tab of real headless Chromium, opened at `{viewer}/?uuid=…` against a
 * viewer and broker on loopback: what a reader's browser does, with the element's events recorded
 * from before the page loads.
 */
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import sharp from "sharp"
import { buildWeb } from "../../scripts/build-web.mjs"
import { ViewerUrl } from "../../src/layers/Test.ts"
import { browser } from "../support/browser.ts"
import { corpusFile } from "../support/http.ts"
import { servlet } from "../viewer/support.ts"

export const SCREENSHOTS = process.env.SCREENSHOT_DIR ?? "/tmp"

/** The bundle as the viewer serves it, built when web/ changed (setup does the same). */
export const builtBundle = Effect.promise(() => buildWeb())

export interface ViewerEvent {
  readonly name: string
  readonly detail: any
  readonly at: number
}

declare global {
  interface Window {
    __viewerEvents: Array<ViewerEvent>
  }
}

/** Records the element's events on `window.__viewerEvents`, from the first one. */
const recordEvents = () => {
  window.__viewerEvents = []
  for (
    const name of [
      "documentloaded",
      "pagechange",
      "pagerendered",
      "zoomchange",
      "searchresults",
      "error",
      "annotationchange",
      "documentcreated"
    ]
  ) {
    document.addEventListener(name, (event) => {
      window.__viewerEvents.push({ name, detail: (event as CustomEvent).detail, at: performance.now() })
    }, true)
  }
}

export interface TabOptions {
  readonly width?: number
  readonly height?: number
  readonly acceptDownloads?: boolean
  /** A touch screen (pinch, taps) rather than a mouse. */
  readonly hasTouch?: boolean
}

/** A corpus file uploaded through the viewer's uploadServlet, named as on disk; answers its ID. */
export const uploaded = (file: string) => {
  const form = new FormData()
  form.append("file", new Blob([corpusFile(file) as Uint8Array<ArrayBuffer>]), file.split("/").pop()!)
  return servlet("uploadServlet", { method: "POST", body: form }).pipe(
    Effect.map((reply) => {
      if (reply.status !== 200) throw new Error(`upload of ${file} failed with ${reply.status}: ${reply.text}`)
      return reply.text
    })
  )
}

/** A new tab at `{viewer}/{query}` (e.g. `?uuid=…`), with its events recorded. */
export const openTab = (chrome: Browser, base: string, query: string, options: TabOptions = {}) =>
  Effect.promise(async () => {
    const context = await chrome.newContext({
      viewport: { width: options.width ?? 1200, height: options.height ?? 800 },
      acceptDownloads: options.acceptDownloads ?? false,
      hasTouch: options.hasTouch ?? false
    })
    const tab = await context.newPage()
    await tab.addInitScript(recordEvents)
    await tab.goto(`${base}/${query}`)
    return tab
  })

/** Runs `body` with Chromium and the viewer's URL, in the test's scope. */
export const withViewerTab = <A, R>(body: (chrome: Browser, base: string) => Effect.Effect<A, never, R>) =>
  Effect.gen(function*() {
    yield* builtBundle
    const base = yield* ViewerUrl
    const chrome = yield* browser
    return yield* body(chrome, base)
  })

/** Waits for an event of the element whose detail passes `test` (given as a source string). */
export const waitForEvent = (tab: Page, name: string, test = "true", timeout = 60_000) =>
  tab.waitForFunction(
    ([eventName, testSource]) => {
      const passes = new Function("detail", `return (${testSource})`) as (detail: unknown) => boolean
      return window.__viewerEvents.find((event) => event.name === eventName && passes(event.detail)) ?? false
    },
    [name, test] as const,
    { timeout }
  ).then((handle) => handle.jsonValue() as Promise<ViewerEvent>)

export const events = (tab: Page, name: string) =>
  tab.evaluate((eventName) => window.__viewerEvents.filter((event) => event.name === eventName), name)

/** A corpus file uploaded and opened in a new tab (`query` added to `?uuid=…`), page 1 painted. */
export const openedDocument = (chrome: Browser, base: string, file: string, query = "", options: TabOptions = {}) =>
  Effect.gen(function*() {
    const id = yield* uploaded(file)
    const tab = yield* openTab(chrome, base, `?uuid=${id}${query}`, options)
    yield* Effect.promise(() => pagePainted(tab, 1))
    return { id, tab }
  })

/** Page N is painted: its `pagerendered` event came. */
export const pagePainted = (tab: Page, pageNumber: number) =>
  waitForEvent(tab, "pagerendered", `detail.pageNumber === ${pageNumber}`)

/** The page number the toolbar shows. */
export const shownPageNumber = (tab: Page) => tab.locator("docstack-viewer .page-number").inputValue()

/**
 * How much a screenshot varies: the standard deviation of its grey levels. A blank or one-colour
 * area is near 0; a page of text is well above 20.
 */
export const contrastOf = async (png: Buffer) => {
  const stats = await sharp(png).greyscale().stats()
  return stats.channels[0]!.stdev
}
