/**
 * What the annotation and redaction tests do in a viewer tab: select text with the mouse as a reader
 * does, wait for the viewer to have saved, and read back what the viewer service keeps.
 */
import { Effect } from "effect"
import type { Locator, Page } from "playwright-core"
import { servlet } from "../viewer/support.ts"

export interface Box {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** Drags the mouse across the text layer span holding `text` (the whole span), as a reader selects it. */
export const selectSpan = async (tab: Page, text: string) => {
  const span = tab.locator("docstack-viewer .text-layer span", { hasText: text }).first()
  await span.waitFor()
  const box = (await span.boundingBox())!
  await tab.mouse.move(box.x + 1, box.y + box.height / 2)
  await tab.mouse.down()
  await tab.mouse.move(box.x + box.width - 1, box.y + box.height / 2, { steps: 8 })
  await tab.mouse.up()
  return box
}

/** Waits until every change made in the tab is saved (the bar says so). */
export const saved = (tab: Page) =>
  tab.locator("docstack-annotation-bar .status", { hasText: "All changes saved" }).waitFor({ timeout: 30_000 })

/** The annotations the viewer service keeps for a document (its `annotations` route). */
export const keptAnnotations = (uuid: string) =>
  servlet(`annotations?uuid=${encodeURIComponent(uuid)}`).pipe(
    Effect.map((reply) => {
      if (reply.status !== 200) throw new Error(`annotations answered ${reply.status}: ${reply.text}`)
      return (JSON.parse(reply.text) as { annotations: Array<Record<string, any>> }).annotations
    })
  )

/** How much two boxes overlap, as a share of the smaller one's area. */
export const overlap = (a: Box, b: Box) => {
  const w = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x))
  const h = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y))
  return (w * h) / Math.min(a.width * a.height, b.width * b.height)
}

/** The drawn annotation of a type on the pages (its SVG group). */
export const drawn = (tab: Page, type: string): Locator => tab.locator(`docstack-viewer g.annotation.${type}`)

/** The box of the first page in view, for pointer positions on it. */
export const firstPageBox = async (tab: Page) =>
  (await tab.locator("docstack-viewer .page[data-page-number='1'] .page-inner").boundingBox())!

/** Drags from one point to another with the mouse, in steps, as a hand does. */
export const drag = async (tab: Page, from: { x: number; y: number }, to: { x: number; y: number }) => {
  await tab.mouse.move(from.x, from.y)
  await tab.mouse.down()
  await tab.mouse.move(to.x, to.y, { steps: 8 })
  await tab.mouse.up()
}
