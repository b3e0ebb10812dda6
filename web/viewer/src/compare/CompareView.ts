/**
 * `<docstack-compare>`: the document shown beside a second one (or another version of it), as a
 * reviewer compares a contract with its revision: both side by side, scrolled together, the words
 * taken out highlighted on the left and those put in on the right, a list of the changes, next and
 * previous, the changed pages badged in the thumbnails, and the broker's image comparison for what
 * text cannot tell (pictures, layout, scans). The viewer shows it instead of its pages
 * (DocstackViewer's `view`); `close-view` goes back, `run-order` asks the viewer to run an order.
 */
import { html, LitElement, nothing, type PropertyValues } from "lit"
import type { Difference, PageLayout, ViewerClient } from "../client/ViewerClient.ts"
import type { Language, MessageKey, Translate } from "../i18n/messages.ts"
import { commandOf } from "../input/Shortcuts.ts"
import { ImageLoader } from "../pages/ImageLoader.ts"
import { stepScale, type Zoom } from "../pages/PageGeometry.ts"
import "../panels/ThumbnailsPanel.ts"
import { icon, type IconName } from "../toolbar/Icons.ts"
import { countByType, otherSide, type Side, SideHighlights, sideOf, stepChange } from "./Changes.ts"
import "./ChangeList.ts"
import type { ComparedSide } from "./ComparedSide.ts"
import "./ComparedSide.ts"
import { compareStyles } from "./CompareStyles.ts"
import "./DocumentChooser.ts"
import { rememberDocument } from "../client/RecentDocuments.ts"

/** Below this width (CSS px) the two sides stack and the side panel floats over them. */
const NARROW_WIDTH = 640

const SIDE_NAMES: Readonly<Record<Side, MessageKey>> = { left: "sideOriginal", right: "sideRevised" }

/** What the comparison is doing, said in the toolbar and the list of changes. */
type Comparing =
  | { readonly kind: "opening" }
  | { readonly kind: "comparing" }
  | {
    readonly kind: "compared"
    readonly difference: Difference
    readonly highlights: Readonly<Record<Side, SideHighlights>>
  }
  | { readonly kind: "failed"; readonly message: string }

/** A side as the comparison knows it from its events. */
interface SideState {
  /** The document it has shown (documentloaded), null before. */
  readonly opened: string | null
  readonly title: string
  readonly pageCount: number
  /** The page it is on, 0-based. */
  readonly page: number
}

const NO_SIDE: SideState = { opened: null, title: "", pageCount: 0, page: 0 }

/**
 * What each document was last compared with, while the page is open: the view closed by mistake
 * (or to read the result of an image comparison) comes back to the same two documents.
 */
const lastCompared = new Map<string, { readonly other: string; readonly thisOnLeft: boolean }>()

export class CompareView extends LitElement {
  static override styles = compareStyles
  static override properties = {
    client: { attribute: false },
    uuid: { type: String },
    layout: { attribute: false },
    t: { attribute: false },
    language: { type: String },
    narrow: { type: Boolean, reflect: true },
    other: { state: true },
    thisOnLeft: { state: true },
    comparing: { state: true },
    current: { state: true },
    sides: { state: true },
    linked: { state: true },
    zoom: { state: true },
    panelOpen: { state: true },
    panelTab: { state: true },
    thumbnailSide: { state: true }
  }

  declare client: ViewerClient
  /** The document the viewer shows. */
  declare uuid: string
  declare layout: PageLayout
  declare t: Translate
  declare language: Language
  declare narrow: boolean
  /** The second document, null while it is being chosen. */
  declare other: string | null
  /** The document shown is the original (left); swapped, it is the revision (right). */
  declare thisOnLeft: boolean
  declare comparing: Comparing
  /** The change shown, an index in the difference's changes; -1 for none. */
  declare current: number
  declare sides: Readonly<Record<Side, SideState>>
  /** Scrolling one side scrolls the other to the same page and place. */
  declare linked: boolean
  declare zoom: Zoom
  declare panelOpen: boolean
  declare panelTab: "changes" | "thumbnails"
  declare thumbnailSide: Side

  private loader: ImageLoader | null = null
  private request: AbortController | null = null
  /** The side the reader last scrolled or touched: it leads, the other follows. None after a move made here. */
  private leader: Side | null = null
  private measured = false
  private readonly resizeObserver = new ResizeObserver(() => this.measure())

