/**
 * One page of the list while it is near the viewport: its image at the displayed width times the
 * device pixel ratio, tiles of the visible part past MAX_FULL_IMAGE_WIDTH, its text layer and the
 * find highlights. It renders into its parent's shadow root (no shadow of its own) so the viewer's
 * styles and a test's selectors reach it.
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from "lit"
import type { PageContent, PageDimensions, Rect, ViewerClient } from "../client/ViewerClient.ts"
import { type ImageLoader, type ImageRequest, Priority } from "./ImageLoader.ts"
import { CSS_PER_POINT, imageSize, imageWidthFor } from "./PageGeometry.ts"
import { fillTextLayer } from "./TextLayer.ts"

/** Past this width (device pixels) a page is drawn in tiles of its visible part, not whole. */
export const MAX_FULL_IMAGE_WIDTH = 2400
/** The whole page under the tiles, shown until they arrive and where they are not needed. */
const BACKDROP_WIDTH = 1200
const TILE_SIZE = 512
/** A sharper image after a zoom waits for the zoom to settle. */
const SHARPEN_DELAY_MS = 150

/** What every page of a document shares: the service, the image queue, the text already read. */
export interface DocumentPages {
  readonly client: ViewerClient
  readonly loader: ImageLoader
  readonly uuid: string
  readonly locale: string
  readonly text: Map<number, Promise<PageContent>>
  /**
   * The viewer draws the annotations itself (as objects a reader can select and edit): page images
   * are then asked without them, so none shows twice.
   */
  readonly drawsAnnotations: boolean
}

export interface Highlight {
  readonly rects: ReadonlyArray<Rect>
  readonly current: boolean
  /** What the highlight shows, as a class beside `hit` (a comparison's `deleted` or `inserted`); a find hit has none. */
  readonly kind?: string
}

interface Tile {
  readonly key: string
  readonly rect: Rect
  readonly width: number
}

export class PageView extends LitElement {
  static override properties = {
    pages: { attribute: false },
    index: { type: Number },
    dimensions: { attribute: false },
    scale: { type: Number },
    userRotation: { type: Number },
    outer: { attribute: false },
    visibleRect: { attribute: false },
    highlights: { attribute: false },
    overlay: { attribute: false },
    label: { type: String }
  }

  declare pages: DocumentPages
  declare index: number
  declare dimensions: PageDimensions
  declare scale: number
  declare userRotation: number
  /** The page's box in the list, CSS pixels (rotation applied). */
  declare outer: { top: number; left: number; width: number; height: number }
  /** The part of the page in view, in the box's CSS pixels; null when none is. */
  declare visibleRect: Rect | null
  declare highlights: ReadonlyArray<Highlight>
  /** What is drawn over the text layer: the annotations. */
  declare overlay: TemplateResult | null
  declare label: string

  private image: { url: string; objectUrl: string } | null = null
  private pendingImage: { url: string; request: ImageRequest } | null = null
  private tiles = new Map<string, { objectUrl: string | null; request: ImageRequest | null; tile: Tile }>()
  private sharpenTimer: ReturnType<typeof setTimeout> | undefined
  /** The text request, from the first paint until it is answered or the page leaves the DOM. */
  private text: AbortController | "done" | null = null

  constructor() {
    super()
    this.highlights = []
    this.overlay = null
    this.userRotation = 0
    this.visibleRect = null
  }

  protected override createRenderRoot() {
    return this
  }

  override connectedCallback() {
    super.connectedCallback()
    this.classList.add("page")
    this.setAttribute("role", "group")
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    // The page list moves a kept page (pages above it leaving the DOM) by taking it out and putting
    // it back at once: only a page still out after that has left for good and lets go of its images.
    queueMicrotask(() => {
      if (!this.isConnected) this.release()
    })
  }

  private release() {
    clearTimeout(this.sharpenTimer)
    this.pendingImage?.request.cancel()
    this.pendingImage = null
    if (this.image) URL.revokeObjectURL(this.image.objectUrl)
    this.image = null
    for (const { request, objectUrl } of this.tiles.values()) {
      request?.cancel()
      if (objectUrl) URL.revokeObjectURL(objectUrl)
    }
    this.tiles.clear()
    if (this.text instanceof AbortController) this.text.abort()
    this.text = null
  }

