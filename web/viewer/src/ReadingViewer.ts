/**
 * What `<docstack-viewer>` is for reading: the document opened (a container's first part too), its
 * pages placed from the layout and scrolled, zoom, find, and the states a reader must understand.
 * DocstackViewer (the element) adds the toolbar, the panels and everything beyond reading to it.
 */
import { LitElement, type PropertyValues } from "lit"
import {
  type ContainerLayout,
  firstDocument,
  isContainer,
  type PageLayout,
  ViewerClient
} from "./client/ViewerClient.ts"
import type { FindBar } from "./find/FindBar.ts"
import { FindController, type FindState, noFind } from "./find/FindController.ts"
import { languageOf, type Translate, translator } from "./i18n/messages.ts"
import { ZoomGestures } from "./input/ZoomGestures.ts"
import { ImageLoader } from "./pages/ImageLoader.ts"
import { CSS_PER_POINT, PAGE_GAP, PageGeometry, scaleFor, type Zoom } from "./pages/PageGeometry.ts"
import { type DocumentPages, MAX_FULL_IMAGE_WIDTH } from "./pages/PageView.ts"
import type { SidebarTab } from "./panels/Sidebar.ts"
import { explainWait, failureStatus, STATE_POLL_MS, type Status } from "./StatusMessage.ts"

/** Pages kept in the DOM beyond the viewport, above and below, in viewport heights. */
const OVERSCAN = 1
/** Below this width (CSS px) the side panel floats over the pages and tools move into a menu. */
const NARROW_WIDTH = 640

export class ReadingViewer extends LitElement {
  static override properties = {
    service: { type: String },
    uuid: { type: String },
    lang: { type: String },
    theme: { type: String, reflect: true },
    narrow: { type: Boolean, reflect: true },
    status: { state: true },
    root: { state: true },
    layout: { state: true },
    geometry: { state: true },
    zoom: { state: true },
    current: { state: true },
    range: { state: true },
    sidebarOpen: { state: true },
    sidebarTab: { state: true },
    findOpen: { state: true },
    findState: { state: true },
    menuOpen: { state: true }
  }

  /** The servlets' base URL. */
  declare service: string
  /** The document to show; setting it opens it. */
  declare uuid: string | null
  declare lang: string
  declare theme: "light" | "dark"
  declare narrow: boolean
  declare status: Status
  /** The document opened, when it is a container (its parts panel stays while a part is read). */
  declare root: ContainerLayout | null
  declare layout: PageLayout | null
  declare geometry: PageGeometry | null
  declare zoom: Zoom
  declare current: number
  declare range: { first: number; last: number }
  declare sidebarOpen: boolean
  declare sidebarTab: SidebarTab
  declare findOpen: boolean
  declare findState: FindState
  declare menuOpen: boolean

  protected client = new ViewerClient("/viewergwt/")
  protected loader = new ImageLoader(this.client)
  protected pages: DocumentPages | null = null
  protected rotations = new Map<number, number>()
  protected finder: FindController | null = null
  protected opening: AbortController | null = null
  protected resizeObserver = new ResizeObserver(() => this.onResize())
  protected gestures = new ZoomGestures((factor, x, y) => this.zoomAround(this.scale * factor, x, y))
  protected scrollFrame = 0
  protected viewportSize = { width: 0, height: 0 }
  protected t: Translate = translator("en")

  constructor() {
    super()
    this.service = "/viewergwt/"
    this.uuid = null
    this.lang = ""
    this.theme = "light"
    this.narrow = false
    this.status = { kind: "idle" }
    this.root = null
    this.layout = null
    this.geometry = null
    this.zoom = "page-width"
    this.current = 0
    this.range = { first: 0, last: -1 }
    this.sidebarOpen = false
    this.sidebarTab = "thumbnails"
    this.findOpen = false
    this.findState = noFind
    this.menuOpen = false
  }

  /**
   * Whether this element draws the annotations itself (the viewer: as objects a reader edits), so
   * that page images are asked without them; otherwise the images carry them.
   */
  protected get drawsAnnotations() {
    return false
  }

  /** A document's pages are shown (`uuid`, the document or the container's part): what else it has can be read now. */
  protected documentShown(_uuid: string) {}

  /** Another document is about to open: what belongs to the one shown goes. */
  protected documentClosing() {}

  /** Shows page `pageNumber` (1-based) at its top, or `top` points below it. */
  async goToPage(pageNumber: number, top = 0): Promise<void> {
    await this.updateComplete
    const geometry = this.geometry
    const viewport = this.viewport
    if (geometry === null || viewport === null) return
    const index = Math.min(geometry.count - 1, Math.max(0, Math.round(pageNumber) - 1))
    this.scrollToContent(geometry.tops[index]! - PAGE_GAP / 2 + top * CSS_PER_POINT * this.scale)
    this.onScroll(true)
  }

  /** A scale (1 = actual size), or "page-width", "page-fit", "actual". */
  async setZoom(zoom: Zoom): Promise<void> {
    this.zoomTo(zoom)
    await this.updateComplete
  }

