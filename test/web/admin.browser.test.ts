/**
 * The broker's /admin page in real headless Chromium: upload, thumbnails, a large page, search, delete.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BrokerUrl, brokerTestLayer } from "../../src/layers/Test.ts"
import { CORPUS, defaultBackend } from "../support/backends.ts"
import { browser } from "../support/browser.ts"

layer(brokerTestLayer(defaultBackend.config), { timeout: 120_000 })("admin page", (it) => {
  it.scoped("uploads a PDF, shows its pages, finds text and deletes it", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const chrome = yield* browser
      yield* Effect.promise(async () => {
        const tab = await chrome.newPage()
        await tab.goto(`${base}/admin`)
        await tab.setInputFiles("#file", `${CORPUS}pdf/tracemonkey.pdf`)
        await tab.click("#upload")
        await tab.waitForFunction(() => document.querySelectorAll("#pages figure").length === 14)
        expect(await tab.textContent("#status")).toMatch(/14 pages/)

        // The first thumbnail is a real image of the requested width.
        await tab.waitForFunction(() => (document.querySelector("#pages figure img") as HTMLImageElement | null)?.complete)
        const width = await tab.evaluate(() => (document.querySelector("#pages figure img") as HTMLImageElement).naturalWidth)
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
      })
    }))

  it.scoped("shows the parts of an email and opens the message body, converted, as pages", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const chrome = yield* browser
      yield* Effect.promise(async () => {
        const tab = await chrome.newPage()
        await tab.goto(`${base}/admin`)
        await tab.setInputFiles("#file", `${CORPUS}office/fake-email-attachment.eml`)
        await tab.click("#upload")
        await tab.waitForFunction(() => document.querySelectorAll("#pages a").length === 2)
        expect(await tab.textContent("#status")).toMatch(/composite document with 2 part\(s\)/)
        expect(await tab.locator("#pages a").allTextContents()).toEqual(["Fake email with attachment", "fake-attachment.txt"])

        await tab.click("#pages a >> nth=0")
        await tab.waitForFunction(() => document.querySelectorAll("#pages figure").length === 1)
        await tab.waitForFunction(() => (document.querySelector("#pages figure img") as HTMLImageElement | null)?.naturalWidth === 360)
        expect(await tab.inputValue("#docId")).toMatch(/\/0$/)
        await tab.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? "/tmp"}/admin-email.png`, fullPage: false })
      })
    }))
})
