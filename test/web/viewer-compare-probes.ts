/**
 * What the comparison tests read in the tab: the comparison's shadow root, where each side shows a
 * word (its text layer span), the highlights drawn, where each side is scrolled, the thumbnails'
 * badges and the element holding the focus. Installed on `window.probe` by `installProbes`.
 */
import type { Page } from "playwright-core"

export interface Box {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}

export interface WordBox extends Box {
  /** The page (1-based) whose text layer holds the word. */
  readonly page: number
  /** The box of the span (the text run) holding it. */
  readonly span: Box
}

export interface HighlightBox extends Box {
  readonly kind: string
}

export interface Focused {
  readonly tag: string
  readonly action: string | null
  readonly role: string | null
  readonly label: string
  /** The focus ring drawn: an outline or an inset shadow. */
  readonly ring: boolean
  /** It is part of the comparison. */
  readonly inCompare: boolean
}

export interface Probe {
  readonly count: () => string
  readonly word: (side: "left" | "right", word: string) => WordBox | null
  readonly highlights: (side: "left" | "right", currentOnly: boolean) => Array<HighlightBox>
  readonly viewport: (side: "left" | "right") => Box
  readonly position: (side: "left" | "right") => { page: number; fraction: number; scrollTop: number } | null
  readonly badges: () => Array<number>
  readonly focused: () => Focused | null
}

declare global {
  interface Window {
    probe: Probe
  }
}

/** Defines `window.probe` in the tab (run after the viewer's bundle has loaded). */
export const installProbes = (tab: Page) =>
  tab.evaluate(() => {
    const compare = () => document.querySelector("docstack-viewer")!.shadowRoot!.querySelector("docstack-compare")!
    const root = () => compare().shadowRoot!
    const side = (name: string) => root().querySelector<HTMLElement>(`docstack-compared-side[data-side=${name}]`)!
    const boxOf = (rect: DOMRect) => ({ x: rect.left, y: rect.top, w: rect.width, h: rect.height })
    const deepFocus = () => {
      let element: Element | null = document.activeElement
      while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement
      return element as HTMLElement | null
    }
    window.probe = {
      count: () => root().querySelector(".count")?.textContent?.trim() ?? "",
      word: (name, word) => {
        for (const span of side(name).querySelectorAll<HTMLElement>(".text-layer span")) {
          const node = span.firstChild
          const text = node?.textContent ?? ""
          const match = new RegExp(`(^|[^\\p{L}])(${word})(?![\\p{L}])`, "u").exec(text)
          if (node === null || match === null) continue
          const start = match.index + match[1]!.length
          const range = document.createRange()
          range.setStart(node, start)
          range.setEnd(node, start + word.length)
          const page = Number(span.closest<HTMLElement>(".page")!.dataset.pageNumber)
          return { ...boxOf(range.getBoundingClientRect()), page, span: boxOf(span.getBoundingClientRect()) }
        }
        return null
      },
      highlights: (name, currentOnly) =>
        Array.from(side(name).querySelectorAll<HTMLElement>(currentOnly ? ".hit.current" : ".hit")).map((hit) => ({
          kind: hit.classList.contains("deleted") ? "deleted" : hit.classList.contains("inserted") ? "inserted" : "",
          ...boxOf(hit.getBoundingClientRect())
        })),
      viewport: (name) => boxOf(side(name).querySelector(".viewport")!.getBoundingClientRect()),
      position: (name) => {
        const shown = side(name) as HTMLElement & { position: { page: number; fraction: number } | null }
        const position = shown.position
        const scrollTop = shown.querySelector(".viewport")!.scrollTop
        return position === null ? null : { page: position.page, fraction: position.fraction, scrollTop }
      },
      badges: () =>
        Array.from(
          root().querySelector("docstack-thumbnails")!.shadowRoot!.querySelectorAll<HTMLElement>("[data-badge]")
        )
          .map((badge) => Number(badge.dataset.badge)).sort((a, b) => a - b),
      focused: () => {
        const element = deepFocus()
        if (element === null || element === document.body) return null
        const style = getComputedStyle(element)
        let node: Node | null = element
        while (node !== null && node !== compare()) node = node.parentNode ?? (node as ShadowRoot).host ?? null
        return {
          tag: element.tagName.toLowerCase(),
          action: element.dataset.action ?? null,
          role: element.getAttribute("role"),
          label: element.getAttribute("aria-label") ?? element.textContent?.trim() ?? "",
          ring: style.outlineStyle !== "none" || style.boxShadow.includes("inset"),
          inCompare: node !== null
        }
      }
    }
  })