  /** Focus goes to the page list, so the keyboard works at once. */
  override focus(options?: FocusOptions) {
    const viewport = this.viewport
    if (viewport === null) return
    // Focus given by the page, not by Tab: no ring until the reader moves focus themselves.
    viewport.dataset.quietFocus = ""
    viewport.addEventListener("blur", () => delete viewport.dataset.quietFocus, { once: true })
    viewport.focus(options)
  }

  get pageCount() {
    return this.layout?.pageDimensionsList.length ?? 0
  }

  get scale() {
    return this.geometry?.scale ?? 1
  }

  // ---- Opening ----------------------------------------------------------------------------

  protected async load(uuid: string, keepRoot = false): Promise<void> {
    this.opening?.abort()
    const opening = new AbortController()
    this.opening = opening
    this.finder?.cancel()
    this.finder = null
    this.findState = noFind
    this.layout = null
    this.geometry = null
    this.pages = null
    this.rotations = new Map()
    this.documentClosing()
    if (!keepRoot) this.root = null
    this.setStatus({ kind: "loading", detail: null })
    const waiting = setTimeout(
      () =>
        void explainWait(
          this.client,
          uuid,
          opening.signal,
          this.t,
          () => this.status.kind === "loading",
          (status) => this.setStatus(status)
        ),
      STATE_POLL_MS
    )
    try {
      const layout = await this.client.layout(uuid, opening.signal)
      if (opening.signal.aborted) return
      if (isContainer(layout)) {
        this.root = layout
        this.sidebarOpen = true
        this.sidebarTab = "parts"
        const first = firstDocument(layout)
        if (first === null) return this.setStatus({ kind: "error", error: "other", message: this.t("emptyContainer") })
        return this.load(first, true)
      }
      this.show(uuid, layout)
    } catch (error) {
      if (!opening.signal.aborted) this.fail(error)
    } finally {
      clearTimeout(waiting)
    }
  }

  protected show(uuid: string, layout: PageLayout) {
    this.layout = layout
    this.pages = {
      client: this.client,
      loader: this.loader,
      uuid,
      locale: this.language,
      text: new Map(),
      drawsAnnotations: this.drawsAnnotations
    }
    this.finder = new FindController(this.client, uuid, layout.pageDimensionsList.length, (state, moved) => {
      const before = this.findState
      this.findState = state
      // Told as hits come and once done; a move to another hit is not a new result.
      if (before.query !== state.query || before.hits.length !== state.hits.length || before.done !== state.done) {
        this.dispatch("searchresults", { query: state.query, total: state.hits.length, done: state.done })
      }
      if (moved) this.revealHit()
    })
    this.current = 0
    this.setStatus({ kind: "ready" })
    this.relayout(this.zoom, null)
    const viewport = this.viewport
    if (viewport) viewport.scrollTop = 0
    this.onScroll(true)
    this.dispatch("documentloaded", {
      uuid,
      title: layout.documentTitle ?? "",
      pageCount: layout.pageDimensionsList.length
    })
    this.documentShown(uuid)
  }

  protected fail(error: unknown) {
    const status = failureStatus(error)
    this.setStatus(status)
    this.dispatch("error", { kind: status.error, message: status.message })
  }

  protected setStatus(status: Status) {
    this.status = status
  }

  // ---- Layout, scrolling, zoom ---------------------------------------------------------------

  protected get viewport() {
    return this.renderRoot.querySelector<HTMLElement>(".viewport")
  }

  /** New page geometry for `zoom`, keeping the point under `anchor` (viewport px) where it was. */
  protected relayout(zoom: Zoom, anchor: { x: number; y: number } | null) {
    const layout = this.layout
    const viewport = this.viewport
    // Before a document, the zoom asked is kept for it.
    this.zoom = zoom
    if (layout === null) return
    // A hidden list (another view in its place) is laid out for the size it last had.
    const size = viewport && viewport.clientWidth > 0 && viewport.clientHeight > 0
      ? { width: viewport.clientWidth, height: viewport.clientHeight }
      : this.viewportSize
    const first = layout.pageDimensionsList[this.current] ?? layout.pageDimensionsList[0]
    const scale = scaleFor(zoom, first, this.rotations.get(this.current) ?? 0, size)
    const before = this.geometry
    const geometry = new PageGeometry(layout.pageDimensionsList, scale, new Map(this.rotations))
    this.geometry = geometry
    if (before !== null && viewport !== null && anchor !== null) {
      const y = before.contentTop(viewport.scrollTop, size.height) + anchor.y
      const index = before.pageAt(y)
      const within = (y - before.tops[index]!) / before.heights[index]!
      const x = viewport.scrollLeft + anchor.x - before.left(index, size.width)
      const across = x / before.widths[index]!
      // The list's new size must be in the DOM before the scroll position can use it.
      this.updateComplete.then(() => {
        this.scrollToContent(geometry.tops[index]! + within * geometry.heights[index]! - anchor.y)
        viewport.scrollLeft = geometry.left(index, size.width) + across * geometry.widths[index]! - anchor.x
        this.onScroll(true)
      })
    } else {
      this.updateComplete.then(() => this.onScroll(true))
    }
    if (before === null || before.scale !== scale) this.dispatch("zoomchange", { zoom: scale, mode: zoom })
  }

