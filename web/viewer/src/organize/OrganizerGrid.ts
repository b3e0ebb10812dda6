/**
 * `<docstack-organizer-grid>`: the working copy's pages as a grid of thumbnails, to select and to
 * drag. Only the rows near the view exist in the DOM (GridGeometry places every cell by arithmetic),
 * so a 400-page document keeps a few dozen cells. It is one tab stop, a multi-select listbox moved
 * through with the arrow keys. It changes the selection itself and asks the organizer, by a
 * `page-action` event, for every change of the copy (a drop, a move, a deletion).
 */
import { html, LitElement, nothing, type PropertyValues } from "lit"
import { repeat } from "lit/directives/repeat.js"
import type { ViewerClient } from "../client/ViewerClient.ts"
import type { Translate } from "../i18n/messages.ts"
import type { ImageLoader } from "../pages/ImageLoader.ts"
import { imageWidthFor } from "../pages/PageGeometry.ts"
import { ThumbnailImages } from "../pages/ThumbnailImages.ts"
import { type DropPlace, GridGeometry } from "./GridGeometry.ts"
import { gridStyles } from "./OrganizerStyles.ts"
import type { PageSelection } from "./PageSelection.ts"
import type { WorkingCopy } from "./WorkingCopy.ts"

/** Cells kept beyond the view, above and below, in view heights. */
const OVERSCAN = 0.5
/** A press moves this far (CSS px) before it becomes a drag: a click that trembles stays a click. */
const DRAG_THRESHOLD = 5
/** On a touch screen a drag starts after a press this long that has not moved (a moving finger scrolls). */
const TOUCH_HOLD_MS = 400
const TOUCH_SLOP = 8
/** Near the top or bottom edge by this much, a drag scrolls the grid. */
const EDGE = 48
const EDGE_SPEED = 14

/** What the grid asks of the organizer. */
export type PageAction =
  | { readonly action: "drop"; readonly keys: ReadonlySet<number>; readonly before: number }
  | { readonly action: "move"; readonly steps: number }
  | { readonly action: "delete" }

interface Press {
  readonly key: number
  readonly pointerId: number
  readonly touch: boolean
  readonly startX: number
  readonly startY: number
  /** A click on a page already selected selects it alone, unless it becomes a drag. */
  readonly selectAloneOnClick: boolean
  holdTimer: ReturnType<typeof setTimeout> | undefined
  /** Set once the press is a drag: the pages dragged, and where they would land. */
  dragged: ReadonlySet<number> | null
  place: DropPlace | null
  clientX: number
  clientY: number
}

export class OrganizerGrid extends LitElement {
  static override styles = gridStyles
  static override properties = {
    copy: { attribute: false },
    selection: { attribute: false },
    version: { type: Number },
    client: { attribute: false },
    loader: { attribute: false },
    thumbnailWidth: { type: Number },
    t: { attribute: false }
  }

  declare copy: WorkingCopy
  declare selection: PageSelection
  /** Bumped by the organizer on every change of the copy: the grid draws it again. */
  declare version: number
  declare client: ViewerClient
  declare loader: ImageLoader
  declare thumbnailWidth: number
  declare t: Translate

  private geometry = new GridGeometry(0, 0, 0)
  private size = { width: 0, height: 0 }
  private scrollY = 0
  private images: ThumbnailImages | null = null
  private press: Press | null = null
  private readonly resizeObserver = new ResizeObserver(() => this.measure())
  private frame = 0
  private scrollFrame = 0
  /** The keyboard moved through the grid: the focused cell takes focus once drawn. */
  private focusPending = false
  /** A cell to bring into view once the grid has a size. */
  private revealPending: number | null = null

  constructor() {
    super()
    this.version = 0
    this.thumbnailWidth = 120
  }

  override connectedCallback() {
    super.connectedCallback()
    this.addEventListener("scroll", this.onScroll, { passive: true })
    // Once a touch drag has started, the finger moves pages, not the grid.
    this.addEventListener("touchmove", this.onTouchMove, { passive: false })
    this.resizeObserver.observe(this)
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    this.removeEventListener("scroll", this.onScroll)
    this.removeEventListener("touchmove", this.onTouchMove)
    this.resizeObserver.disconnect()
    cancelAnimationFrame(this.frame)
    cancelAnimationFrame(this.scrollFrame)
    this.endPress()
    this.images?.dropExcept()
  }

  /** Puts the keyboard in the grid, on the focused page (scrolled into view). */
  focusGrid() {
    this.focusPending = true
    const index = this.focusIndex()
    if (index >= 0) this.reveal(index)
    this.requestUpdate()
  }

