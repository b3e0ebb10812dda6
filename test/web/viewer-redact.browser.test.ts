/**
 * Redacting in the browser viewer, in real headless Chromium against a viewer and a broker on
 * loopback: find and redact marks every hit at once, marks stay reviewable and reversible until
 * applied, and applying makes a redacted copy (the order's progress shown) that opens in the viewer:
 * the word is gone from its text and its search, the words around it are not, and the original is
 * unchanged.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { servlet, viewerAndBroker } from "../viewer/support.ts"
import { drawn, keptAnnotations, overlap } from "./annotating.ts"
import { openedDocument, SCREENSHOTS, waitForEvent, withViewerTab } from "./viewer-tab.ts"

/** How many times the viewer's search finds `text` in a document (the browser viewer's `search` route). */
const hitsOf = (uuid: string, text: string) =>
  servlet(`search?uuid=${encodeURIComponent(uuid)}&searchText=${encodeURIComponent(text)}&fromPage=0`).pipe(
    Effect.map((reply) => {
      if (reply.status !== 200) throw new Error(`search answered ${reply.status}: ${reply.text}`)
      return (JSON.parse(reply.text) as { hits: Array<{ pageNumber: number }> }).hits
    })
  )

/** The text of a page as pageContent gives it, runs joined by spaces. */
const pageText = (uuid: string, page: number) =>
  servlet(`pageContent?uuid=${encodeURIComponent(uuid)}&pagePosition=${page}`).pipe(
    Effect.map((reply) =>
      (JSON.parse(reply.text) as { positionTextList: Array<{ text: string }> }).positionTextList.map((r) => r.text)
        .join(" ")
    )
  )

layer(viewerAndBroker(), { timeout: 240_000 })("the browser viewer, redacting", (it) => {
  it.scoped(
    "a searched word marked everywhere, one mark taken back, applied: gone from the copy but for that one",
    () =>
      withViewerTab((chrome, base) =>
        Effect.gen(function*() {
          const { id, tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf")
          const before = yield* hitsOf(id, "Mozilla")
          const neighbours = (yield* hitsOf(id, "Corporation")).length
          expect(before.length).toBeGreaterThan(1)
          expect(before[0]!.pageNumber).toBe(0)

          yield* Effect.promise(async () => {
            await tab.locator("[data-action=redact]").click()
            const panel = tab.locator("docstack-redaction")
            await panel.locator("input[type=search]").fill("Mozilla")
            await panel.locator("button[type=submit]").click()
            await panel.locator(".status", { hasText: `${before.length} found` }).waitFor()
            // Every hit listed and ticked, then marked at once.
            expect(await panel.locator("ul input[type=checkbox]:checked").count()).toBe(before.length)
            await panel.locator("[data-action=mark-hits]").click()
            await panel.locator("h3", { hasText: `(${before.length})` }).waitFor()
            // Drawn over the word on page 1.
            const word = (await tab.locator("docstack-viewer .page[data-page-number='1'] .text-layer span", {
              hasText: "Mozilla"
            }).first().boundingBox())!
            const mark = (await drawn(tab, "RedactText").first().boundingBox())!
            expect(overlap(mark, word)).toBeGreaterThan(0.2)
            await tab.screenshot({ path: `${SCREENSHOTS}/viewer-redact-marked.png` })
            // Reversible until applied: the last one taken back.
            await panel.locator("li[data-id] button[aria-label^='Delete']").last().click()
            await panel.locator("h3", { hasText: `(${before.length - 1})` }).waitFor()
          })
          const marks = yield* keptAnnotations(id)
          expect(marks.filter((a) => a.type === "RedactText")).toHaveLength(before.length - 1)
          expect(marks.every((a) => a.redactReason === "PERSONAL_DATA")).toBe(true)

          // Applied after a confirmation, its progress shown; the copy opens.
          const created = yield* Effect.promise(async () => {
            const panel = tab.locator("docstack-redaction")
            await panel.locator("[data-action=apply]").click()
            await panel.locator("[data-action=confirm-apply]").click()
            await tab.locator("docstack-viewer .order-dialog", { hasText: "Applying redactions" }).waitFor()
            const event = await waitForEvent(tab, "documentcreated", "true", 180_000)
            // The copy's first page painted: a pagerendered event after the copy was opened.
            await waitForEvent(
              tab,
              "pagerendered",
              `detail.pageNumber === 1 && window.__viewerEvents.some((e) =>
            e.name === "documentloaded" && e.detail.uuid === ${
                JSON.stringify((event.detail as { uuid: string }).uuid)
              } &&
            e.at < window.__viewerEvents.find((x) => x.detail === detail).at)`
            )
            await tab.locator("docstack-viewer .page[data-page-number='1'] .text-layer span").first().waitFor()
            await tab.locator("docstack-viewer .toolbar .title", { hasText: "(redacted)" }).waitFor()
            await tab.screenshot({ path: `${SCREENSHOTS}/viewer-redact-applied.png` })
            return event.detail as { uuid: string; source: string }
          })
          expect(created.source).toBe(id)
          const after = yield* hitsOf(created.uuid, "Mozilla")
          expect(after).toHaveLength(1)
          expect(after[0]!.pageNumber).toBe(before[before.length - 1]!.pageNumber)
          expect((yield* hitsOf(created.uuid, "Corporation")).length).toBe(neighbours)
          const firstPage = yield* pageText(created.uuid, 0)
          expect(firstPage).not.toContain("Mozilla")
          expect(firstPage).toContain("Corporation")
          // The copy's text layer, as the reader gets it, has no trace of the word either.
          const layerText = yield* Effect.promise(() =>
            tab.locator("docstack-viewer .page[data-page-number='1'] .text-layer").textContent()
          )
          expect(layerText).toContain("Corporation")
          expect(layerText).not.toContain("Mozilla")
          // The original is as it was, marks and all.
          expect(yield* hitsOf(id, "Mozilla")).toHaveLength(before.length)
        })
      ),
    240_000
  )
})
