/**
 * The browser section's measurements in headless Chromium (Debian's, driven by playwright-core,
 * launched as test/support/browser.ts launches it). Each measurement opens one viewer page in a
 * fresh browser context (empty cache and storage) with the probe (probe.ts) installed before any
 * page script, acts through the probe and closes the context. Times come from the page's own
 * clock, performance.now(), whose origin is the navigation's start.
 */
import { buildSync } from "esbuild"
import { fileURLToPath } from "node:url"
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from "playwright-core"
import { CHROMIUM_LAUNCH } from "../../../test/support/browser.ts"
import type { Paint, Probe, ScrollResult } from "./probe.ts"

export const VIEWPORT = { width: 1280, height: 720 } as const

/** Up to the viewer's page count, and the first page painted: a large document's layout may take a while. */
const READY_TIMEOUT_MS = 120_000
const PAINT_TIMEOUT_MS = 60_000
/** After a full scroll: a viewer that paints what it shows does so within seconds. */
const LAST_PAGE_TIMEOUT_MS = 20_000

export interface FirstPaint {
  readonly pageCount: number
  /** Navigation start → page 1 painted. */
  readonly firstPaintMs: number
  /** Page 1's width as painted: the event's width for ours (its image's pixels), the page's CSS width for pdf.js. */
  readonly width: number
}

export interface NavigationRun extends FirstPaint {
  /** goToPage → that page painted, once the first pages are painted and the viewer is quiet. */
  readonly jumpMs: number | null
}

export interface ScrollRun extends FirstPaint, ScrollResult {}

export interface HeapRun {
  /** Going to each page in turn and waiting for it to be painted. */
  readonly readMs: number
  /** V8 heap in use after a garbage collection (Runtime.getHeapUsage usedSize), the page's and its workers'. */
  readonly pageHeapBytes: number
  readonly workerHeapBytes: number
  readonly workers: number
  /** ArrayBuffer backing stores (outside the V8 heap), page and workers. */
  readonly arrayBufferBytes: number
  /** Blink's own heap of the page (DOM, canvases' wrappers: embedderHeapUsedSize). */
  readonly blinkHeapBytes: number
}

/** The probe as a script: bundled once, installed in every page before the page's own scripts. */
const probeScript = () =>
  buildSync({
    entryPoints: [fileURLToPath(new URL("probe.ts", import.meta.url))],
    bundle: true,
    format: "iife",
    target: "es2022",
    write: false
  }).outputFiles[0]!.text

type InPage = Window & { readonly __bench: Probe }

export interface BrowserHarness {
  readonly version: string
  navigation(url: string, jumpTo: number | null): Promise<NavigationRun>
  scroll(url: string, maxSteps: number): Promise<ScrollRun>
  heap(url: string): Promise<HeapRun>
  close(): Promise<void>
}

interface HeapUsage {
  readonly usedSize: number
  readonly embedderHeapUsedSize: number
  readonly backingStorageSize: number
}

/**
 * A dedicated worker's heap after a collection, through a browser-level session attached to the
 * worker's target (playwright gives CDP sessions for pages only; messages go through
 * Target.sendMessageToTarget).
 */
const workerHeap = async (browserSession: CDPSession, targetId: string): Promise<HeapUsage> => {
  const { sessionId } = await browserSession.send("Target.attachToTarget", { targetId, flatten: false })
  const answers = new Map<number, (result: unknown) => void>()
  const onMessage = (event: { sessionId: string; message: string }) => {
    if (event.sessionId !== sessionId) return
    const message = JSON.parse(event.message) as { id?: number; result?: unknown }
    if (message.id !== undefined) answers.get(message.id)?.(message.result)
  }
  browserSession.on("Target.receivedMessageFromTarget", onMessage)
  let lastId = 0
  const send = (method: string) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++lastId
      answers.set(id, resolve)
      browserSession.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method }) })
        .catch(reject)
    })
  try {
    await send("HeapProfiler.collectGarbage")
    return (await send("Runtime.getHeapUsage")) as HeapUsage
  } finally {
    browserSession.off("Target.receivedMessageFromTarget", onMessage)
    await browserSession.send("Target.detachFromTarget", { sessionId }).catch(() => undefined)
  }
}

