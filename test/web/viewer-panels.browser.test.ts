/**
 * The viewer's side panels (thumbnails, bookmarks, parts) in real headless Chromium. The panels
 * are bundled with esbuild as the viewer is, and served with the few viewer servlets they call by a
 * fake on loopback: real PNGs (made with sharp) from imageServlet and a JSON outline from bookmarks.
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { build } from "esbuild"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser, Page } from "playwright-core"
import sharp from "sharp"
import { browser } from "../support/browser.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const SCREENSHOTS = process.env.SCREENSHOT_DIR ?? "/tmp"
const PAGE_COUNT = 20_000

/** The entry point of the test bundle: the three panels, and what a test page needs to feed them. */
const entry = `
import "./web/viewer/src/panels/ThumbnailsPanel.ts"
import "./web/viewer/src/panels/BookmarksPanel.ts"
import "./web/viewer/src/panels/PartsPanel.ts"
import { ViewerClient } from "./web/viewer/src/client/ViewerClient.ts"
import { ImageLoader } from "./web/viewer/src/pages/ImageLoader.ts"
import { translator } from "./web/viewer/src/i18n/messages.ts"
globalThis.docstack = { ViewerClient, ImageLoader, translator }
`

const testPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><style>
  body { margin: 0; padding: 8px; font: 14px/1.3 system-ui, sans-serif; background: #fff; }
  .frame { display: inline-block; vertical-align: top; width: 220px; height: 560px; margin: 0 8px 8px 0;
    border: 1px solid #d4d4d8; }
</style></head><body><script type="module" src="/panels.js"></script></body></html>`

const bookmark = (title: string, pageNumber: number | null, top: number | null, children: Array<unknown> = []) => ({
  title,
  pageNumber,
  top,
  children
})

const outline = [
  bookmark("Introduction", 0, 72, [
    bookmark("Background", 1, 100, [bookmark("Details", 2, null)]),
    bookmark("Scope", 2, 300)
  ]),
  bookmark("Part heading", null, null, [bookmark("Chapter 1", 3, 0)]),
  bookmark("Appendix", 9, null)
]

const PREFIX = "com.docstack.viewer.client.api.document."
const part = (id: string, documentTitle: string | null, mimeType: string) => ({
  type: `${PREFIX}DocumentReference`,
  documentId: { id },
  documentTitle,
  mimeType
})
const container = {
  type: `${PREFIX}DocumentContainer`,
  documentId: { id: "mail" },
  documentTitle: "Quarterly report.eml",
  mimeType: "message/rfc822",
  children: [
    part("mail/0", "Quarterly report", "message/rfc822"),
    {
      type: `${PREFIX}DocumentContainer`,
      documentId: { id: "mail/1" },
      documentTitle: "attachments.zip",
      mimeType: "application/zip",
      children: [
        part("mail/1/0", "report.pdf", "application/pdf"),
        part("mail/1/1", "photo.jpg", "image/jpeg"),
        part("mail/1/2", null, "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
      ]
    },
    part("mail/2", "notes.bin", "application/octet-stream")
  ]
}

/** The thumbnails test's one landscape page (0-based); the others are letter pages. */
const LANDSCAPE_PAGE = 2

/** A page image `width` pixels wide: a page with a heading, lines of "text" and its number. */
const pagePng = (pageIndex: number, width: number) => {
  const [w, h] = pageIndex === LANDSCAPE_PAGE ? [792, 612] : [612, 792]
  const lines = Array.from(
    { length: Math.floor((h - 300) / 34) },
    (_, line) =>
      `<rect x="72" y="${170 + line * 34}" width="${line % 4 === 3 ? w / 2 : w - 144}" height="12" fill="#9ca3af"/>`
  )
    .join("")
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${Math.round((width * h) / w)}"
    viewBox="0 0 ${w} ${h}"><rect width="${w}" height="${h}" fill="#fff"/>
    <rect x="72" y="72" width="320" height="40" fill="#1f2328"/>${lines}
    <text x="${w / 2}" y="${h - 72}" font-size="110" font-family="sans-serif" text-anchor="middle" fill="#0b62d6">${
    pageIndex + 1
  }</text></svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}

interface ImageCall {
  readonly page: number
  readonly width: number
}

class PanelPage extends Context.Tag("test/PanelPage")<PanelPage, {
  readonly url: string
  readonly chrome: Browser
  /** Every imageServlet call, in order. */
  readonly images: Array<ImageCall>
}>() {}

const panelPageLayer = Layer.scoped(
  PanelPage,
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.promise(() => mkdtemp(join(tmpdir(), "docstack-panels-"))),
      (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
    )
    yield* Effect.promise(() =>
      build({
        stdin: { contents: entry, resolveDir: ROOT, loader: "ts", sourcefile: "panels-test-entry.ts" },
        outfile: join(dir, "panels.js"),
        bundle: true,
        format: "esm",
        target: ["chrome120"],
        logLevel: "warning"
      })
    )
    const script = yield* Effect.promise(() => readFile(join(dir, "panels.js")))
    const images: Array<ImageCall> = []
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://localhost")
      const send = (status: number, type: string, body: string | Buffer) => {
        response.writeHead(status, { "content-type": type, "cache-control": "no-store" })
        response.end(body)
      }
      switch (url.pathname) {
        case "/":
          return send(200, "text/html; charset=utf-8", testPage)
        case "/panels.js":
          return send(200, "text/javascript", script)
        case "/viewergwt/imageServlet": {
          const call = {
            page: Number(url.searchParams.get("pagePosition")),
            width: Number(url.searchParams.get("desc"))
          }
          images.push(call)
          return void pagePng(call.page, call.width).then((png) => send(200, "image/png", png))
        }
        case "/viewergwt/bookmarks": {
          const uuid = url.searchParams.get("uuid")
          if (uuid === "broken") {
            return send(
              404,
              "application/json",
              JSON.stringify({ _tag: "DocumentNotFound", message: "No document with ID 'broken'" })
            )
          }
          return send(200, "application/json", JSON.stringify({ bookmarks: uuid === "empty" ? [] : outline }))
        }
        default:
          return send(404, "text/plain", "Not found")
      }
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const { port } = server.address() as AddressInfo
    const chrome = yield* browser
    return { url: `http://127.0.0.1:${port}/`, chrome, images }
  })
)

