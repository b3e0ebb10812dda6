/**
 * The pages near the viewport, each at its place in the list: what the viewer renders of a
 * document. The list is as tall as PageGeometry says, so the scroll bar is right at once.
 */
import { html, type TemplateResult } from "lit"
import { repeat } from "lit/directives/repeat.js"
import type { Translate } from "../i18n/messages.ts"
import type { PageGeometry } from "./PageGeometry.ts"
import type { DocumentPages, Highlight } from "./PageView.ts"

export interface PageListState {
  readonly geometry: PageGeometry
  readonly pages: DocumentPages
  readonly viewport: HTMLElement | null
  /** The viewport's size before it is in the DOM. */
  readonly fallbackSize: { readonly width: number; readonly height: number }
  /** The pages to put in the DOM, inclusive. */
  readonly range: { readonly first: number; readonly last: number }
  readonly rotations: ReadonlyMap<number, number>
  /** Pages are drawn in tiles, which need each page's visible part. */
  readonly tiling: boolean
  readonly highlightsOf: (index: number) => ReadonlyArray<Highlight>
  /** What a page draws over its text (its annotations). */
  readonly overlayOf: (index: number) => TemplateResult | null
  readonly t: Translate
}

/** Stands for "all of the page is in view" below the tiling width, where the exact part does not matter. */
const WHOLE_PAGE = { x: 0, y: 0, w: Number.MAX_SAFE_INTEGER, h: Number.MAX_SAFE_INTEGER }

/** The part of a page box (list coordinates) inside the viewport, in the box's own CSS pixels. */
const visiblePart = (viewport: HTMLElement, left: number, top: number, width: number, height: number) => {
  const x = Math.max(0, viewport.scrollLeft - left)
  const y = Math.max(0, viewport.scrollTop - top)
  const right = Math.min(width, viewport.scrollLeft + viewport.clientWidth - left)
  const bottom = Math.min(height, viewport.scrollTop + viewport.clientHeight - top)
  return {
    x: Math.round(x),
    y: Math.round(y),
    w: Math.max(0, Math.round(right - x)),
    h: Math.max(0, Math.round(bottom - y))
  }
}

export const pageList = (state: PageListState) => {
  const { geometry, pages, viewport, range, tiling, t } = state
  const width = viewport?.clientWidth ?? state.fallbackSize.width
  const height = viewport?.clientHeight ?? state.fallbackSize.height
  const scrollTop = viewport?.scrollTop ?? 0
  // Content positions to the list's: the same unless the list is capped (MAX_LIST_HEIGHT).
  const shift = geometry.contentTop(scrollTop, height) - scrollTop
  const indexes: Array<number> = []
  for (let index = range.first; index <= range.last && index < geometry.count; index++) indexes.push(index)
  return html`<div class="list" style=${`height:${geometry.listHeight}px;width:${geometry.listWidth}px`}>
    ${
    repeat(indexes, (index) => index, (index) => {
      const top = geometry.tops[index]! - shift
      const left = geometry.left(index, width)
      const pageWidth = geometry.widths[index]!
      const pageHeight = geometry.heights[index]!
      const inView = top < scrollTop + height && top + pageHeight > scrollTop
      const visibleRect = !inView
        ? null
        : tiling && viewport !== null
        ? visiblePart(viewport, left, top, pageWidth, pageHeight)
        : WHOLE_PAGE
      return html`<docstack-page .pages=${pages} .index=${index} .dimensions=${geometry.pages[index]}
        .scale=${geometry.scale} .userRotation=${state.rotations.get(index) ?? 0}
        .outer=${{ top, left, width: pageWidth, height: pageHeight }} .visibleRect=${visibleRect}
        .highlights=${state.highlightsOf(index)} .overlay=${state.overlayOf(index)} .label=${
        t("page", { number: index + 1 })
      }></docstack-page>`
    })
  }
  </div>`
}
