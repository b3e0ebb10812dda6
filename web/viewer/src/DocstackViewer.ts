/**
 * `<docstack-viewer>`: a document from the viewer service, read in the browser. The page list is
 * sized from the layout at once and only pages near the viewport are in the DOM, so a 20,000-page
 * document costs what a 4-page one does. Public API and events: docs/viewer.md, "Embedding".
 */
import { html, LitElement, nothing, type PropertyValues } from "lit"
import {
  type ContainerLayout,
  type DownloadKind,
  firstDocument,
  isContainer,
  type PageLayout,
  type SearchOptions,
  ViewerClient
} from "./client/ViewerClient.ts"
import { FindBar } from "./find/FindBar.ts"
import "./find/FindBar.ts"
import { FindController, type FindState, highlightsOn, noFind } from "./find/FindController.ts"
import { languageOf, type Translate, translator } from "./i18n/messages.ts"
import { type Command, commandOf } from "./input/Shortcuts.ts"
import { ZoomGestures } from "./input/ZoomGestures.ts"
import { ImageLoader } from "./pages/ImageLoader.ts"
import { CSS_PER_POINT, PAGE_GAP, PageGeometry, scaleFor, stepScale, type Zoom } from "./pages/PageGeometry.ts"
import { pageList } from "./pages/PageList.ts"
import { type DocumentPages, MAX_FULL_IMAGE_WIDTH } from "./pages/PageView.ts"
import { sidebar, type SidebarTab } from "./panels/Sidebar.ts"
import { explainWait, failureStatus, STATE_POLL_MS, type Status, statusMessage } from "./StatusMessage.ts"
import { toolbar } from "./toolbar/Toolbar.ts"
import { viewerStyles } from "./ViewerStyles.ts"

/** Pages kept in the DOM beyond the viewport, above and below, in viewport heights. */
const OVERSCAN = 1
/** Below this width (CSS px) the side panel floats over the pages and tools move into a menu. */
const NARROW_WIDTH = 640

export type OpenRequest =
  | { readonly uuid: string }
  | { readonly url: string | ReadonlyArray<string>; readonly title?: string }

export class DocstackViewer extends LitElement {
  static override styles = viewerStyles
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

