/**
 * Annotating in the browser viewer, in real headless Chromium against a viewer and a broker on
 * loopback: what a reader makes (a highlight from selected text, a sticky note with a reply, shapes)
 * is drawn where it was made, saved through the viewer service, there again after a reload and in
 * the side panel's list; edited, undone, redone and deleted; and a read-only policy leaves no tool.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ProviderUrl } from "../../src/layers/Test.ts"
import { makeProviderRoot } from "../broker/providers/support.ts"
import { call } from "../support/http.ts"
import { viewerAndBroker, viewerBrokerAndProvider } from "../viewer/support.ts"
import { drag, drawn, firstPageBox, keptAnnotations, overlap, saved, selectSpan } from "./annotating.ts"
import { openedDocument, openTab, pagePainted, SCREENSHOTS, waitForEvent, withViewerTab } from "./viewer-tab.ts"

layer(viewerAndBroker(), { timeout: 180_000 })("the browser viewer, annotating", (it) => {
  it.scoped("a highlight from selected text and a sticky note with a reply: drawn, saved, there after a reload", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { id, tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf", "&user=Alice")
        yield* Effect.promise(async () => {
          await tab.locator("[data-action=annotate]").click()
          // The bar first: once it is drawn it pushes the pages down, and a selection made before
          // that would be dragged across the line as it moves.
          await tab.locator("docstack-annotation-bar .status", { hasText: "All changes saved" }).waitFor()
          // The title, selected with the mouse, highlighted from the menu over the selection.
          const title = await selectSpan(tab, "Trace-based")
          await tab.locator("docstack-viewer .selection-menu [data-mark=Highlight]").click()
          const highlight = drawn(tab, "Highlight").first()
          await highlight.waitFor()
          expect(overlap((await highlight.boundingBox())!, title)).toBeGreaterThan(0.8)

          // A note placed with a click, its comment typed and a reply sent in the side panel.
          await tab.locator("docstack-annotation-bar [data-tool=Text]").click()
          const page = await firstPageBox(tab)
          await tab.mouse.click(page.x + page.width * 0.9, page.y + page.height * 0.06)
          const comment = tab.locator("docstack-annotations textarea.contents")
          await comment.fill("Is this the final title?")
          await comment.press("Tab")
          await tab.locator("docstack-annotations textarea.new-reply").fill("Yes, as submitted.")
          await tab.locator("docstack-annotations [data-action=reply]").click()
          await tab.locator("docstack-annotations .badge", { hasText: "1 reply" }).waitFor()
          await saved(tab)
          await tab.screenshot({ path: `${SCREENSHOTS}/viewer-annotate-made.png` })
        })

        const kept = yield* keptAnnotations(id)
        const highlight = kept.find((a) => a.type === "Highlight")!
        const note = kept.find((a) => a.type === "Text")!
        expect(kept).toHaveLength(2)
        expect(highlight.creator).toBe("Alice")
        expect(highlight.contents).toContain("Trace-based")
        expect(note.contents).toBe("Is this the final title?")
        expect(note.replies).toEqual([expect.objectContaining({ contents: "Yes, as submitted.", creator: "Alice" })])

        // Reloaded: both drawn and listed, with the author and the reply.
        yield* Effect.promise(async () => {
          await tab.reload()
          await pagePainted(tab, 1)
          const title = (await tab.locator("docstack-viewer .text-layer span", { hasText: "Trace-based" }).first()
            .boundingBox())!
          const highlightAgain = drawn(tab, "Highlight").first()
          await highlightAgain.waitFor()
          expect(overlap((await highlightAgain.boundingBox())!, title)).toBeGreaterThan(0.8)
          await drawn(tab, "Text").first().waitFor()
          await tab.locator("[data-action=sidebar]").click()
          await tab.getByRole("tab", { name: "Annotations" }).click()
          const list = tab.locator("docstack-annotations [role=listitem]")
          await list.first().waitFor()
          expect(await list.count()).toBe(2)
          const texts = await list.allTextContents()
          expect(texts.join("\n")).toMatch(/Highlight[\s\S]*Alice/)
          expect(texts.join("\n")).toMatch(/Note[\s\S]*1 reply/)
          // Chosen in the list, the note opens its thread with the reply.
          await list.filter({ hasText: "Note" }).locator("button.head").click()
          await tab.locator("docstack-annotations .reply", { hasText: "Yes, as submitted." }).waitFor()
        })
      })
    ))

  it.scoped("a rectangle drawn, moved, recoloured, undone, redone, deleted with the key and brought back", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { id, tab } = yield* openedDocument(chrome, base, "pdf/basicapi.pdf")
        const square = drawn(tab, "Square").first()
        const box = yield* Effect.promise(async () => {
          await tab.locator("[data-action=annotate]").click()
          await tab.locator("docstack-annotation-bar [data-tool=Square]").click()
          const page = await firstPageBox(tab)
          await drag(tab, { x: page.x + 100, y: page.y + 300 }, { x: page.x + 260, y: page.y + 380 })
          await square.waitFor()
          await saved(tab)
          return (await square.boundingBox())!
        })
        const [made] = yield* keptAnnotations(id)
        expect(made!.type).toBe("Square")

        // Moved by its outline (a third along its top edge, away from the handles), 60 px right and 40 px down.
        yield* Effect.promise(async () => {
          await tab.locator("docstack-annotation-bar [data-tool=select]").click()
          const grip = { x: box.x + box.width / 3, y: box.y + 1 }
          await drag(tab, grip, { x: grip.x + 60, y: grip.y + 40 })
          await saved(tab)
          const moved = (await square.boundingBox())!
          expect(moved.x - box.x).toBeCloseTo(60, -1)
          expect(moved.y - box.y).toBeCloseTo(40, -1)
        })
        const [moved] = yield* keptAnnotations(id)
        expect(moved!.id).toBe(made!.id)
        expect(moved!.position.x).toBeGreaterThan(made!.position.x + 30)

        // Recoloured blue, undone (red again), redone.
        const colour = () => square.locator("rect").first().getAttribute("stroke")
        yield* Effect.promise(async () => {
          await tab.locator("docstack-annotation-bar [aria-label=Colour] .swatch[title='#1e6fd9']").click()
          expect(await colour()).toBe("rgb(30 111 217)")
          await tab.locator("docstack-annotation-bar [data-action=undo]").click()
          expect(await colour()).toBe("rgb(224 40 30)")
          await tab.locator("docstack-annotation-bar [data-action=redo]").click()
          expect(await colour()).toBe("rgb(30 111 217)")
          await saved(tab)
        })
        expect((yield* keptAnnotations(id))[0]!.color).toEqual({ r: 30, g: 111, b: 217 })

        // Deleted with the Delete key on the pages, then brought back by Ctrl+Z under the same ID.
        yield* Effect.promise(async () => {
          await square.locator("rect").first().click({ position: { x: 1, y: 5 } })
          await tab.keyboard.press("Delete")
          await square.waitFor({ state: "detached" })
          await saved(tab)
        })
        expect(yield* keptAnnotations(id)).toEqual([])
        yield* Effect.promise(async () => {
          await tab.keyboard.press("Control+z")
          await square.waitFor()
          await saved(tab)
        })
        const back = yield* keptAnnotations(id)
        expect(back.map((a) => a.id)).toEqual([made!.id])
      })
    ))

  it.scoped("text selected while the annotations are still loading gets its menu once they are", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/tracemonkey.pdf", "&user=Alice")
        yield* Effect.promise(async () => {
          // The policy's answer held back, as a slow broker would, until the text is selected.
          let release = () => {}
          const held = new Promise<void>((resolve) => (release = resolve))
          await tab.route(/\/annotationPolicy\?/, async (route) => {
            await held
            await route.continue()
          })
          await tab.reload()
          await pagePainted(tab, 1)
          await tab.locator("[data-action=annotate]").click()
          await selectSpan(tab, "Trace-based")
          await tab.waitForTimeout(300)
          expect(await tab.locator("docstack-viewer .selection-menu").count()).toBe(0)
          release()
          await tab.locator("docstack-viewer .selection-menu [data-mark=Highlight]").click()
          await drawn(tab, "Highlight").first().waitFor()
        })
      })
    ))

  it.scoped("every annotation tool is reached and used with the keyboard alone", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { id, tab } = yield* openedDocument(chrome, base, "pdf/basicapi.pdf")
        /** The label of the element the keyboard focus is on, through the shadow roots. */
        const focused = () =>
          tab.evaluate(() => {
            let element = document.activeElement
            while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement
            return {
              label: element?.getAttribute("aria-label") ?? "",
              tool: element?.getAttribute("data-tool") ?? "",
              viewport: element?.classList.contains("viewport") ?? false
            }
          })
        const tabUntil = async (found: (f: Awaited<ReturnType<typeof focused>>) => boolean, most = 80) => {
          for (let step = 0; step < most; step++) {
            await tab.keyboard.press("Tab")
            if (found(await focused())) return
          }
          throw new Error("not reached with Tab")
        }
        const tools = yield* Effect.promise(async () => {
          await tab.locator("[data-action=annotate]").focus()
          await tab.keyboard.press("Enter")
          await tab.locator("docstack-annotation-bar [data-tool=Square]").waitFor()
          const seen = new Set<string>()
          for (let step = 0; step < 60; step++) {
            await tab.keyboard.press("Tab")
            const { tool } = await focused()
            if (tool) seen.add(tool)
          }
          return seen
        })
        expect([...tools].sort()).toEqual(
          [
            "Arrow",
            "Circle",
            "FreeText",
            "Highlight",
            "Ink",
            "Line",
            "Polygon",
            "Square",
            "Squiggly",
            "Stamp",
            "StrikeOut",
            "Text",
            "Underline",
            "select"
          ]
        )
        yield* Effect.promise(async () => {
          // The stamp tool chosen with Enter, placed with Enter on the pages.
          await tab.locator("[data-action=annotate]").focus()
          await tabUntil((f) => f.tool === "Stamp")
          await tab.keyboard.press("Enter")
          await tabUntil((f) => f.viewport)
          await tab.keyboard.press("Enter")
          await drawn(tab, "Stamp").first().waitFor()
          await saved(tab)
        })
        const [stamp] = yield* keptAnnotations(id)
        expect(stamp!.type).toBe("Stamp")
        expect(stamp!.stampName).toBe("Approved")
        // Nudged with the arrows: Shift moves by 10 points.
        yield* Effect.promise(async () => {
          for (let step = 0; step < 3; step++) await tab.keyboard.press("Shift+ArrowRight")
          await tab.keyboard.press("ArrowDown")
          await saved(tab)
        })
        const [nudged] = yield* keptAnnotations(id)
        expect(nudged!.position.x - stamp!.position.x).toBeCloseTo(30, 5)
        expect(nudged!.position.y - stamp!.position.y).toBeCloseTo(1, 5)
        yield* Effect.promise(async () => {
          await tab.keyboard.press("Delete")
          await drawn(tab, "Stamp").first().waitFor({ state: "detached" })
          await saved(tab)
        })
        expect(yield* keptAnnotations(id)).toEqual([])
      })
    ))
})