  /** The image's size in CSS pixels (the page's own rotation applied, the user's not). */
  private get innerSize() {
    const size = imageSize(this.dimensions)
    return { width: size.width * CSS_PER_POINT * this.scale, height: size.height * CSS_PER_POINT * this.scale }
  }

  /** The width in device pixels the page would be drawn at now. */
  private get wantedWidth() {
    return imageWidthFor(this.innerSize.width)
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    this.dataset.pageNumber = String(this.index + 1)
    this.setAttribute("aria-label", this.label)
    if (changed.has("outer")) {
      const { top, left, width, height } = this.outer
      this.style.cssText = `top:${top}px;left:${left}px;width:${width}px;height:${height}px`
    }
  }

  protected override updated(changed: PropertyValues<this>) {
    if (changed.has("scale") || changed.has("pages") || changed.has("index") || changed.has("dimensions")) {
      this.scheduleImage(this.image === null ? 0 : SHARPEN_DELAY_MS)
    }
    if (changed.has("visibleRect") || changed.has("scale") || changed.has("userRotation")) this.updateTiles()
  }

  private scheduleImage(delay: number) {
    clearTimeout(this.sharpenTimer)
    if (delay === 0) this.loadImage()
    else this.sharpenTimer = setTimeout(() => this.loadImage(), delay)
  }

  private loadImage() {
    const width = Math.min(this.wantedWidth, MAX_FULL_IMAGE_WIDTH < this.wantedWidth ? BACKDROP_WIDTH : Infinity)
    const url = this.pages.client.imageUrl(this.pages.uuid, this.index, width, !this.pages.drawsAnnotations)
    if (this.image?.url === url || this.pendingImage?.url === url) return
    this.pendingImage?.request.cancel()
    const request = this.pages.loader.load(url, this.visibleRect ? Priority.visible : Priority.nearby)
    this.pendingImage = { url, request }
    request.promise.then((objectUrl) => {
      if (this.pendingImage?.request !== request) return URL.revokeObjectURL(objectUrl)
      this.pendingImage = null
      if (this.image) URL.revokeObjectURL(this.image.objectUrl)
      this.image = { url, objectUrl }
      this.requestUpdate()
      this.updateComplete.then(() => this.painted(width))
    }, (error: unknown) => {
      if (this.pendingImage?.request !== request) return
      this.pendingImage = null
      if ((error as Error).name !== "AbortError") {
        this.dispatchEvent(new CustomEvent("page-failed", { bubbles: true, detail: { index: this.index, error } }))
      }
    })
  }

  /** Tells the viewer once the image is decoded and laid out: what a reader sees. */
  private painted(width: number) {
    const img = this.querySelector<HTMLImageElement>("img.page-image")
    const done = () => {
      this.dispatchEvent(new CustomEvent("page-painted", { bubbles: true, detail: { index: this.index, width } }))
      // The text only after the image: a page scrolled past in a fast scroll asks for neither.
      if (this.text === null) void this.loadText()
    }
    if (img === null) return done()
    img.decode().then(done, done)
  }

  /** At high zoom: the tiles of the visible part at full sharpness; the backdrop stands for the rest. */
  private updateTiles() {
    const width = this.wantedWidth
    const wanted = new Map<string, Tile>()
    if (width > MAX_FULL_IMAGE_WIDTH && this.visibleRect !== null) {
      const inner = this.innerSize
      const ratio = width / inner.width
      const visible = innerRect(this.visibleRect, inner, this.userRotation)
      const height = Math.round(inner.height * ratio)
      const fromX = Math.floor((visible.x * ratio) / TILE_SIZE)
      const toX = Math.floor(Math.min(width - 1, (visible.x + visible.w) * ratio) / TILE_SIZE)
      const fromY = Math.floor((visible.y * ratio) / TILE_SIZE)
      const toY = Math.floor(Math.min(height - 1, (visible.y + visible.h) * ratio) / TILE_SIZE)
      for (let ty = fromY; ty <= toY; ty++) {
        for (let tx = fromX; tx <= toX; tx++) {
          const rect = {
            x: tx * TILE_SIZE,
            y: ty * TILE_SIZE,
            w: Math.min(TILE_SIZE, width - tx * TILE_SIZE),
            h: Math.min(TILE_SIZE, height - ty * TILE_SIZE)
          }
          if (rect.w <= 0 || rect.h <= 0) continue
          const key = `${width}:${tx}:${ty}`
          wanted.set(key, { key, rect, width })
        }
      }
    }
    for (const [key, held] of this.tiles) {
      if (wanted.has(key)) continue
      held.request?.cancel()
      if (held.objectUrl) URL.revokeObjectURL(held.objectUrl)
      this.tiles.delete(key)
    }
    for (const [key, tile] of wanted) {
      if (this.tiles.has(key)) continue
      const { client, uuid, locale, drawsAnnotations } = this.pages
      const url = client.cropUrl(uuid, this.index, tile.width, tile.rect, locale, !drawsAnnotations)
      const request = this.pages.loader.load(url, Priority.tile)
      const held = { objectUrl: null as string | null, request: request as ImageRequest | null, tile }
      this.tiles.set(key, held)
      request.promise.then((objectUrl) => {
        if (this.tiles.get(key) !== held) return URL.revokeObjectURL(objectUrl)
        held.objectUrl = objectUrl
        held.request = null
        this.requestUpdate()
      }, () => undefined)
    }
    this.requestUpdate()
  }