  protected scrollToContent(top: number) {
    const viewport = this.viewport
    const geometry = this.geometry
    if (viewport === null || geometry === null) return
    viewport.scrollTop = geometry.scrollTopFor(top, viewport.clientHeight)
  }

  protected zoomTo(zoom: Zoom) {
    const viewport = this.viewport
    this.relayout(zoom, viewport ? { x: viewport.clientWidth / 2, y: 0 } : null)
  }

  /** Ctrl+wheel and pinch: the point under the fingers or the pointer stays put. */
  protected zoomAround(scale: number, clientX: number, clientY: number) {
    const viewport = this.viewport
    if (viewport === null || this.layout === null) return
    const box = viewport.getBoundingClientRect()
    this.relayout(scale, { x: clientX - box.left, y: clientY - box.top })
  }

  protected onScroll(now = false) {
    if (now) return this.readScroll()
    if (this.scrollFrame === 0) {
      this.scrollFrame = requestAnimationFrame(() => {
        this.scrollFrame = 0
        this.readScroll()
      })
    }
  }

  protected readScroll() {
    const viewport = this.viewport
    const geometry = this.geometry
    if (viewport === null || geometry === null || geometry.count === 0) return
    const { clientHeight } = viewport
    const scrollTop = geometry.contentTop(viewport.scrollTop, clientHeight)
    const range = geometry.range(scrollTop - clientHeight * OVERSCAN, scrollTop + clientHeight * (1 + OVERSCAN))
    if (range.first !== this.range.first || range.last !== this.range.last) this.range = range
    const current = geometry.currentPage(scrollTop, clientHeight)
    if (current !== this.current) {
      this.current = current
      this.dispatch("pagechange", { pageNumber: current + 1 })
    }
    // Tiles need each page's visible part, and a capped list moves its pages on every scroll; else
    // "in view or not" is enough.
    if (this.tiling || geometry.listHeight < geometry.totalHeight) this.requestUpdate()
  }

  protected get tiling() {
    const geometry = this.geometry
    return geometry !== null && geometry.maxWidth * (globalThis.devicePixelRatio || 1) > MAX_FULL_IMAGE_WIDTH
  }

  protected onResize() {
    const viewport = this.viewport
    this.narrow = this.clientWidth < NARROW_WIDTH
    if (viewport === null) return
    const size = { width: viewport.clientWidth, height: viewport.clientHeight }
    // A hidden list (another view shown in its place) has no size to fit: the reader's zoom and
    // place wait for it to come back.
    if (size.width === 0 || size.height === 0) return
    if (size.width === this.viewportSize.width && size.height === this.viewportSize.height) return
    this.viewportSize = size
    if (typeof this.zoom !== "number") this.relayout(this.zoom, { x: 0, y: 0 })
    else this.onScroll(true)
  }

  // ---- Find -------------------------------------------------------------------------------

  protected revealHit() {
    const { hits, current } = this.findState
    const hit = hits[current]
    const geometry = this.geometry
    const viewport = this.viewport
    if (hit === undefined || geometry === null || viewport === null) return
    const rect = hit.rects[0]
    const top = geometry.tops[hit.pageNumber]! + (rect ? rect.y * CSS_PER_POINT * this.scale : 0)
    const viewTop = geometry.contentTop(viewport.scrollTop, viewport.clientHeight)
    // Scrolled only when the hit is not in view, and then to a third of the way down.
    if (top < viewTop + 20 || top > viewTop + viewport.clientHeight - 40) {
      this.scrollToContent(top - viewport.clientHeight / 3)
      this.onScroll(true)
    }
  }

  protected toggleFind(open = !this.findOpen) {
    this.findOpen = open
    if (open) {
      // The bar renders in its own update, after the viewer's: focus once both are done.
      this.updateComplete.then(async () => {
        const bar = this.renderRoot.querySelector<FindBar>("docstack-find-bar")
        await bar?.updateComplete
        bar?.focusInput()
      })
    } else {
      this.finder?.close()
      this.viewport?.focus()
    }
  }

  protected dispatch(name: string, detail: unknown) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }))
  }

  // ---- Lifecycle --------------------------------------------------------------------------

  protected get language() {
    return languageOf(this.lang || document.documentElement.lang)
  }

  override connectedCallback() {
    super.connectedCallback()
    this.resizeObserver.observe(this)
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    this.resizeObserver.disconnect()
    this.opening?.abort()
    this.finder?.cancel()
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has("lang")) this.t = translator(this.language)
    if (changed.has("service")) {
      this.client = new ViewerClient(this.service)
      this.loader = new ImageLoader(this.client)
    }
    if (changed.has("uuid") && this.uuid && this.uuid !== this.pages?.uuid && this.status.kind !== "loading") {
      void this.load(this.uuid)
    }
  }
}
