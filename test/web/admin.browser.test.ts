/**
 * The broker's /admin page in real headless Chromium: upload, thumbnails, a large page, search, delete;
 * orders (a page extraction, a comparison) listed, opened and deleted.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { brokerTestLayer, BrokerUrl } from "../../src/layers/Test.ts"
import { CORPUS, defaultBackend } from "../support/backends.ts"
import { browser } from "../support/browser.ts"

/** Opens /admin in a new tab and uploads a corpus file through its form. */
const uploadInAdmin = async (tab: Page, base: string, corpusFile: string) => {
  await tab.goto(`${base}/admin`)
  await tab.setInputFiles("#file", `${CORPUS}${corpusFile}`)
  await tab.click("#upload")
}

/** Runs `body` in a new tab of the test's Chromium, given the broker's base URL. */
const inAdminTab = (body: (tab: Page, base: string) => Promise<void>) =>
  Effect.gen(function*() {
    const base = yield* BrokerUrl
    const chrome = yield* browser
    yield* Effect.promise(async () => body(await chrome.newPage(), base))
  })

const pageCountShown = (tab: Page, pages: number) =>
  tab.waitForFunction((n) => document.querySelectorAll("#pages figure").length === n, pages)

layer(brokerTestLayer(defaultBackend.config), { timeout: 120_000 })("admin page", (it) => {
  it.scoped("uploads a PDF, shows its pages, finds text and deletes it", () =>
    inAdminTab(async (tab, base) => {
      await uploadInAdmin(tab, base, "pdf/tracemonkey.pdf")
      await pageCountShown(tab, 14)
      expect(await tab.textContent("#status")).toMatch(/14 pages/)

      // The first thumbnail is a real image of the requested width.
      await tab.waitForFunction(() =>
        (document.querySelector("#pages figure img") as HTMLImageElement | null)?.complete
      )
      const width = await tab.evaluate(() =>
        (document.querySelector("#pages figure img") as HTMLImageElement).naturalWidth
      )
      expect(width).toBe(360)

      await tab.click("#pages figure:nth-child(2)")
      await tab.waitForFunction(() => (document.querySelector("#viewer img") as HTMLImageElement).naturalWidth === 1240)
      expect(await tab.isVisible("#viewer")).toBe(true)
      await tab.click("#viewer")

      await tab.fill("#search", "loop traces")
      await tab.click("#find")
      await tab.waitForFunction(() => document.querySelector("#status")?.textContent?.startsWith("Found"))
      expect(await tab.textContent("#status")).toBe("Found on 4 page(s): 1, 4, 7, 12")
      expect(await tab.locator("#pages figure.hit").count()).toBe(4)

      await tab.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? "/tmp"}/admin-page.png`, fullPage: false })

      await tab.click("#delete")
      await tab.waitForFunction(() => document.querySelector("#status")?.textContent?.startsWith("Deleted"))
      expect(await tab.locator("#pages figure").count()).toBe(0)

      // An unknown ID shows the broker's message, not a broken page.
      await tab.fill("#docId", "no-such-document")
      await tab.click("#open")
      await tab.waitForFunction(() => document.querySelector("#status")?.className === "error")
      expect(await tab.textContent("#status")).toContain("404: No document with ID 'no-such-document'")
    }))

  it.scoped("shows the parts of an email and opens the message body, converted, as pages", () =>
    inAdminTab(async (tab, base) => {
      await uploadInAdmin(tab, base, "office/fake-email-attachment.eml")
      await tab.waitForFunction(() => document.querySelectorAll("#pages a").length === 2)
      expect(await tab.textContent("#status")).toMatch(/composite document with 2 part\(s\)/)
      expect(await tab.locator("#pages a").allTextContents()).toEqual([
        "Fake email with attachment",
        "fake-attachment.txt"
      ])

      await tab.click("#pages a >> nth=0")
      await pageCountShown(tab, 1)
      await tab.waitForFunction(() =>
        (document.querySelector("#pages figure img") as HTMLImageElement | null)?.naturalWidth === 360
      )
      expect(await tab.inputValue("#docId")).toMatch(/\/0$/)
      await tab.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? "/tmp"}/admin-email.png`, fullPage: false })
    }))

  it.scoped("extracts pages and compares documents through orders, lists them and opens their results", () =>
    inAdminTab(async (tab, base) => {
      await uploadInAdmin(tab, base, "pdf/tracemonkey.pdf")
      await pageCountShown(tab, 14)
      const paper = await tab.inputValue("#docId")

      // Pages 3, 4 then 1 (as numbered under the thumbnails) as a new document.
      await tab.fill("#ranges", "3-4,1")
      await tab.click("#extract")
      const extraction = tab.locator("#transformations tr[data-order]").first()
      await extraction.locator("td.PROCESSED").waitFor()
      await extraction.locator("a").click()
      await tab.waitForFunction(
        (id) =>
          document.querySelector<HTMLInputElement>("#docId")!.value !== id &&
          document.querySelectorAll("#pages figure").length === 3,
        paper
      )
      const excerpt = await tab.inputValue("#docId")
      const pageText = async (id: string, page: number) =>
        (await (await fetch(`${base}/documents/${id}/pages/${page}/text/position`)).json()).positionTextList.map((
          t: { text: string }
        ) => t.text).join(" ")
      expect(await pageText(excerpt, 0)).toBe(await pageText(paper, 2))
      expect(await pageText(excerpt, 2)).toBe(await pageText(paper, 0))
      expect((await (await fetch(`${base}/documents/${excerpt}`)).json()).documentTitle).toBe(
        "Pages 3-4,1 of tracemonkey.pdf"
      )

      // The excerpt compared with the paper: the comparison's result document opens with its pages.
      await tab.fill("#compareWith", paper)
      await tab.click("#compare")
      const comparison = tab.locator("#comparisons tr[data-order]").first()
      await comparison.locator("td.PROCESSED").waitFor({ timeout: 60_000 })
      await comparison.locator("td:nth-child(3) a").click()
      await pageCountShown(tab, 14)
      await tab.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? "/tmp"}/admin-orders.png`, fullPage: true })

      // A bad range is refused in the page, saying why, as the pages are numbered under the
      // thumbnails (the open result has 14); then an order is deleted from its row.
      const refusal = async (ranges: string) => {
        await tab.fill("#ranges", ranges)
        await tab.click("#extract")
        return tab.textContent("#status")
      }
      expect(await refusal("x")).toContain("\"x\" is not a page")
      expect(await refusal("5-15")).toBe("\"5-15\": the document has pages 1 to 14")
      expect(await refusal("3-1")).toBe("\"3-1\": a range goes from its first page to its last (1-3)")
      expect(await refusal("")).toContain("Give the pages to extract")
      await comparison.locator("button").click()
      await tab.waitForFunction(() => document.querySelector("#comparisons td")?.textContent === "None")
      expect(await (await fetch(`${base}/comparisons`)).json()).toEqual([])
    }))
})