  private async loadText() {
    const controller = new AbortController()
    this.text = controller
    const { text, client, uuid } = this.pages
    let content = text.get(this.index)
    if (content === undefined) {
      content = client.pageContent(uuid, this.index, controller.signal)
      text.set(this.index, content)
      // A failed or cancelled read may succeed later (a conversion that finished, the page back in view).
      content.catch(() => text.get(this.index) === content && text.delete(this.index))
    }
    try {
      const runs = (await content).positionTextList
      await this.updateComplete
      if (this.text !== controller) return
      this.text = "done"
      const layer = this.querySelector<HTMLElement>(".text-layer")
      if (layer) fillTextLayer(layer, runs)
    } catch {
      // A page without text positions still shows its image.
    }
  }

  protected override render() {
    const inner = this.innerSize
    const outer = this.outer
    const innerStyle = `width:${inner.width}px;height:${inner.height}px;` +
      `left:${(outer.width - inner.width) / 2}px;top:${(outer.height - inner.height) / 2}px;` +
      `transform:rotate(${this.userRotation}deg)`
    const layerScale = `transform:scale(${CSS_PER_POINT * this.scale})`
    const wantedWidth = this.wantedWidth
    // One sheet under the night filter (inversion), so what is drawn over the image (annotations, a
    // highlighter's multiply) is inverted together with it rather than blended with an inverted page.
    return html`<div class="page-inner" style=${innerStyle}><div class="sheet">
      ${
      this.image
        ? html`<img class="page-image" src=${this.image.objectUrl} alt="" aria-hidden="true" draggable="false">`
        : html`<div class="page-placeholder" aria-hidden="true"></div>`
    }
      ${
      [...this.tiles.values()].filter((held) => held.objectUrl !== null && held.tile.width === wantedWidth).map((
        { objectUrl, tile }
      ) => {
        const ratio = inner.width / tile.width
        return html`<img class="tile" alt="" aria-hidden="true" draggable="false" src=${objectUrl!} style=${`left:${
          tile.rect.x * ratio
        }px;top:${tile.rect.y * ratio}px;width:${tile.rect.w * ratio}px;height:${tile.rect.h * ratio}px`}>`
      })
    }
      <div class="highlights" style=${layerScale} aria-hidden="true">${
      this.highlights.flatMap((highlight) =>
        highlight.rects.map((rect) =>
          html`<div class=${`hit${highlight.kind ? ` ${highlight.kind}` : ""}${
            highlight.current ? " current" : ""
          }`} style=${`left:${rect.x}px;top:${rect.y}px;width:${rect.w}px;height:${rect.h}px`}></div>`
        )
      )
    }</div>
      <div class="text-layer" style=${layerScale}></div>
      ${this.overlay ?? nothing}
    </div></div>${this.image ? nothing : html`<span class="page-loading" aria-hidden="true"></span>`}`
  }
}

/** The visible part of the page box (CSS px, user rotation applied) in the unrotated image's CSS px. */
export const innerRect = (rect: Rect, inner: { width: number; height: number }, rotation: number): Rect => {
  const { x, y, w, h } = rect
  switch (((rotation % 360) + 360) % 360) {
    case 90:
      return { x: y, y: inner.height - x - w, w: h, h: w }
    case 180:
      return { x: inner.width - x - w, y: inner.height - y - h, w, h }
    case 270:
      return { x: inner.width - y - h, y: x, w: h, h: w }
    default:
      return rect
  }
}

customElements.define("docstack-page", PageView)