  constructor() {
    super()
    this.narrow = false
    this.other = null
    this.thisOnLeft = true
    this.comparing = { kind: "opening" }
    this.current = -1
    this.sides = { left: NO_SIDE, right: NO_SIDE }
    this.linked = true
    this.zoom = "page-width"
    this.panelOpen = true
    this.panelTab = "changes"
    this.thumbnailSide = "left"
    this.addEventListener("keydown", (event) => this.onKey(event))
  }

  /** The documents compared, left (original) and right (revision); null for the one not chosen yet. */
  get ids(): Readonly<Record<Side, string | null>> {
    return this.thisOnLeft ? { left: this.uuid, right: this.other } : { left: this.other, right: this.uuid }
  }

  private side(side: Side) {
    return this.renderRoot.querySelector<ComparedSide>(`docstack-compared-side[data-side=${side}]`)
  }

  override connectedCallback() {
    super.connectedCallback()
    this.setAttribute("role", "region")
    this.resizeObserver.observe(this)
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    this.resizeObserver.disconnect()
    this.request?.abort()
  }

  private measure() {
    this.narrow = this.clientWidth < NARROW_WIDTH
    // The list of changes is open at first where there is room for it beside the pages.
    if (!this.measured && this.clientWidth > 0) {
      this.measured = true
      this.panelOpen = !this.narrow
    }
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has("t")) this.setAttribute("aria-label", this.t("compareTitle"))
    if (changed.has("client")) this.loader = new ImageLoader(this.client)
    if (changed.has("uuid")) {
      const last = lastCompared.get(this.uuid)
      this.other = last?.other ?? null
      this.thisOnLeft = last?.thisOnLeft ?? true
    }
    if (changed.has("uuid") || changed.has("other") || changed.has("thisOnLeft")) {
      // Other documents: the difference asked for the former ones is of no use.
      this.request?.abort()
      this.comparing = { kind: "opening" }
      this.current = -1
    }
  }

  /** Opened again on a comparison kept (lastCompared): the keys work at once. */
  protected override firstUpdated() {
    if (this.other !== null) void this.focusOriginal()
  }

  protected override updated() {
    if (this.other !== null) lastCompared.set(this.uuid, { other: this.other, thisOnLeft: this.thisOnLeft })
  }

  // ---- Comparing ------------------------------------------------------------------------------

  /** The second document is chosen: the keyboard goes on in the original's pages. */
  private chosen(uuid: string) {
    this.other = uuid
    void this.focusOriginal()
  }

  private async focusOriginal() {
    await this.updateComplete
    const original = this.side("left")
    await original?.updateComplete
    original?.focus()
  }

  /** `shown`: the side's document, or the first part of it when it is a container (an email, an archive). */
  private sideOpened(side: Side, shown: ComparedSide, detail: { uuid: string; title: string; pageCount: number }) {
    const opened = shown.documentId
    this.sides = { ...this.sides, [side]: { opened, title: detail.title, pageCount: detail.pageCount, page: 0 } }
    if (opened === this.other) rememberDocument(opened, detail.title || null)
    const { left, right } = this.ids
    // Asked once both are shown: a document still converting has no text to compare yet.
    if (left !== null && right !== null && this.sides.left.opened === left && this.sides.right.opened === right) {
      void this.compare(left, right)
    }
  }

  private async compare(left: string, right: string) {
    this.request?.abort()
    const request = new AbortController()
    this.request = request
    this.comparing = { kind: "comparing" }
    this.current = -1
    try {
      const difference = await this.client.difference(left, right, request.signal)
      if (request.signal.aborted) return
      this.comparing = {
        kind: "compared",
        difference,
        highlights: {
          left: new SideHighlights(difference.changes, "left"),
          right: new SideHighlights(difference.changes, "right")
        }
      }
    } catch (error) {
      if (!request.signal.aborted) this.comparing = { kind: "failed", message: (error as Error).message }
    }
  }

  private sideFailed(side: Side, message: string) {
    this.request?.abort()
    this.comparing = { kind: "failed", message: this.t("sideFailed", { side: this.t(SIDE_NAMES[side]), message }) }
  }

  private get changes() {
    return this.comparing.kind === "compared" ? this.comparing.difference.changes : []
  }

  /** Next (`+1`) or previous (`-1`) change, wrapping round. */
  private move(direction: 1 | -1) {
    const next = stepChange(this.current, this.changes.length, direction)
    if (next >= 0) void this.goToChange(next)
  }

  /** Shows a change on both sides: each side's words in view, or a side without any at the same place as the other. */
  private async goToChange(index: number) {
    const change = this.changes[index]
    if (change === undefined) return
    this.current = index
    this.leader = null
    await this.updateComplete
    const shown = (["left", "right"] as const).filter((side) => {
      const words = sideOf(change, side)
      if (words !== null) this.side(side)?.revealChange(words)
      return words !== null
    })
    if (shown.length === 1 && this.linked) this.follow(shown[0]!)
  }

  // ---- Scrolling and zoom -------------------------------------------------------------------------

  /** The other side to where `side` is. */
  private follow(side: Side) {
    const position = this.side(side)?.position
    if (position) this.side(otherSide(side))?.follow(position)
  }

  private onSideScroll(side: Side) {
    if (this.linked && this.leader === side) this.follow(side)
  }

  private toggleLinked() {
    this.linked = !this.linked
    if (this.linked) this.follow(this.leader ?? "left")
  }

  /** Both sides to `zoom`; from a gesture on one side, around the point under the pointer there. */
  private async setZoom(zoom: Zoom, from?: { side: Side; clientX: number; clientY: number }) {
    this.zoom = zoom
    this.leader = null
    const origin = from?.side ?? "left"
    const first = this.side(origin)
    const second = this.side(otherSide(origin))
    if (first === null || second === null) return
    if (from !== undefined && typeof zoom === "number") first.zoomAt(zoom, from.clientX, from.clientY)
    else void first.setZoom(zoom)
    await Promise.all([first.updateComplete, second.setZoom(zoom)])
    if (this.linked) this.follow(origin)
  }

  private zoomStep(direction: 1 | -1) {
    void this.setZoom(stepScale(this.side("left")?.scale ?? 1, direction))
  }

  private goToPage(side: Side, index: number) {
    if (this.narrow) this.panelOpen = false
    this.leader = null
    const shown = this.side(side)
    if (shown === null) return
    void shown.goToPage(index + 1).then(() => {
      if (this.linked) this.follow(side)
    })
  }

  // ---- Input ---------------------------------------------------------------------------------

  private onKey(event: KeyboardEvent) {
    // The viewer's own shortcuts move its pages, hidden behind the comparison: these keys are this view's.
    event.stopPropagation()
    if (this.other === null) return
    const target = event.composedPath()[0]
    const inTextField = target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement
    const plain = !event.ctrlKey && !event.metaKey && !event.altKey
    if (event.key === "F7" || (plain && !inTextField && (event.key === "n" || event.key === "p"))) {
      event.preventDefault()
      return this.move(event.key === "p" || (event.key === "F7" && event.shiftKey) ? -1 : 1)
    }
    const command = commandOf(event, inTextField)
    if (command?.kind !== "zoom") return
    event.preventDefault()
    if (command.to === "reset") void this.setZoom("page-width")
    else this.zoomStep(command.to === "in" ? 1 : -1)
  }

  /** A side the reader scrolls, clicks, types or touches in leads the scrolling. */
  private readonly leads: Readonly<Record<Side, AddEventListenerOptions & EventListenerObject>> = {
    left: { handleEvent: () => (this.leader = "left"), passive: true },
    right: { handleEvent: () => (this.leader = "right"), passive: true }
  }

  private imageComparison() {
    const { left, right } = this.ids
    if (left === null || right === null) return
    this.dispatchEvent(
      new CustomEvent("run-order", {
        bubbles: true,
        composed: true,
        detail: { title: this.t("imageComparisonTitle"), start: () => this.client.imageComparison(left, right) }
      })
    )
  }

  private close() {
    this.dispatchEvent(new CustomEvent("close-view", { bubbles: true, composed: true }))
  }

  // ---- Drawing -------------------------------------------------------------------------------

  private tool(name: IconName, label: string, action: () => void, options: {
    readonly pressed?: boolean
    readonly disabled?: boolean
    /** Shown beside the icon where there is room. */
    readonly text?: string
    readonly id?: string
  } = {}) {
    return html`<button type="button" class="tool" data-action=${options.id ?? name} aria-label=${label}
      title=${label} ?disabled=${options.disabled ?? false} @click=${action}
      aria-pressed=${options.pressed === undefined ? nothing : String(options.pressed)}>${icon(name)}${
      options.text === undefined ? nothing : html`<span class="wide-only">${options.text}</span>`
    }</button>`
  }

  /** "3 of 12 changes", or what the comparison is doing. */
  private summary() {
    const { t } = this
    const state = this.comparing
    switch (state.kind) {
      case "opening":
        return html`<span class="spinner"></span>${t("openingSides")}`
      case "comparing":
        return html`<span class="spinner"></span>${t("comparingTexts")}`
      case "failed":
        return t("compareFailedShort")
      case "compared": {
        const total = state.difference.changes.length
        return total === 0
          ? t("noChangesShort")
          : this.current < 0
          ? t(total === 1 ? "oneChange" : "changeTotal", { total })
          : t("changeCount", { current: this.current + 1, total })
      }
    }
  }

  private toolbar() {
    const { t } = this
    const none = this.changes.length === 0
    const scale = this.side("left")?.scale ?? 1
    return html`<div class="bar" role="toolbar" aria-label=${t("compareTools")}>
      ${
      this.tool("sidebar", t("comparePanelToggle"), () => (this.panelOpen = !this.panelOpen), {
        pressed: this.panelOpen,
        id: "compare-panel"
      })
    }
      <span class="separator"></span>
      ${this.tool("up", t("previousChange"), () => this.move(-1), { disabled: none, id: "previous-change" })}
      <span class="count" role="status" aria-live="polite">${this.summary()}</span>
      ${this.tool("down", t("nextChange"), () => this.move(1), { disabled: none, id: "next-change" })}
      <span class="separator"></span>
      ${this.tool("zoomOut", t("zoomOut"), () => this.zoomStep(-1))}
      <button type="button" class="tool zoom" data-action="page-width" aria-pressed=${
      String(this.zoom === "page-width")
    }
        aria-label=${t("pageWidthAt", { percent: Math.round(scale * 100) })} title=${t("pageWidth")}
        @click=${() => void this.setZoom("page-width")}>${Math.round(scale * 100)} %</button>
      ${this.tool("zoomIn", t("zoomIn"), () => this.zoomStep(1))}
      <span class="separator"></span>
      ${this.tool("link", t("linkScroll"), () => this.toggleLinked(), { pressed: this.linked })}
      ${this.tool("swap", t("swapSides"), () => (this.thisOnLeft = !this.thisOnLeft))}
      ${this.tool("file", t("chooseAnother"), () => (this.other = null), { id: "choose-another" })}
      <span class="separator"></span>
      ${
      this.tool("imageCompare", t("imageComparisonHint"), () => this.imageComparison(), {
        text: t("imageComparison"),
        id: "image-comparison"
      })
    }
      <span class="spring"></span>
      ${this.tool("close", t("closeCompare"), () => this.close(), { text: t("close"), id: "close-compare" })}
    </div>`
  }

  /** What the list of changes says while there is none to show: never an empty panel. */
  private changesPanel() {
    const { t } = this
    const state = this.comparing
    if (state.kind === "compared") {
      const counts = countByType(state.difference)
      return html`<p class="counts">${
        t("changeKinds", { modified: counts.MODIFIED, deleted: counts.DELETED, inserted: counts.INSERTED })
      }</p>
        <docstack-change-list .changes=${state.difference.changes} .current=${this.current} .t=${t}
          @select-change=${(event: CustomEvent<{ index: number }>) => {
        if (this.narrow) this.panelOpen = false
        void this.goToChange(event.detail.index)
      }}></docstack-change-list>`
    }
    if (state.kind === "failed") {
      const { left, right } = this.ids
      return html`<div class="note error" role="alert">${t("compareFailed", { message: state.message })}
        <button type="button" class="retry" @click=${() => left && right && void this.compare(left, right)}>${
        t("compareRetry")
      }</button></div>`
    }
    return html`<p class="note" role="status"><span class="spinner"></span>${
      t(state.kind === "opening" ? "openingSides" : "comparingTexts")
    }</p>`
  }

  private thumbnailsPanel() {
    const { t } = this
    const side = this.thumbnailSide
    const shown = this.side(side)
    const pages = shown?.documentPages ?? null
    const layout = shown?.layout ?? null
    const highlights = this.comparing.kind === "compared" ? this.comparing.highlights[side] : null
    return html`<div class="choice" role="group" aria-label=${t("thumbnailsOf")}>${
      (["left", "right"] as const).map((name) =>
        html`<button type="button" aria-pressed=${String(name === side)} data-thumbnails=${name}
          @click=${() => (this.thumbnailSide = name)}>${t(SIDE_NAMES[name])}</button>`
      )
    }</div>
      ${
      pages === null || layout === null
        ? html`<p class="note" role="status"><span class="spinner"></span>${t("openingSides")}</p>`
        : html`<docstack-thumbnails .t=${t} .pages=${pages} .dimensions=${layout.pageDimensionsList}
          .current=${this.sides[side].page} .badges=${highlights?.pages ?? new Set()} .badgeLabel=${t("changedPage")}
          @navigate=${(event: CustomEvent<{ index: number }>) => this.goToPage(side, event.detail.index)}>
        </docstack-thumbnails>`
    }`
  }

  private panel() {
    const { t } = this
    const tab = (name: "changes" | "thumbnails", label: string) =>
      html`<button type="button" role="tab" id=${`compare-tab-${name}`} aria-selected=${String(this.panelTab === name)}
        aria-controls="compare-panel" @click=${() => (this.panelTab = name)}>${label}</button>`
    return html`<aside class="panel" aria-label=${t("comparePanel")}>
      <div class="tabs" role="tablist">${tab("changes", t("changesPanel"))}${tab("thumbnails", t("thumbnails"))}</div>
      <div class="panel-body" id="compare-panel" role="tabpanel" aria-labelledby=${`compare-tab-${this.panelTab}`}>
        ${this.panelTab === "changes" ? this.changesPanel() : this.thumbnailsPanel()}
      </div>
    </aside>`
  }

  private sideView(side: Side) {
    const { t } = this
    const state = this.sides[side]
    const id = this.ids[side]!
    const name = t(SIDE_NAMES[side])
    const shown = state.opened === id
    const title = shown ? state.title : ""
    return html`<section class=${`side ${side}`}>
      <header>
        <span class=${`role ${side}`}>${name}</span>
        <span class="title">${title}</span>
        <span class="pages">${shown ? t("pageOfCount", { page: state.page + 1, count: state.pageCount }) : ""}</span>
      </header>
      <docstack-compared-side data-side=${side} .service=${this.client.service} .imageLoader=${this.loader}
        .lang=${this.language} .documentId=${id} .label=${title ? `${name}: ${title}` : name}
        .highlights=${this.comparing.kind === "compared" ? this.comparing.highlights[side] : null}
        .currentChange=${this.current}
        @documentloaded=${(event: CustomEvent) => this.sideOpened(side, event.target as ComparedSide, event.detail)}
        @error=${(event: CustomEvent<{ message: string }>) => this.sideFailed(side, event.detail.message)}
        @pagechange=${(
      event: CustomEvent<{ pageNumber: number }>
    ) => (this.sides = { ...this.sides, [side]: { ...this.sides[side], page: event.detail.pageNumber - 1 } })}
        @zoomchange=${() => this.requestUpdate()}
        @side-scroll=${() => this.onSideScroll(side)}
        @zoom-request=${(event: CustomEvent<{ scale: number; clientX: number; clientY: number }>) =>
      void this.setZoom(event.detail.scale, { side, ...event.detail })}
        @pointerdown=${this.leads[side]} @wheel=${this.leads[side]} @touchstart=${this.leads[side]}
        @keydown=${this.leads[side]}></docstack-compared-side>
    </section>`
  }

  protected override render() {
    if (this.other === null) {
      return html`<docstack-compare-chooser .client=${this.client} .t=${this.t} .language=${this.language}
        .uuid=${this.uuid} .documentTitle=${this.layout.documentTitle ?? this.uuid} .thisOnLeft=${this.thisOnLeft}
        @swap=${() => (this.thisOnLeft = !this.thisOnLeft)}
        @choose=${(event: CustomEvent<{ uuid: string }>) => this.chosen(event.detail.uuid)}>
      </docstack-compare-chooser>`
    }
    return html`${this.toolbar()}
      <div class="body">
        ${this.panelOpen ? this.panel() : nothing}
        <div class="sides">${this.sideView("left")}${this.sideView("right")}</div>
      </div>`
  }
}

customElements.define("docstack-compare", CompareView)