layer(viewerAndBroker({}, { ANNOTATION_POLICY_FILE: new URL("./read-only-policy.json", import.meta.url).pathname }), {
  timeout: 180_000
})("the browser viewer, annotations read-only by policy", (it) => {
  it.scoped("the file's annotations are shown and listed, and no tool that would change one is offered", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const { tab } = yield* openedDocument(chrome, base, "pdf/annotation-highlight.pdf")
        yield* Effect.promise(async () => {
          await drawn(tab, "Highlight").first().waitFor()
          await tab.locator("[data-action=annotate]").click()
          await tab.locator("docstack-annotation-bar .status", { hasText: "read-only" }).waitFor()
          expect(await tab.locator("docstack-annotation-bar [data-tool]").count()).toBe(0)
          expect(await tab.locator("docstack-annotation-bar [data-action=undo]").count()).toBe(0)
          await tab.locator("docstack-annotations [role=listitem]", { hasText: "Tim van der Meij" }).waitFor()
          expect(await tab.locator("docstack-annotations [data-action=delete]").count()).toBe(0)
          // Text selected: no menu to mark it.
          await selectSpan(tab, "Lorem")
          await tab.waitForTimeout(300)
          expect(await tab.locator("docstack-viewer .selection-menu").count()).toBe(0)
          await tab.screenshot({ path: `${SCREENSHOTS}/viewer-annotate-read-only.png` })
        })
      })
    ))
})