/** A new tab on the test page, its panels defined, recording the panels' events in `window.events`. */
const testTab = (body: (tab: Page, images: Array<ImageCall>) => Promise<void>) =>
  Effect.gen(function*() {
    const { chrome, images, url } = yield* PanelPage
    const tab = yield* Effect.acquireRelease(
      Effect.promise(() => chrome.newPage({ viewport: { width: 760, height: 600 } })),
      (tab) => Effect.promise(() => tab.close())
    )
    yield* Effect.promise(async () => {
      await tab.goto(url)
      await tab.waitForFunction(() => customElements.get("docstack-parts") !== undefined)
      await tab.evaluate(() => {
        const events: Array<unknown> = []
        ;(window as any).events = events
        for (const type of ["navigate", "open-part"]) {
          document.addEventListener(type, (event) => events.push({ type, detail: (event as CustomEvent).detail }))
        }
      })
      await body(tab, images)
    })
  })

const events = (tab: Page) => tab.evaluate(() => (window as any).events as Array<{ type: string; detail: unknown }>)

/** The text of the element holding the focus inside the panel's shadow root. */
const focusedText = (tab: Page, panel: string) =>
  tab.evaluate((name) => document.querySelector(name)!.shadowRoot!.activeElement?.textContent?.trim(), panel)

