/**
 * `<docstack-compared-side>`: one document of a comparison, read as the viewer reads one
 * (ReadingViewer: its layout and what is said while it waits or when it fails, its pages placed and
 * virtualized, zoom, scrolling), with its changed words highlighted. It renders into the
 * comparison's shadow root, whose styles draw it, and keeps its events to itself: the page
 * embedding the viewer hears of the document the viewer shows, not of a comparison's sides.
 */
import { html, nothing, type PropertyValues } from "lit"
import type { ChangeSide } from "../client/ViewerClient.ts"
import type { ImageLoader } from "../pages/ImageLoader.ts"
import { pageList } from "../pages/PageList.ts"
import { ReadingViewer } from "../ReadingViewer.ts"
import { statusMessage } from "../StatusMessage.ts"
import type { SideHighlights } from "./Changes.ts"
import { positionAt, type ScrollPosition, topOf } from "./ScrollSync.ts"

export class ComparedSide extends ReadingViewer {
  static override properties = {
    ...ReadingViewer.properties,
    documentId: { type: String },
    imageLoader: { attribute: false },
    highlights: { attribute: false },
    currentChange: { type: Number },
    label: { type: String }
  }

  /** The document shown; setting it opens it. */
  declare documentId: string
  /** The comparison's one image queue, so that two sides fetch no more at once than one viewer. */
  declare imageLoader: ImageLoader
  declare highlights: SideHighlights | null
  /** The change shown stronger (an index in the difference's changes), -1 for none. */
  declare currentChange: number
  /** The side's name for a screen reader ("Original: contract.docx"). */
  declare label: string

  constructor() {
    super()
    this.highlights = null
    this.currentChange = -1
    this.label = ""
  }

  protected override createRenderRoot() {
    return this
  }

  /** Heard by the comparison alone: neither bubbling nor composed. */
  protected override dispatch(name: string, detail: unknown) {
    this.dispatchEvent(new CustomEvent(name, { detail }))
  }

  /** What its thumbnails need: the document's pages as this side fetches them. */
  get documentPages() {
    return this.pages
  }

  /** Where the view is, for the other side to follow; null before the document is shown. */
  get position(): ScrollPosition | null {
    const viewport = this.viewport
    const geometry = this.geometry
    if (viewport === null || geometry === null) return null
    const room = viewport.scrollWidth - viewport.clientWidth
    const top = geometry.contentTop(viewport.scrollTop, viewport.clientHeight)
    return positionAt(geometry, top, room > 0 ? viewport.scrollLeft / room : 0)
  }

  /** Shows the same place as the other side: its page, as far down it, as far across. */
  follow(position: ScrollPosition) {
    const viewport = this.viewport
    const geometry = this.geometry
    if (viewport === null || geometry === null) return
    this.scrollToContent(topOf(geometry, position))
    viewport.scrollLeft = position.across * (viewport.scrollWidth - viewport.clientWidth)
    this.onScroll(true)
  }

  /**
   * Brings a change's words into view. They are the side's one find hit for the moment: the viewer
   * reveals a change as it reveals a hit (scrolled only when out of view, a third of the way down).
   */
  revealChange(words: ChangeSide) {
    this.findState = { query: "", hits: [words], current: 0, done: true, error: null }
    this.revealHit()
  }

  /** Ctrl + wheel or a pinch here zooms both sides: the comparison decides, through `zoomAt`. */
  protected override zoomAround(scale: number, clientX: number, clientY: number) {
    this.dispatchEvent(new CustomEvent("zoom-request", { detail: { scale, clientX, clientY } }))
  }

  /** Zooms keeping the point under the pointer where it is. */
  zoomAt(scale: number, clientX: number, clientY: number) {
    super.zoomAround(scale, clientX, clientY)
  }

  protected override readScroll() {
    super.readScroll()
    this.dispatchEvent(new CustomEvent("side-scroll"))
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    super.willUpdate(changed)
    if (changed.has("imageLoader") || changed.has("service")) this.loader = this.imageLoader
    if (changed.has("documentId") && this.documentId) void this.load(this.documentId)
  }

  protected override firstUpdated() {
    const viewport = this.viewport!
    this.resizeObserver.observe(viewport)
    this.gestures.attach(viewport)
  }

  protected override render() {
    const geometry = this.geometry
    const pages = this.pages
    const highlights = this.highlights
    return html`<div class="viewport" tabindex="0" role="region" aria-label=${this.label}
      @scroll=${() => this.onScroll()}>
      ${
      this.status.kind === "ready" && geometry !== null && pages !== null
        ? pageList({
          geometry,
          pages,
          viewport: this.viewport,
          fallbackSize: this.viewportSize,
          range: this.range,
          rotations: this.rotations,
          tiling: this.tiling,
          highlightsOf: (index) => highlights?.on(index, this.currentChange) ?? [],
          overlayOf: () => null,
          t: this.t
        })
        : nothing
    }
      ${statusMessage(this.status, this.t)}
    </div>`
  }
}

customElements.define("docstack-compared-side", ComparedSide)