layer(viewerBrokerAndProvider(makeProviderRoot()), { timeout: 180_000 })(
  "the browser viewer, a provider's document",
  (it) => {
    it.scoped("its annotations are kept by its provider, through the broker's annotation proxy", () =>
      withViewerTab((chrome, base) =>
        Effect.gen(function*() {
          const tab = yield* openTab(
            chrome,
            base,
            `?url=${encodeURIComponent("loadingQuery?id=tracemonkey.pdf")}&user=Bob`
          )
          yield* Effect.promise(async () => {
            await waitForEvent(tab, "documentloaded")
            await pagePainted(tab, 1)
            await tab.locator("[data-action=annotate]").click()
            await tab.locator("docstack-annotation-bar .status", { hasText: "All changes saved" }).waitFor()
            await selectSpan(tab, "Trace-based")
            await tab.locator("docstack-viewer .selection-menu [data-mark=Underline]").click()
            await drawn(tab, "Underline").first().waitFor({ state: "attached" })
            await saved(tab)
          })
          const provider = yield* ProviderUrl
          const stored = yield* call(`${provider}/annotations?id=tracemonkey.pdf`)
          expect(stored.status).toBe(200)
          const [underline] = stored.json as Array<Record<string, any>>
          expect(underline).toEqual(
            expect.objectContaining({
              type: "Underline",
              page: 0,
              creator: "Bob",
              contents: expect.stringContaining("Trace")
            })
          )
          // The provider's own ID, which the viewer now uses: a change reaches the same annotation there.
          yield* Effect.promise(async () => {
            await tab.locator("docstack-annotation-bar [aria-label=Colour] .swatch[title='#2e9e44']").click()
            await saved(tab)
          })
          const changed = yield* call(`${provider}/annotations/${underline!.id}?id=tracemonkey.pdf`)
          expect(changed.json).toEqual(expect.objectContaining({ id: underline!.id, color: { r: 46, g: 158, b: 68 } }))
        })
      ))
  }
)