export const launchBrowser = async (): Promise<BrowserHarness> => {
  const browser: Browser = await chromium.launch(CHROMIUM_LAUNCH)
  const probe = probeScript()

  /** Opens `url` in a fresh context, waits for the viewer and page 1 painted, runs `act`, closes the context. */
  const withPage = async <A>(
    url: string,
    act: (page: Page, first: FirstPaint, context: BrowserContext) => Promise<A>
  ): Promise<A> => {
    const context = await browser.newContext({ viewport: VIEWPORT })
    const problems: Array<string> = []
    try {
      await context.addInitScript({ content: probe })
      const page = await context.newPage()
      page.on("pageerror", (error) => problems.push(error.message))
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text())
      })
      await page.goto(url, { waitUntil: "commit" })
      const pageCount = await page.evaluate((ms) => (window as unknown as InPage).__bench.ready(ms), READY_TIMEOUT_MS)
      const paint: Paint = await page.evaluate(
        (ms) => (window as unknown as InPage).__bench.waitPainted(1, 0, ms),
        PAINT_TIMEOUT_MS
      )
      return await act(page, { pageCount, firstPaintMs: paint.at, width: paint.width }, context)
    } catch (error) {
      const said = problems.length > 0 ? ` (the page said: ${problems.slice(0, 3).join(" | ")})` : ""
      throw new Error(`${url}: ${error instanceof Error ? error.message : String(error)}${said}`)
    } finally {
      await context.close()
    }
  }

  return {
    version: browser.version(),
    navigation: (url, jumpTo) =>
      withPage(url, async (page, first) => {
        if (jumpTo === null) return { ...first, jumpMs: null }
        // A reader jumps once the first pages are there, not while the viewer is still painting them.
        await page.evaluate(() => (window as unknown as InPage).__bench.settle(500, 10_000))
        const jumpMs = await page.evaluate(
          ([to, ms]) => (window as unknown as InPage).__bench.jump(to, ms),
          [jumpTo, PAINT_TIMEOUT_MS] as const
        )
        return { ...first, jumpMs }
      }),
    scroll: (url, maxSteps) =>
      withPage(url, async (page, first) => {
        await page.evaluate(() => (window as unknown as InPage).__bench.settle(500, 10_000))
        const scrolled = await page.evaluate(
          ([steps, ms]) => (window as unknown as InPage).__bench.fullScroll(steps, ms),
          [maxSteps, LAST_PAGE_TIMEOUT_MS] as const
        )
        return { ...first, ...scrolled }
      }),
    heap: (url) =>
      withPage(url, async (page, _first, context) => {
        const readMs = await page.evaluate(
          (ms) => (window as unknown as InPage).__bench.readAll(ms),
          PAINT_TIMEOUT_MS
        )
        const session = await context.newCDPSession(page)
        const { targetInfo } = await session.send("Target.getTargetInfo")
        const { targetInfos } = await session.send("Target.getTargets")
        const workerTargets = targetInfos.filter((t) =>
          t.type === "worker" && t.browserContextId === targetInfo.browserContextId
        )
        const browserSession = await browser.newBrowserCDPSession()
        try {
          const workers: Array<HeapUsage> = []
          for (const target of workerTargets) workers.push(await workerHeap(browserSession, target.targetId))
          await session.send("HeapProfiler.collectGarbage")
          const own = (await session.send("Runtime.getHeapUsage")) as HeapUsage
          const sum = (of: (usage: HeapUsage) => number) => workers.reduce((total, w) => total + of(w), 0)
          return {
            readMs,
            pageHeapBytes: own.usedSize,
            workerHeapBytes: sum((w) => w.usedSize),
            workers: workers.length,
            arrayBufferBytes: own.backingStorageSize + sum((w) => w.backingStorageSize),
            blinkHeapBytes: own.embedderHeapUsedSize
          }
        } finally {
          await browserSession.detach()
        }
      }),
    close: () => browser.close()
  }
}
