/**
 * `<docstack-thumbnails>`: a small image of every page, one under the other. The list is sized
 * from the layout at once, so its scroll bar is right from the start, but only the thumbnails near
 * the panel's viewport exist in the DOM and fetch their image: a 20,000-page document costs a few
 * typed arrays and a dozen nodes. Images are fetched behind the pages' own (ImageLoader's
 * thumbnail priority) and dropped when scrolled past.
 */
import { css, html, LitElement, nothing, type PropertyValues } from "lit"
import { repeat } from "lit/directives/repeat.js"
import type { PageDimensions } from "../client/ViewerClient.ts"
import type { Translate } from "../i18n/messages.ts"
import { imageWidthFor, lastStartingAtOrAbove, shownSize } from "../pages/PageGeometry.ts"
import type { DocumentPages } from "../pages/PageView.ts"
import { ThumbnailImages } from "../pages/ThumbnailImages.ts"
import { panelStyles, thumbnailBoxStyles } from "./PanelStyles.ts"

/** A thumbnail's width in CSS pixels (a page turned landscape is this wide too, and shorter). */
export const THUMBNAIL_WIDTH = 120
/** A very tall page is drawn narrower rather than taller than this, so one strip does not fill the panel. */
const MAX_THUMBNAIL_HEIGHT = 2 * THUMBNAIL_WIDTH
/** Around a thumbnail's image: its button's padding, the page number under it and the space between. */
const SLOT_EXTRA = 42
const LIST_PADDING = 4
/** Thumbnails kept beyond the viewport, above and below, in viewport heights: a short scroll shows images at once. */
const OVERSCAN = 1

/** Where each thumbnail sits: offsets in typed arrays, found again by binary search, as PageGeometry does for pages. */
export class ThumbnailGeometry {
  /** Top of each slot in CSS pixels, and one more entry: the list's total height. */
  readonly tops: Float64Array
  readonly boxWidths: Float32Array
  readonly boxHeights: Float32Array

  constructor(pages: ReadonlyArray<PageDimensions>, rotations: ReadonlyMap<number, number>) {
    const count = pages.length
    this.tops = new Float64Array(count + 1)
    this.boxWidths = new Float32Array(count)
    this.boxHeights = new Float32Array(count)
    let top = LIST_PADDING
    for (let index = 0; index < count; index++) {
      const shown = shownSize(pages[index]!, rotations.get(index) ?? 0)
      const ratio = shown.height / Math.max(1, shown.width)
      const width = Math.min(THUMBNAIL_WIDTH, MAX_THUMBNAIL_HEIGHT / ratio)
      this.boxWidths[index] = width
      this.boxHeights[index] = width * ratio
      this.tops[index] = top
      top += width * ratio + SLOT_EXTRA
    }
    this.tops[count] = top + LIST_PADDING
  }

  get count() {
    return this.boxWidths.length
  }

  get totalHeight() {
    return this.tops[this.count]!
  }

  slotHeight(index: number) {
    return this.tops[index + 1]! - this.tops[index]!
  }

  /** The thumbnail at vertical position `y` (the last whose slot starts at or above it). */
  indexAt(y: number): number {
    return lastStartingAtOrAbove(this.tops, this.count, y)
  }
}

export class ThumbnailsPanel extends LitElement {
  static override properties = {
    pages: { attribute: false },
    dimensions: { attribute: false },
    rotations: { attribute: false },
    current: { type: Number },
    badges: { attribute: false },
    badgeLabel: { type: String },
    t: { attribute: false },
    focusIndex: { state: true }
  }

  static override styles = [
    panelStyles,
    thumbnailBoxStyles,
    css`
      :host {
        overflow-x: hidden;
        overscroll-behavior: contain;
      }
      .list {
        position: relative;
      }
      .item {
        position: absolute;
        left: 0;
        right: 0;
        display: flex;
        justify-content: center;
        align-items: flex-start;
        padding-top: 4px;
        box-sizing: border-box;
      }
      .thumb {
        display: flex;
        flex-direction: column;
        align-items: center;
        gap: 4px;
        padding: 4px;
        border: 0;
        border-radius: 6px;
        background: none;
        color: inherit;
        font: inherit;
        cursor: pointer;
      }
      .thumb:focus-visible {
        outline: 2px solid var(--docstack-focus, #0b62d6);
        outline-offset: 0;
      }
      .box img {
        position: absolute;
        display: block;
      }
      .thumb:hover .box {
        box-shadow: 0 0 0 2px color-mix(in srgb, var(--docstack-accent, #0b62d6) 45%, transparent);
      }
      .thumb[aria-current] .box {
        box-shadow: 0 0 0 3px var(--docstack-accent, #0b62d6);
      }
      .number {
        min-width: 20px;
        padding: 0 6px;
        border-radius: 9px;
        font-size: 12px;
        line-height: 18px;
        text-align: center;
        font-variant-numeric: tabular-nums;
        color: var(--docstack-muted, #6b7280);
      }
      .badge {
        position: absolute;
        top: 2px;
        right: 2px;
        width: 12px;
        height: 12px;
        border-radius: 50%;
        background: #d14343;
        border: 2px solid #fff;
      }
      .thumb[aria-current] .number {
        background: var(--docstack-accent, #0b62d6);
        color: var(--docstack-panel-background, #f4f4f5);
        font-weight: 600;
      }
    `
  ]