layer(panelPageLayer, { timeout: 120_000 })("viewer side panels", (it) => {
  it.scoped("thumbnails: a 20,000-page list keeps a few nodes, scrolls, follows the page and navigates", () =>
    testTab(async (tab, images) => {
      await tab.evaluate(({ count, landscapePage }) => {
        const { ViewerClient, ImageLoader, translator } = (window as any).docstack
        const client = new ViewerClient("/viewergwt/")
        const frame = Object.assign(document.createElement("div"), { className: "frame" })
        const panel = document.createElement("docstack-thumbnails")
        const portrait = { width: 612, height: 792, rotation: 0, dpi: 72 }
        const landscape = { width: 792, height: 612, rotation: 0, dpi: 72 }
        Object.assign(panel, {
          t: translator("en"),
          pages: { client, loader: new ImageLoader(client), uuid: "doc", locale: "en", text: new Map() },
          dimensions: Array.from({ length: count }, (_, index) => index === landscapePage ? landscape : portrait),
          rotations: new Map([[1, 90]]),
          current: 0
        })
        frame.append(panel)
        document.body.append(frame)
      }, { count: PAGE_COUNT, landscapePage: LANDSCAPE_PAGE })
      const panel = tab.locator("docstack-thumbnails")
      const imagesShown = (minimum: number) =>
        tab.waitForFunction((minimum) => {
          const shown = Array.from(document.querySelector("docstack-thumbnails")!.shadowRoot!.querySelectorAll("img"))
          return shown.length >= minimum && shown.every((img) => img.complete && img.naturalWidth > 0)
        }, minimum)
      await imagesShown(3)
      const nodes = () => panel.locator("button.thumb").count()
      expect(await nodes()).toBeGreaterThan(2)
      expect(await nodes()).toBeLessThan(100)
      // The scroll bar covers every page from the start: 20,000 slots of at least a landscape page.
      expect(await panel.evaluate((element) => element.scrollHeight)).toBeGreaterThan(PAGE_COUNT * 130)
      expect(await panel.locator("button[aria-current=page]").getAttribute("data-index")).toBe("0")
      expect(await panel.locator("button.thumb").first().getAttribute("aria-label")).toBe("Page 1")
      // 120 CSS px at a device pixel ratio of 1, rounded up to the broker's step of 64.
      expect(new Set(images.map((call) => call.width))).toEqual(new Set([128]))
      await tab.locator(".frame").screenshot({ path: `${SCREENSHOTS}/panels-thumbnails.png` })

      // Half way down: higher page numbers, still a handful of nodes, only nearby images fetched.
      await panel.evaluate((element) => element.scrollTop = element.scrollHeight / 2)
      await tab.waitForFunction(() =>
        Array.from(document.querySelector("docstack-thumbnails")!.shadowRoot!.querySelectorAll(".number"))
          .some((number) => Number(number.textContent) > 9000)
      )
      await imagesShown(3)
      const numbers = (await panel.locator(".number").allTextContents()).map(Number).filter((n) => n !== 1)
      expect(Math.min(...numbers)).toBeGreaterThan(9000)
      expect(await nodes()).toBeLessThan(100)
      expect(images.length).toBeLessThan(100)

      // A click on a thumbnail in view asks to go to its page; arrows move the one tab stop.
      const inView = await panel.evaluate((element) => {
        const box = element.getBoundingClientRect()
        const buttons = Array.from(element.shadowRoot!.querySelectorAll<HTMLElement>("button.thumb"))
        return buttons.find((button) => button.getBoundingClientRect().top >= box.top)!.dataset.index!
      })
      await panel.locator(`button.thumb[data-index="${inView}"]`).click()
      expect(await events(tab)).toEqual([{ type: "navigate", detail: { index: Number(inView) } }])
      await tab.keyboard.press("ArrowDown")
      await tab.keyboard.press("ArrowDown")
      const next = String(Number(inView) + 2)
      expect(await focusedText(tab, "docstack-thumbnails")).toBe(String(Number(next) + 1))
      expect(await panel.locator("button[tabindex='0']").getAttribute("data-index")).toBe(next)
      await tab.keyboard.press("Enter")
      expect((await events(tab)).at(-1)).toEqual({ type: "navigate", detail: { index: Number(next) } })

      // The page shown changes (the reader scrolled the pages): its thumbnail is marked and in view.
      await panel.evaluate((element) => (element as any).current = 42)
      const current = panel.locator("button[aria-current=page]")
      await current.waitFor()
      expect(await current.getAttribute("data-index")).toBe("42")
      expect(
        await panel.evaluate((element) => {
          const box = element.getBoundingClientRect()
          const thumb = element.shadowRoot!.querySelector("button[aria-current=page]")!.getBoundingClientRect()
          return thumb.top >= box.top && thumb.bottom <= box.bottom
        })
      ).toBe(true)
    }))

  it.scoped("bookmarks: a nested outline, opened and walked with the keyboard, navigates", () =>
    testTab(async (tab) => {
      await tab.evaluate(() => {
        const { ViewerClient, translator } = (window as any).docstack
        const frame = Object.assign(document.createElement("div"), { className: "frame" })
        const panel = document.createElement("docstack-bookmarks")
        Object.assign(panel, { t: translator("en"), client: new ViewerClient("/viewergwt/"), uuid: "doc" })
        frame.append(panel)
        document.body.append(frame)
      })
      const panel = tab.locator("docstack-bookmarks")
      const items = panel.locator("[role=treeitem]")
      const labels = () => items.allTextContents().then((texts) => texts.map((text) => text.trim()))
      await items.first().waitFor()
      // The top level is open, deeper levels closed.
      expect(await labels()).toEqual(["Introduction", "Background", "Scope", "Part heading", "Chapter 1", "Appendix"])
      const background = items.filter({ hasText: "Background" })
      expect(await background.getAttribute("aria-level")).toBe("2")
      expect(await background.getAttribute("aria-expanded")).toBe("false")
      expect(await panel.locator("[tabindex='0']").count()).toBe(1)

      await items.first().focus()
      await tab.keyboard.press("ArrowDown")
      expect(await focusedText(tab, "docstack-bookmarks")).toBe("Background")
      await tab.keyboard.press("ArrowRight")
      expect(await background.getAttribute("aria-expanded")).toBe("true")
      expect(await items.filter({ hasText: "Details" }).getAttribute("aria-level")).toBe("3")
      await tab.keyboard.press("ArrowRight")
      expect(await focusedText(tab, "docstack-bookmarks")).toBe("Details")
      await tab.locator(".frame").screenshot({ path: `${SCREENSHOTS}/panels-bookmarks.png` })
      await tab.keyboard.press("Enter")
      expect(await events(tab)).toEqual([{ type: "navigate", detail: { index: 2, top: null } }])
      await tab.keyboard.press("ArrowLeft")
      expect(await focusedText(tab, "docstack-bookmarks")).toBe("Background")
      await tab.keyboard.press("ArrowLeft")
      expect(await background.getAttribute("aria-expanded")).toBe("false")
      expect(await labels()).not.toContain("Details")

      await items.filter({ hasText: "Introduction" }).click()
      expect((await events(tab)).at(-1)).toEqual({ type: "navigate", detail: { index: 0, top: 72 } })
      // A heading without a page goes nowhere; choosing it folds what is under it.
      await items.filter({ hasText: "Part heading" }).click()
      expect(await events(tab)).toHaveLength(2)
      expect(await labels()).not.toContain("Chapter 1")

      await panel.evaluate((element) => (element as any).uuid = "broken")
      await panel.locator("[role=alert]").waitFor()
      expect(await panel.locator("[role=alert]").textContent()).toBe(
        "The bookmarks could not be read: No document with ID 'broken'"
      )
      await panel.evaluate((element) => (element as any).uuid = "empty")
      await panel.getByText("This document has no bookmarks.").waitFor()
    }))

  it.scoped("parts: a tree of folders and documents opens a part", () =>
    testTab(async (tab) => {
      await tab.evaluate((root) => {
        const { translator } = (window as any).docstack
        const frame = Object.assign(document.createElement("div"), { className: "frame" })
        const panel = document.createElement("docstack-parts")
        Object.assign(panel, { t: translator("en"), root, openId: "mail/1/0" })
        frame.append(panel)
        document.body.append(frame)
      }, container)
      const panel = tab.locator("docstack-parts")
      const items = panel.locator("[role=treeitem]")
      await items.first().waitFor()
      expect(await items.locator(".label").allTextContents()).toEqual([
        "Quarterly report",
        "attachments.zip",
        "report.pdf",
        "photo.jpg",
        "mail/1/2",
        "notes.bin"
      ])
      expect(await items.locator(".icon").evaluateAll((icons) => icons.map((icon) => icon.getAttribute("data-kind"))))
        .toEqual([
          "email",
          "folder",
          "pdf",
          "image",
          "office",
          "other"
        ])
      expect(await panel.locator("[aria-current]").textContent()).toContain("report.pdf")
      // The part shown holds the tab stop, so Tab lands on it.
      expect(await panel.locator("[tabindex='0']").textContent()).toContain("report.pdf")
      await tab.locator(".frame").screenshot({ path: `${SCREENSHOTS}/panels-parts.png` })

      await items.filter({ hasText: "photo.jpg" }).click()
      expect(await events(tab)).toEqual([{ type: "open-part", detail: { id: "mail/1/1", title: "photo.jpg" } }])
      await tab.keyboard.press("ArrowDown")
      await tab.keyboard.press("Enter")
      expect((await events(tab)).at(-1)).toEqual({ type: "open-part", detail: { id: "mail/1/2", title: "mail/1/2" } })
      // Left from a document goes to its folder, Left again closes it.
      await tab.keyboard.press("ArrowLeft")
      expect(await focusedText(tab, "docstack-parts")).toContain("attachments.zip")
      await tab.keyboard.press("ArrowLeft")
      expect(await items.count()).toBe(3)
      await tab.keyboard.press("Enter")
      expect(await items.count()).toBe(6)
      expect(await events(tab)).toHaveLength(2)
    }))
})