  private readonly onScroll = () => {
    if (this.frame !== 0) return
    this.frame = requestAnimationFrame(() => {
      this.frame = 0
      this.scrollY = this.scrollTop
      if (this.press?.dragged) this.dragTo(this.press.clientX, this.press.clientY)
      this.requestUpdate()
    })
  }

  private readonly onTouchMove = (event: TouchEvent) => {
    if (this.press?.dragged) event.preventDefault()
  }

  private measure() {
    this.size = { width: this.clientWidth, height: this.clientHeight }
    this.scrollY = this.scrollTop
    this.requestUpdate()
    if (this.revealPending !== null && this.size.height > 0) {
      // Placed by the new size first: a cell's row depends on the number of columns.
      this.geometry = this.placeCells()
      this.reveal(this.revealPending)
      this.revealPending = null
    }
  }

  private order() {
    return this.copy.pages.map((page) => page.key)
  }

  private focusIndex() {
    const focus = this.selection.focus
    return focus === null ? -1 : this.copy.indexOf(focus)
  }

  private changed() {
    this.requestUpdate()
    this.dispatchEvent(new CustomEvent("selection-change"))
  }

  private act(action: PageAction) {
    this.dispatchEvent(new CustomEvent<PageAction>("page-action", { detail: action }))
  }