  declare pages: DocumentPages | undefined
  declare dimensions: ReadonlyArray<PageDimensions>
  /** User rotation per page index, degrees clockwise. A new map for a change: a mutated one is not seen. */
  declare rotations: ReadonlyMap<number, number>
  /** The page shown (0-based). */
  declare current: number
  /** Pages marked with a badge (a comparison's changed pages), 0-based. */
  declare badges: ReadonlySet<number>
  /** What a badge means, said after the page's name to a screen reader. */
  declare badgeLabel: string
  declare t: Translate
  /** The thumbnail holding the list's one tab stop; always in the DOM, even when scrolled away. */
  declare focusIndex: number

  private geometry = new ThumbnailGeometry([], new Map())
  private scrollY = 0
  private viewportHeight = 0
  /** `current` changed and must be brought into view once the panel has a size. */
  private revealPending = true
  /** The images of the thumbnails near the view, for the document's pages. */
  private images: ThumbnailImages | null = null
  private readonly resizeObserver = new ResizeObserver(() => this.measure())
  private frame = 0

  constructor() {
    super()
    this.dimensions = []
    this.rotations = new Map()
    this.current = 0
    this.badges = new Set()
    this.badgeLabel = ""
    this.focusIndex = 0
  }

  override connectedCallback() {
    super.connectedCallback()
    this.addEventListener("scroll", this.onScroll, { passive: true })
    this.resizeObserver.observe(this)
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    this.removeEventListener("scroll", this.onScroll)
    this.resizeObserver.disconnect()
    cancelAnimationFrame(this.frame)
    this.frame = 0
    this.images?.dropExcept()
  }

  private readonly onScroll = () => {
    // One update per frame however many scroll events come.
    if (this.frame !== 0) return
    this.frame = requestAnimationFrame(() => {
      this.frame = 0
      this.scrollY = this.scrollTop
      this.requestUpdate()
    })
  }

  private measure() {
    this.viewportHeight = this.clientHeight
    this.scrollY = this.scrollTop
    this.requestUpdate()
  }

  /** The thumbnails in the viewport, or near it with `margin` (CSS px), as an inclusive range. */
  private rangeWithin(margin: number) {
    return {
      first: this.geometry.indexAt(this.scrollY - margin),
      last: this.geometry.indexAt(this.scrollY + this.viewportHeight + margin)
    }
  }