  private client = new ViewerClient("/viewergwt/")
  private loader = new ImageLoader(this.client)
  private pages: DocumentPages | null = null
  private rotations = new Map<number, number>()
  private finder: FindController | null = null
  private opening: AbortController | null = null
  private resizeObserver = new ResizeObserver(() => this.onResize())
  private gestures = new ZoomGestures((factor, x, y) => this.zoomAround(this.scale * factor, x, y))
  private scrollFrame = 0
  private viewportSize = { width: 0, height: 0 }
  private t: Translate = translator("en")

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
    this.addEventListener("keydown", (event) => this.onKey(event))
  }

  // ---- Public API (docs/viewer.md, "Embedding") --------------------------------------------

  /**
   * Opens a document by the viewer's ID, or documents by URL (several become one container). Rejects
   * when it cannot be shown, with the `error` event's kind as the error's name; the element says why.
   */
  async open(request: OpenRequest): Promise<void> {
    if ("uuid" in request) {
      this.uuid = request.uuid
      await this.load(request.uuid)
    } else {
      const urls = typeof request.url === "string" ? [request.url] : [...request.url]
      this.setStatus({ kind: "loading", detail: null })
      try {
        const uuid = await this.client.openUrls(urls, request.title)
        this.uuid = uuid
        await this.load(uuid)
      } catch (error) {
        this.fail(error)
      }
    }
    const status = this.status
    if (status.kind === "error") throw Object.assign(new Error(status.message), { name: status.error })
  }

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

  /** Finds `text` in the document; answers the number of matches once the search is complete. */
  async search(text: string, options: SearchOptions = {}): Promise<number> {
    this.findOpen = true
    if (this.finder === null) return 0
    await this.finder.find(text, options, this.current)
    return this.finder.state.hits.length
  }

  /** Turns the current page (or all pages) by `degrees` clockwise (a multiple of 90). */
  rotate(degrees = 90, options: { readonly allPages?: boolean } = {}) {
    const layout = this.layout
    if (layout === null) return
    // A new map, so the thumbnails see the change.
    const rotations = new Map(this.rotations)
    const turn = (index: number) => rotations.set(index, ((rotations.get(index) ?? 0) + degrees + 360) % 360)
    if (options.allPages) layout.pageDimensionsList.forEach((_, index) => turn(index))
    else turn(this.current)
    this.rotations = rotations
    this.relayout(this.zoom, { x: 0, y: 0 })
  }

  /** Downloads the original file or its PDF rendition. */
  download(kind: DownloadKind = "original") {
    if (this.uuid === null) return
    const link = document.createElement("a")
    link.href = this.client.downloadUrl(this.layout?.documentId.id ?? this.uuid, kind)
    link.download = ""
    link.rel = "noopener"
    this.renderRoot.append(link)
    link.click()
    link.remove()
  }

  /** Prints every page: the printPage servlet in a hidden frame prints itself once its images are in. */
  print() {
    const layout = this.layout
    if (layout === null) return
    this.renderRoot.querySelector("iframe.print")?.remove()
    const frame = document.createElement("iframe")
    frame.className = "print"
    frame.title = this.t("print")
    frame.style.cssText = "position:fixed;width:0;height:0;border:0;visibility:hidden"
    // 1000 pixels over a 700 CSS px sheet width: sharp on paper at about 150 dpi.
    frame.src = this.client.printUrl(layout.documentId.id, layout.pageDimensionsList.length, 1000, 700)
    this.renderRoot.append(frame)
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

  private async load(uuid: string, keepRoot = false): Promise<void> {
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

  private show(uuid: string, layout: PageLayout) {
    this.layout = layout
    this.pages = { client: this.client, loader: this.loader, uuid, locale: this.language, text: new Map() }
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
  }

  private fail(error: unknown) {
    const status = failureStatus(error)
    this.setStatus(status)
    this.dispatch("error", { kind: status.error, message: status.message })
  }

  private setStatus(status: Status) {
    this.status = status
  }

  // ---- Layout, scrolling, zoom ---------------------------------------------------------------

  private get viewport() {
    return this.renderRoot.querySelector<HTMLElement>(".viewport")
  }

  /** New page geometry for `zoom`, keeping the point under `anchor` (viewport px) where it was. */
  private relayout(zoom: Zoom, anchor: { x: number; y: number } | null) {
    const layout = this.layout
    const viewport = this.viewport
    // Before a document, the zoom asked is kept for it.
    this.zoom = zoom
    if (layout === null) return
    const size = viewport ? { width: viewport.clientWidth, height: viewport.clientHeight } : this.viewportSize
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

  private scrollToContent(top: number) {
    const viewport = this.viewport
    const geometry = this.geometry
    if (viewport === null || geometry === null) return
    viewport.scrollTop = geometry.scrollTopFor(top, viewport.clientHeight)
  }

  private zoomTo(zoom: Zoom) {
    const viewport = this.viewport
    this.relayout(zoom, viewport ? { x: viewport.clientWidth / 2, y: 0 } : null)
  }

  /** Ctrl+wheel and pinch: the point under the fingers or the pointer stays put. */
  private zoomAround(scale: number, clientX: number, clientY: number) {
    const viewport = this.viewport
    if (viewport === null || this.layout === null) return
    const box = viewport.getBoundingClientRect()
    this.relayout(scale, { x: clientX - box.left, y: clientY - box.top })
  }

  private onScroll(now = false) {
    if (now) return this.readScroll()
    if (this.scrollFrame === 0) {
      this.scrollFrame = requestAnimationFrame(() => {
        this.scrollFrame = 0
        this.readScroll()
      })
    }
  }

  private readScroll() {
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

  private get tiling() {
    const geometry = this.geometry
    return geometry !== null && geometry.maxWidth * (globalThis.devicePixelRatio || 1) > MAX_FULL_IMAGE_WIDTH
  }

  private onResize() {
    const viewport = this.viewport
    this.narrow = this.clientWidth < NARROW_WIDTH
    if (viewport === null) return
    const size = { width: viewport.clientWidth, height: viewport.clientHeight }
    if (size.width === this.viewportSize.width && size.height === this.viewportSize.height) return
    this.viewportSize = size
    if (typeof this.zoom !== "number") this.relayout(this.zoom, { x: 0, y: 0 })
    else this.onScroll(true)
  }

  // ---- Find -------------------------------------------------------------------------------

  private revealHit() {
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

  private toggleFind(open = !this.findOpen) {
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

  // ---- Input ------------------------------------------------------------------------------

  private onKey(event: KeyboardEvent) {
    const target = event.composedPath()[0] as HTMLElement | undefined
    const inTextField = target instanceof HTMLInputElement || target instanceof HTMLSelectElement ||
      target instanceof HTMLTextAreaElement
    if (event.key === "Escape" && this.menuOpen) return (this.menuOpen = false)
    const command = commandOf(event, inTextField)
    if (command === undefined || (command.kind !== "find" && this.layout === null)) return
    event.preventDefault()
    this.run(command)
  }

  private run(command: Command) {
    const viewport = this.viewport
    switch (command.kind) {
      case "page": {
        const last = this.pageCount - 1
        const to = { next: this.current + 1, previous: this.current - 1, first: 0, last }[command.to]
        return void this.goToPage(Math.min(last, Math.max(0, to)) + 1)
      }
      case "screen":
        return viewport?.scrollBy({ top: command.direction * viewport.clientHeight * 0.9 })
      case "zoom":
        return this.zoomTo(command.to === "reset" ? "page-width" : stepScale(this.scale, command.to === "in" ? 1 : -1))
      case "find":
        return this.toggleFind(true)
      case "find-move":
        return this.finder?.move(command.direction)
      case "rotate":
        return this.rotate(90)
    }
  }

  private dispatch(name: string, detail: unknown) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }))
  }

  // ---- Lifecycle --------------------------------------------------------------------------

  private get language() {
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

  protected override firstUpdated() {
    const viewport = this.viewport!
    this.resizeObserver.observe(viewport)
    this.gestures.attach(viewport)
  }

  protected override render() {
    const t = this.t
    const layout = this.layout
    const actions = {
      toggleSidebar: () => (this.sidebarOpen = !this.sidebarOpen),
      goTo: (index: number) => void this.goToPage(index + 1),
      zoomStep: (direction: 1 | -1) => this.zoomTo(stepScale(this.scale, direction)),
      setZoom: (zoom: Zoom) => this.zoomTo(zoom),
      rotate: (allPages: boolean) => this.rotate(90, { allPages }),
      toggleFind: () => this.toggleFind(),
      download: (kind: DownloadKind) => this.download(kind),
      print: () => this.print(),
      fullScreen: () => (document.fullscreenElement ? document.exitFullscreen() : this.requestFullscreen()),
      toggleDark: () => (this.theme = this.theme === "dark" ? "light" : "dark"),
      toggleMenu: () => (this.menuOpen = !this.menuOpen)
    }
    return html`
      ${
      toolbar({
        t,
        title: [this.root?.documentTitle, layout?.documentTitle].filter((part) => part).join(" › "),
        pageCount: this.pageCount,
        current: this.current,
        zoom: this.zoom,
        scale: this.scale,
        sidebarOpen: this.sidebarOpen,
        findOpen: this.findOpen,
        dark: this.theme === "dark",
        menuOpen: this.menuOpen,
        narrow: this.narrow,
        hasDocument: layout !== null
      }, actions)
    }
      ${
      this.findOpen
        ? html`<docstack-find-bar .t=${t} .state=${this.findState}
            @find=${(event: CustomEvent) =>
          void this.finder?.find(event.detail.query, event.detail.options, this.current)}
            @find-move=${(event: CustomEvent) => this.finder?.move(event.detail.direction)}
            @find-close=${() => this.toggleFind(false)}></docstack-find-bar>`
        : nothing
    }
      <div class="body">
        ${
      this.sidebarOpen
        ? sidebar({
          t,
          tab: this.sidebarTab,
          pages: this.pages,
          layout,
          root: this.root,
          rotations: this.rotations,
          current: this.current,
          client: this.client,
          selectTab: (tab) => (this.sidebarTab = tab),
          navigate: (index, top) => {
            if (this.narrow) this.sidebarOpen = false
            void this.goToPage(index + 1, top ?? 0)
          },
          openPart: (id) => void this.load(id, true)
        })
        : nothing
    }
        <div class="viewport" tabindex="0" role="region" aria-label=${layout?.documentTitle ?? t("pages")}
          @scroll=${() => this.onScroll()}
          @page-painted=${(event: CustomEvent) =>
      this.dispatch("pagerendered", { pageNumber: event.detail.index + 1, width: event.detail.width })}>
          ${
      this.status.kind === "ready" && this.geometry !== null && this.pages !== null
        ? pageList({
          geometry: this.geometry,
          pages: this.pages,
          viewport: this.viewport,
          fallbackSize: this.viewportSize,
          range: this.range,
          rotations: this.rotations,
          tiling: this.tiling,
          highlightsOf: (index) => highlightsOn(this.findState, index),
          t
        })
        : nothing
    }
          ${statusMessage(this.status, t)}
        </div>
      </div>`
  }
}

customElements.define("docstack-viewer", DocstackViewer)