  /** Scrolls by the least movement that shows cell `index` whole (once the grid has a size). */
  private reveal(index: number) {
    if (this.size.height === 0) {
      this.revealPending = index
      return
    }
    const top = this.geometry.cellTop(index)
    const bottom = top + this.geometry.cellHeight
    const height = this.size.height
    if (top < this.scrollTop) this.scrollTop = top - 8
    else if (bottom > this.scrollTop + height) this.scrollTop = bottom - height + 8
    this.scrollY = this.scrollTop
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has("loader")) {
      this.images?.dropExcept()
      this.images = new ThumbnailImages(this.loader, () => this.requestUpdate())
    }
    this.geometry = this.placeCells()
  }

  private placeCells() {
    return new GridGeometry(this.copy.pages.length, this.size.width, this.thumbnailWidth)
  }

  protected override updated() {
    const { first, last } = this.shownRange()
    const pages = this.copy.pages
    const images = this.images!
    const wanted = new Set<number>()
    const width = imageWidthFor(this.thumbnailWidth)
    for (let index = first; index <= last; index++) {
      const page = pages[index]!
      wanted.add(page.key)
      images.want(page.key, this.client.imageUrl(this.copy.sources[page.source]!.uuid, page.page, width))
    }
    images.dropExcept((key) => wanted.has(key))
    if (this.focusPending) {
      this.focusPending = false
      this.renderRoot.querySelector<HTMLElement>(`[data-key="${this.selection.focus}"]`)?.focus({ preventScroll: true })
    }
  }

  /** The cells near the view, as an inclusive range of indexes (empty before the grid has a size). */
  private shownRange() {
    if (this.size.height === 0) return { first: 0, last: -1 }
    const margin = this.size.height * OVERSCAN
    return this.geometry.range(this.scrollY - margin, this.scrollY + this.size.height + margin)
  }

  // ---- Pointer: selecting and dragging ------------------------------------------------------

  private keyOf(event: Event): number | null {
    const cell = (event.target as Element).closest<HTMLElement>(".cell")
    return cell === null ? null : Number(cell.dataset.key)
  }

  /** The listbox: it holds a press's pointer, so the drag goes on over and past the other cells. */
  private get gridElement() {
    return this.renderRoot.querySelector<HTMLElement>(".grid")!
  }

  /** A point of the viewport in the grid's own coordinates (scrolled). */
  private gridPoint(clientX: number, clientY: number) {
    const box = this.getBoundingClientRect()
    return { x: clientX - box.left + this.scrollLeft, y: clientY - box.top + this.scrollTop }
  }

  private readonly onPointerDown = (event: PointerEvent) => {
    if (event.button !== 0 || this.press !== null) return
    const key = this.keyOf(event)
    const control = event.ctrlKey || event.metaKey
    if (key === null) {
      // A press between pages lets go of the selection, as in a file manager.
      if (!control && !event.shiftKey && this.selection.size > 0) {
        this.selection.clear()
        this.changed()
      }
      return
    }
    // No text selection or native image drag: the press is ours. Focus is then given by hand.
    event.preventDefault()
    const selectedBefore = this.selection.has(key)
    if (event.shiftKey) this.selection.extendTo(this.order(), key, control)
    else if (control) this.selection.toggle(key)
    else if (!selectedBefore) this.selection.only(key)
    else this.selection.focus = key
    this.focusPending = true
    this.changed()
    if (!this.selection.has(key)) return
    const touch = event.pointerType === "touch"
    const press: Press = {
      key,
      pointerId: event.pointerId,
      touch,
      startX: event.clientX,
      startY: event.clientY,
      selectAloneOnClick: selectedBefore && !control && !event.shiftKey,
      holdTimer: undefined,
      dragged: null,
      place: null,
      clientX: event.clientX,
      clientY: event.clientY
    }
    this.press = press
    if (touch) press.holdTimer = setTimeout(() => this.startDrag(press), TOUCH_HOLD_MS)
    else this.gridElement.setPointerCapture(event.pointerId)
  }

  private startDrag(press: Press) {
    if (this.press !== press) return
    if (press.touch) this.gridElement.setPointerCapture(press.pointerId)
    press.dragged = new Set(this.selection.selected)
    this.dragTo(press.clientX, press.clientY)
  }

  private readonly onPointerMove = (event: PointerEvent) => {
    const press = this.press
    if (press === null || event.pointerId !== press.pointerId) return
    press.clientX = event.clientX
    press.clientY = event.clientY
    if (press.dragged === null) {
      const moved = Math.hypot(event.clientX - press.startX, event.clientY - press.startY)
      // A finger that moves before the hold scrolls the grid; a mouse that moves drags.
      if (press.touch && moved > TOUCH_SLOP) this.endPress()
      else if (!press.touch && moved > DRAG_THRESHOLD) this.startDrag(press)
      return
    }
    this.dragTo(event.clientX, event.clientY)
  }

  private dragTo(clientX: number, clientY: number) {
    const press = this.press!
    const point = this.gridPoint(clientX, clientY)
    const box = this.getBoundingClientRect()
    // Let go outside the grid, the pages stay where they were.
    const inside = clientX >= box.left && clientX <= box.right && clientY >= box.top && clientY <= box.bottom
    press.place = inside ? this.geometry.dropPlace(point.x, point.y) : null
    this.requestUpdate()
    // Near an edge or past it, the grid scrolls that way; each scroll brings the next (onScroll).
    const speed = clientY < box.top + EDGE ? -EDGE_SPEED : clientY > box.bottom - EDGE ? EDGE_SPEED : 0
    if (speed !== 0 && this.scrollFrame === 0) {
      this.scrollFrame = requestAnimationFrame(() => {
        this.scrollFrame = 0
        if (this.press?.dragged) this.scrollTop += speed
      })
    }
  }

  private readonly onPointerUp = (event: PointerEvent) => {
    const press = this.press
    if (press === null || event.pointerId !== press.pointerId) return
    this.endPress()
    if (press.dragged !== null && press.place !== null) {
      this.act({ action: "drop", keys: press.dragged, before: press.place.before })
    } else if (press.selectAloneOnClick) {
      this.selection.only(press.key)
      this.changed()
    }
  }

  private readonly onPointerCancel = () => this.endPress()

  private endPress() {
    const press = this.press
    if (press === null) return
    clearTimeout(press.holdTimer)
    const grid = this.gridElement
    if (grid.hasPointerCapture(press.pointerId)) grid.releasePointerCapture(press.pointerId)
    this.press = null
    this.requestUpdate()
  }

  // ---- Keyboard -------------------------------------------------------------------------------

  private readonly onKeyDown = (event: KeyboardEvent) => {
    const control = event.ctrlKey || event.metaKey
    const count = this.copy.pages.length
    const from = Math.max(0, this.focusIndex())
    const columns = this.geometry.columns
    const page = Math.max(1, Math.floor(this.size.height / this.geometry.rowHeight)) * columns
    const step: Readonly<Record<string, number>> = {
      ArrowLeft: -1,
      ArrowRight: 1,
      ArrowUp: -columns,
      ArrowDown: columns,
      PageUp: -page,
      PageDown: page
    }
    let handled = true
    if (event.key === "Escape" && this.press?.dragged) this.endPress()
    else if (control && event.altKey && event.key in step && !event.key.startsWith("Page")) {
      this.act({ action: "move", steps: step[event.key]! })
    } else if (control && event.altKey && (event.key === "Home" || event.key === "End")) {
      this.act({ action: "move", steps: event.key === "Home" ? -count : count })
    } else if (event.key === "Delete" || event.key === "Backspace") this.act({ action: "delete" })
    else if (control && (event.key === "a" || event.key === "A")) {
      this.selection.all(this.order())
      this.changed()
    } else if (event.key === "Escape" && this.selection.size > 0) {
      this.selection.clear()
      this.changed()
    } else if (event.key === " " || event.key === "Enter") {
      const key = this.selection.focus
      if (key === null) return
      if (event.shiftKey) this.selection.extendTo(this.order(), key, control)
      else this.selection.toggle(key)
      this.changed()
    } else if (count > 0 && (event.key in step || event.key === "Home" || event.key === "End") && !event.altKey) {
      const to = event.key === "Home"
        ? 0
        : event.key === "End"
        ? count - 1
        : Math.max(0, Math.min(count - 1, from + step[event.key]!))
      const key = this.copy.pages[to]!.key
      if (event.shiftKey) this.selection.extendTo(this.order(), key, control)
      else this.selection.focus = key
      this.reveal(to)
      this.focusPending = true
      this.changed()
    } else handled = false
    if (handled) event.preventDefault()
  }

  // ---- Drawing ----------------------------------------------------------------------------------

  private renderCell(index: number) {
    const { copy, geometry, selection, t, images } = this
    const page = copy.pages[index]!
    const source = copy.sources[page.source]!
    const box = geometry.box(copy.dimensions(page))
    const selected = selection.has(page.key)
    const dragged = this.press?.dragged?.has(page.key) ?? false
    const objectUrl = images?.objectUrl(page.key) ?? null
    const failed = images?.failed(page.key) ?? false
    // Where the page comes from, when that is not simply its place: moved, or from another document.
    const moved = page.source !== 0 || page.page !== index
    const label = t("organizePageLabel", { position: index + 1, page: page.page + 1, title: source.title })
    const classes = `cell${selected ? " selected" : ""}${dragged ? " dragged" : ""}`
    return html`<div class=${classes} role="option" data-key=${page.key} data-index=${index}
      tabindex=${page.key === selection.focus ? 0 : -1} aria-selected=${selected ? "true" : "false"}
      aria-posinset=${index + 1} aria-setsize=${copy.pages.length} aria-label=${label} title=${label}
      style=${
      `left:${geometry.cellLeft(index)}px;top:${geometry.cellTop(index)}px;` +
      `width:${geometry.cellWidth}px;height:${geometry.cellHeight}px`
    }>
      <span class="frame" style=${`height:${geometry.boxHeight}px`}>
        <span class="box" style=${`width:${box.width}px;height:${box.height}px`}>${
      objectUrl !== null
        ? html`<img src=${objectUrl} alt="" draggable="false">`
        : failed
        ? html`<span class="no-image">${t("organizeNoImage")}</span>`
        : nothing
    }${
      page.source === 0
        ? nothing
        : html`<span class="source" style=${`--source:var(--source-${page.source % 6})`}>${
          sourceLetter(page.source)
        }</span>`
    }</span>
        ${selected ? html`<span class="check" aria-hidden="true"></span>` : nothing}
      </span>
      <span class="label" aria-hidden="true"><span class="number">${index + 1}</span>${
      moved ? html`<span class="origin">${t("organizeOrigin", { page: page.page + 1 })}</span>` : nothing
    }</span>
    </div>`
  }

  /** Where the dragged pages would land, if here, and how many go beside the pointer (for the eye: the drop is announced). */
  private renderDrag(press: Press, dragged: ReadonlySet<number>) {
    const { place } = press
    const pointer = this.gridPoint(press.clientX, press.clientY)
    const marker = place === null
      ? nothing
      : html`<div class="marker" style=${`left:${place.x - 2}px;top:${place.y}px;height:${this.geometry.cellHeight}px`}>
        </div>`
    return html`${marker}<div class="ghost" aria-hidden="true"
      style=${`left:${pointer.x + 14}px;top:${pointer.y + 14}px`}>${dragged.size}</div>`
  }

  protected override render() {
    const { geometry } = this
    const { first, last } = this.shownRange()
    const shown: Array<number> = []
    for (let index = first; index <= last; index++) shown.push(index)
    // The tab stop stays in the DOM when scrolled away, so Tab still lands in the grid.
    const focus = this.focusIndex()
    if (focus >= 0 && (focus < first || focus > last)) shown.push(focus)
    shown.sort((a, b) => a - b)
    const press = this.press
    const pages = this.copy.pages
    return html`<div class="grid" role="listbox" aria-multiselectable="true" aria-label=${this.t("organizeGrid")}
      aria-describedby="grid-help" style=${`height:${geometry.totalHeight}px`}
      @pointerdown=${this.onPointerDown} @pointermove=${this.onPointerMove} @pointerup=${this.onPointerUp}
      @pointercancel=${this.onPointerCancel} @lostpointercapture=${this.onPointerCancel} @keydown=${this.onKeyDown}>
      ${repeat(shown, (index) => pages[index]!.key, (index) => this.renderCell(index))}
      ${press?.dragged ? this.renderDrag(press, press.dragged) : nothing}
    </div>
    <p id="grid-help" hidden>${this.t("organizeGridHelp")}</p>`
  }
}

/** A merged document's mark: B for the first added, C for the next (A is the document organized). */
export const sourceLetter = (source: number) => String.fromCharCode(65 + (source % 26))

customElements.define("docstack-organizer-grid", OrganizerGrid)