  /** Scrolls so thumbnail `index` is in view: centred when `center`, else by the least movement. */
  private reveal(index: number, center: boolean) {
    const top = this.geometry.tops[index]!
    const height = this.geometry.slotHeight(index)
    const bottom = top + height
    if (top >= this.scrollY && bottom <= this.scrollY + this.viewportHeight) return
    const target = center
      ? top - (this.viewportHeight - height) / 2
      : top < this.scrollY
      ? top
      : bottom - this.viewportHeight
    this.scrollTop = Math.max(0, target)
    this.scrollY = this.scrollTop
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has("dimensions") || changed.has("rotations")) {
      this.geometry = new ThumbnailGeometry(this.dimensions, this.rotations)
    }
    if (changed.has("pages")) {
      this.images?.dropExcept()
      this.images = this.pages ? new ThumbnailImages(this.pages.loader, () => this.requestUpdate()) : null
    }
    if (changed.has("current") || changed.has("dimensions")) {
      this.revealPending = true
      // The tab stop follows the page shown, unless the reader is moving through the list.
      if (this.shadowRoot?.activeElement == null) this.focusIndex = this.current
    }
    this.focusIndex = Math.max(0, Math.min(this.focusIndex, this.geometry.count - 1))
  }

  protected override updated() {
    // After the render: the list must have its height before it can be scrolled down it.
    if (this.revealPending && this.viewportHeight > 0 && this.geometry.count > 0) {
      this.revealPending = false
      const before = this.scrollY
      this.reveal(Math.min(this.current, this.geometry.count - 1), true)
      if (this.scrollY !== before) return this.requestUpdate()
    }
    const { first, last } = this.rangeWithin(this.viewportHeight * OVERSCAN)
    const inRange = (index: number) => this.viewportHeight > 0 && index >= first && index <= last
    this.images?.dropExcept(inRange)
    const { pages, images } = this
    if (pages === undefined || images === null || this.viewportHeight === 0) return
    // Failed ones stay blank, asked again once scrolled away and back.
    const width = imageWidthFor(THUMBNAIL_WIDTH)
    const load = (from: number, to: number) => {
      for (let index = from; index <= to && index < this.geometry.count; index++) {
        images.want(index, pages.client.imageUrl(pages.uuid, index, width))
      }
    }
    // Those in view first: the loader runs equal priorities in the order asked.
    const inView = this.rangeWithin(0)
    load(inView.first, inView.last)
    load(first, inView.first - 1)
    load(inView.last + 1, last)
  }

  private indexOf(event: Event): number | null {
    const button = (event.target as Element).closest<HTMLElement>("button.thumb")
    return button === null ? null : Number(button.dataset.index)
  }

  private readonly onClick = (event: MouseEvent) => {
    const index = this.indexOf(event)
    if (index === null) return
    this.focusIndex = index
    this.dispatchEvent(new CustomEvent("navigate", { bubbles: true, composed: true, detail: { index } }))
  }

  private readonly onKeyDown = (event: KeyboardEvent) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return
    const from = this.indexOf(event) ?? this.focusIndex
    const last = this.geometry.count - 1
    const to = event.key === "ArrowDown"
      ? Math.min(last, from + 1)
      : event.key === "ArrowUp"
      ? Math.max(0, from - 1)
      : event.key === "Home"
      ? 0
      : event.key === "End"
      ? last
      : null
    if (to === null) return
    event.preventDefault()
    this.moveFocus(to)
  }

  private async moveFocus(index: number) {
    this.focusIndex = index
    this.reveal(index, false)
    this.requestUpdate()
    await this.updateComplete
    this.renderRoot.querySelector<HTMLElement>(`button.thumb[data-index="${index}"]`)?.focus({ preventScroll: true })
  }

  private renderThumbnail(index: number) {
    const { geometry, t } = this
    const width = geometry.boxWidths[index]!
    const height = geometry.boxHeights[index]!
    const rotation = this.rotations.get(index) ?? 0
    // The image comes unturned by the reader: laid out at its own size, then turned about its centre into the box.
    const turned = (((rotation % 180) + 180) % 180) === 90
    const imageWidth = turned ? height : width
    const imageHeight = turned ? width : height
    const imageStyle = `width:${imageWidth}px;height:${imageHeight}px;left:${(width - imageWidth) / 2}px;` +
      `top:${(height - imageHeight) / 2}px;transform:rotate(${rotation}deg)`
    const objectUrl = this.images?.objectUrl(index) ?? null
    const badge = this.badges.has(index)
    return html`<div role="listitem" class="item" aria-setsize=${geometry.count} aria-posinset=${index + 1}
      style=${`top:${geometry.tops[index]}px;height:${geometry.slotHeight(index)}px`}>
      <button type="button" class="thumb" data-index=${index} tabindex=${index === this.focusIndex ? 0 : -1}
        aria-label=${
      badge ? `${t("page", { number: index + 1 })} ${this.badgeLabel}` : t("page", { number: index + 1 })
    }
        aria-current=${index === this.current ? "page" : nothing}>
        <span class="box" style=${`width:${width}px;height:${height}px`}>${
      objectUrl === null
        ? nothing
        : html`<img src=${objectUrl} alt="" draggable="false" style=${imageStyle}>`
    }${badge ? html`<span class="badge" data-badge=${index}></span>` : nothing}</span>
        <span class="number" aria-hidden="true">${index + 1}</span>
      </button>
    </div>`
  }

  protected override render() {
    const { first, last } = this.rangeWithin(this.viewportHeight * OVERSCAN)
    const shown: Array<number> = []
    if (this.viewportHeight > 0) {
      for (let index = first; index <= last && index < this.geometry.count; index++) shown.push(index)
    }
    // The tab stop stays in the DOM when scrolled away, so Tab still lands in the list.
    if (this.geometry.count > 0 && !shown.includes(this.focusIndex)) shown.push(this.focusIndex)
    return html`<div class="list" role="list" aria-label=${
      this.t("thumbnails")
    } style=${`height:${this.geometry.totalHeight}px`}
      @click=${this.onClick} @keydown=${this.onKeyDown}>${
      repeat(shown, (index) => index, (index) => this.renderThumbnail(index))
    }</div>`
  }
}

customElements.define("docstack-thumbnails", ThumbnailsPanel)
