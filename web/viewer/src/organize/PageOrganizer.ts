/**
 * `<docstack-page-organizer>`: the pages of the document shown, as a grid to rearrange (select,
 * drag, move by keyboard, delete, merge with another document, undo), then made into a new document
 * by one transformation order: the whole working copy ("Save as new document") or the selected
 * pages ("Extract"). The document itself is never changed. The viewer runs the order (`run-order`)
 * and opens its result; `close-view` goes back to the pages. docs/viewer.md, "Organizing pages".
 */
import { html, LitElement, nothing, type PropertyValues } from "lit"
import type { OrderHandle, PageLayout, TransformationPart, ViewerClient } from "../client/ViewerClient.ts"
import type { Language, MessageKey, Translate } from "../i18n/messages.ts"
import type { ImageLoader } from "../pages/ImageLoader.ts"
import { icon, type IconName } from "../toolbar/Icons.ts"
import "./MergeDialog.ts"
import type { MergeRequest } from "./MergeDialog.ts"
import "./OrganizerGrid.ts"
import { type OrganizerGrid, type PageAction, sourceLetter } from "./OrganizerGrid.ts"
import { organizerStyles } from "./OrganizerStyles.ts"
import { PageSelection } from "./PageSelection.ts"
import { type CopyPage, WorkingCopy } from "./WorkingCopy.ts"

/** Thumbnail widths the size slider offers, in CSS pixels. */
const MIN_THUMBNAIL = 80
const MAX_THUMBNAIL = 240
const DEFAULT_THUMBNAIL = 120
/** Past this many runs of pages an extract's title names no pages ("(extract)"): a title is not a list. */
const TITLED_RUNS = 4

/** A document's arrangement in progress, kept when the view closes (by mistake or not) until an order is made from it. */
interface Draft {
  readonly copy: WorkingCopy
  readonly selection: PageSelection
  title: string
  thumbnailWidth: number
}

const drafts = new Map<string, Draft>()

/** "3–5", "1, 3–5, 9": page numbers (1-based), consecutive ones as a range. */
const pageRuns = (pages: ReadonlyArray<number>): Array<string> => {
  const runs: Array<[number, number]> = []
  for (const page of pages) {
    const last = runs[runs.length - 1]
    if (last !== undefined && page === last[1] + 1) last[1] = page
    else runs.push([page, page])
  }
  return runs.map(([from, to]) => (from === to ? `${from}` : `${from}–${to}`))
}

/** Where the last of the pages of `keys` is in the copy, -1 when none is. */
const lastSelectedIndex = (pages: ReadonlyArray<CopyPage>, keys: ReadonlySet<number>) => {
  for (let index = pages.length - 1; index >= 0; index--) if (keys.has(pages[index]!.key)) return index
  return -1
}

export class PageOrganizer extends LitElement {
  static override styles = organizerStyles
  static override properties = {
    client: { attribute: false },
    loader: { attribute: false },
    uuid: { type: String },
    layout: { attribute: false },
    t: { attribute: false },
    language: { type: String },
    version: { state: true },
    merging: { state: true },
    announcement: { state: true }
  }

  declare client: ViewerClient
  /** The viewer's image queue: thumbnails wait behind the pages' images and share its connections. */
  declare loader: ImageLoader
  declare uuid: string
  declare layout: PageLayout | null
  declare t: Translate
  declare language: Language
  /** Bumped on every change of the working copy or the selection. */
  declare version: number
  declare merging: boolean
  /** What the last action did, said to screen readers and shown in the status line. */
  declare announcement: string

  private draft: Draft | null = null

  constructor() {
    super()
    this.layout = null
    this.language = "en"
    this.version = 0
    this.merging = false
    this.announcement = ""
    // The organizer's keys are its own: the viewer's shortcuts act on pages that are hidden meanwhile.
    this.addEventListener("keydown", (event) => {
      this.onKey(event)
      event.stopPropagation()
    })
  }

  private get grid() {
    return this.renderRoot.querySelector<OrganizerGrid>("docstack-organizer-grid")
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if ((changed.has("uuid") || changed.has("layout")) && this.layout !== null) {
      const layout = this.layout
      const title = layout.documentTitle ?? this.uuid
      this.draft = drafts.get(this.uuid) ?? {
        copy: new WorkingCopy({ uuid: this.uuid, title, pages: layout.pageDimensionsList }),
        selection: new PageSelection(),
        title: "",
        thumbnailWidth: DEFAULT_THUMBNAIL
      }
      drafts.set(this.uuid, this.draft)
      this.draft.selection.focus ??= this.draft.copy.pages[0]?.key ?? null
    }
  }

  /** The view opens with the keyboard in the grid, as a dialog opens with it inside. */
  protected override firstUpdated() {
    void this.updateComplete.then(() => this.grid?.focusGrid())
  }

  private countOf(count: number) {
    const one = new Intl.PluralRules(this.language).select(count) === "one"
    return this.t(one ? "organizePagesOne" : "organizePagesOther", { count })
  }

  /**
   * After a change: the grid draws it, the status line and screen readers say it, and the keyboard
   * goes (back) to the grid when it was there (a drawn-again cell may have lost it) or `toGrid`.
   */
  private changed(announcement: string, toGrid = this.shadowRoot?.activeElement === this.grid) {
    const { copy, selection } = this.draft!
    const order = copy.pages.map((page) => page.key)
    selection.keepOnly(order, order[0] ?? null)
    this.announcement = announcement
    this.version++
    if (!toGrid) return
    // With no page left the grid is gone: the keyboard goes to Undo, what is most likely wanted next.
    void this.updateComplete.then(() =>
      this.grid?.focusGrid() ?? this.renderRoot.querySelector<HTMLElement>("[data-action=undo]")?.focus()
    )
  }

  // ---- Actions --------------------------------------------------------------------------------

  private onPageAction(action: PageAction) {
    switch (action.action) {
      case "drop":
        return this.moved(this.draft!.copy.moveTo(action.keys, action.before), action.keys)
      case "move":
        return this.move(action.steps)
      case "delete":
        return this.deleteSelected()
    }
  }

  private move(steps: number) {
    const { copy, selection } = this.draft!
    const keys = new Set(selection.selected)
    if (keys.size > 0) this.moved(copy.shift(keys, steps), keys)
  }

  private moved(moved: boolean, keys: ReadonlySet<number>) {
    const { copy } = this.draft!
    const position = copy.pages.findIndex((page) => keys.has(page.key)) + 1
    this.changed(moved ? this.t("organizeMoved", { pages: this.countOf(keys.size), position }) : "")
  }

  private deleteSelected() {
    const { copy, selection } = this.draft!
    const keys = new Set(selection.selected)
    if (keys.size === 0) return
    // The keyboard lands on the page after those deleted, or the one before at the end.
    const pages = copy.pages
    const last = lastSelectedIndex(pages, keys)
    const next = pages.slice(last + 1).find((page) => !keys.has(page.key)) ??
      pages.slice(0, last).reverse().find((page) => !keys.has(page.key))
    copy.remove(keys)
    selection.clear()
    selection.focus = next?.key ?? null
    this.changed(this.t("organizeDeleted", { pages: this.countOf(keys.size) }))
  }

  private history(step: "undo" | "redo" | "reset") {
    const { copy } = this.draft!
    const done = step === "undo" ? copy.undo() : step === "redo" ? copy.redo() : copy.reset()
    const said: Record<typeof step, MessageKey> = {
      undo: "organizeUndone",
      redo: "organizeRedone",
      reset: "organizeResetDone"
    }
    if (done) this.changed(this.t(said[step]))
  }

  private selectAll() {
    const { copy, selection } = this.draft!
    selection.all(copy.pages.map((page) => page.key))
    this.changed("")
  }

  private merge(request: MergeRequest) {
    const { copy, selection } = this.draft!
    const { place, source } = request
    const at = place === "start" ? 0 : place === "end" ? copy.pages.length : place
    selection.set(copy.insert(source, at))
    this.merging = false
    // The dialog that had the keyboard is gone: it goes to the pages added, scrolled into view.
    this.changed(this.t("organizeAdded", { pages: this.countOf(source.pages.length), title: source.title }), true)
  }

  private onKey(event: KeyboardEvent) {
    const target = event.composedPath()[0]
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) return
    const control = event.ctrlKey || event.metaKey
    const key = event.key.toLowerCase()
    if (!control || event.altKey) return
    if (key === "z" && !event.shiftKey) this.history("undo")
    else if (key === "y" || (key === "z" && event.shiftKey)) this.history("redo")
    else return
    event.preventDefault()
  }

  // ---- The new document -------------------------------------------------------------------

  private get baseTitle() {
    return this.draft!.copy.sources[0]!.title
  }

  /** The extract's title when none is typed: the document's with the pages taken, when all are its own. */
  private extractTitle() {
    const { copy, selection } = this.draft!
    const taken = copy.pages.filter((page) => selection.has(page.key))
    const runs = pageRuns(taken.map((page) => page.page + 1))
    if (!taken.every((page) => page.source === 0) || runs.length > TITLED_RUNS) {
      return this.t("organizeExtractMixed", { title: this.baseTitle })
    }
    return this.t(taken.length === 1 ? "organizeExtractPage" : "organizeExtractPages", {
      title: this.baseTitle,
      pages: runs.join(", ")
    })
  }

  private makeDocument(parts: ReadonlyArray<TransformationPart>, title: string, order: string) {
    const { client } = this
    const start = (): Promise<OrderHandle> => client.transformation(parts, { title })
    // Once an order made from it has made its document, the arrangement is done with.
    const viewer = (this.getRootNode() as ShadowRoot).host
    const uuid = this.uuid
    viewer?.addEventListener("documentcreated", (event) => {
      if ((event as CustomEvent<{ source?: string }>).detail.source === uuid) drafts.delete(uuid)
    }, { once: true })
    this.dispatchEvent(new CustomEvent("run-order", { bubbles: true, composed: true, detail: { title: order, start } }))
  }

  private save() {
    const { copy, title } = this.draft!
    if (copy.pages.length === 0) return
    this.makeDocument(
      copy.parts(),
      title.trim() || this.t("organizeRearranged", { title: this.baseTitle }),
      this.t("organizeSaving")
    )
  }

  private extract() {
    const { copy, selection, title } = this.draft!
    if (selection.size === 0) return
    this.makeDocument(copy.parts(selection.selected), title.trim() || this.extractTitle(), this.t("organizeExtracting"))
  }

  // ---- Drawing ----------------------------------------------------------------------------------

  /** A button of the bar: an icon, its name for the keyboard and the pointer, and why it cannot be used when it cannot. */
  private button(name: IconName, label: string, action: () => void, options: {
    readonly id: string
    readonly disabled?: boolean
    /** Shown instead of the label while disabled. */
    readonly why?: string
    /** Written beside the icon (hidden when narrow, unless `className` is "primary"). */
    readonly text?: string
    readonly className?: string
    readonly describedBy?: string
    /** The button opens something: whether it is open. */
    readonly expanded?: boolean
  }) {
    const disabled = options.disabled ?? false
    const textClass = options.className === "primary" ? "" : "wide-label"
    // aria-disabled, not disabled: the button keeps the keyboard when it becomes unusable (the last
    // undo, a deletion), stays found by Tab, and its title says why.
    return html`<button type="button" class=${options.className ?? ""} data-action=${options.id}
      aria-label=${label} title=${disabled ? options.why ?? label : label} aria-disabled=${disabled ? "true" : "false"}
      aria-describedby=${disabled && options.describedBy !== undefined ? options.describedBy : nothing}
      aria-expanded=${options.expanded === undefined ? nothing : String(options.expanded)}
      @click=${() => disabled || action()}>${icon(name)}${
      options.text === undefined ? nothing : html`<span class=${textClass}>${options.text}</span>`
    }</button>`
  }

  private renderBar() {
    const { t } = this
    const { copy, selection, title, thumbnailWidth } = this.draft!
    const none = selection.size === 0
    const empty = copy.pages.length === 0
    const noSelection = t("organizeNoSelection")
    const titleHint = none ? t("organizeRearranged", { title: this.baseTitle }) : this.extractTitle()
    const close = () => this.dispatchEvent(new CustomEvent("close-view", { bubbles: true, composed: true }))
    return html`<div class="bar">
      ${this.button("previous", t("organizeBack"), close, { id: "organize-close" })}
      <h2>${t("organizeTitle")}</h2>
      <span class="break"></span>
      <div class="title-field">
        <label for="title">${t("organizeTitleField")}</label>
        <input type="text" id="title" aria-label=${t("organizeTitleLabel")} .value=${title} placeholder=${titleHint}
          @input=${(event: Event) => (this.draft!.title = (event.target as HTMLInputElement).value)}>
      </div>
      ${
      this.button("extract", t("organizeExtract"), () => this.extract(), {
        id: "organize-extract",
        disabled: none,
        why: noSelection,
        text: t("organizeExtractShort"),
        className: "outlined"
      })
    }
      ${
      this.button("save", t("organizeSave"), () => this.save(), {
        id: "organize-save",
        disabled: empty,
        why: t("organizeEmpty"),
        text: t("organizeSaveShort"),
        className: "primary",
        describedBy: "empty"
      })
    }
    </div>
    <div class="bar">
      <div class="group">
        ${
      this.button("undo", `${t("undo")} (Ctrl+Z)`, () => this.history("undo"), { id: "undo", disabled: !copy.canUndo })
    }
        ${
      this.button("redo", `${t("redo")} (Ctrl+Y)`, () => this.history("redo"), { id: "redo", disabled: !copy.canRedo })
    }
        ${
      this.button("reset", t("organizeReset"), () => this.history("reset"), { id: "reset", disabled: !copy.changed })
    }
      </div>
      <div class="group">
        ${this.button("pages", t("organizeSelectAll"), () => this.selectAll(), { id: "select-all", disabled: empty })}
        ${
      this.button("moveEarlier", t("organizeMoveEarlier"), () => this.move(-1), {
        id: "move-earlier",
        disabled: none,
        why: noSelection
      })
    }
        ${
      this.button("moveLater", t("organizeMoveLater"), () => this.move(1), {
        id: "move-later",
        disabled: none,
        why: noSelection
      })
    }
        ${
      this.button("trash", t("organizeDelete"), () => this.deleteSelected(), {
        id: "delete",
        disabled: none,
        why: noSelection
      })
    }
      </div>
      <div class="group">
        ${
      this.button("merge", t("organizeMerge"), () => (this.merging = !this.merging), {
        id: "merge",
        text: t("organizeMergeShort"),
        expanded: this.merging
      })
    }
      </div>
      <span class="spacer"></span>
      <label class="size">${t("organizeSize")}
        <input type="range" min=${MIN_THUMBNAIL} max=${MAX_THUMBNAIL} step="20" .value=${String(thumbnailWidth)}
          aria-label=${t("organizeSize")} @input=${(event: Event) => {
      this.draft!.thumbnailWidth = Number((event.target as HTMLInputElement).value)
      this.version++
    }}>
      </label>
    </div>`
  }

  private renderStatus() {
    const { t } = this
    const { copy, selection } = this.draft!
    const used = new Set(copy.pages.map((page) => page.source))
    return html`<div class="status">
      <span class="count">${this.countOf(copy.pages.length)}${
      selection.size > 0 ? ` · ${t("organizeSelectedCount", { count: selection.size })}` : ""
    }</span>
      ${
      used.size > 1 || !used.has(0)
        ? html`<span class="legend-list" role="list" aria-label=${t("organizeSources")}>${
          copy.sources.map((source, index) =>
            used.has(index)
              ? html`<span class="legend" role="listitem"><span class="source" style=${`background:var(--source-${
                index % 6
              })`}>${sourceLetter(index)}</span>${source.title}</span>`
              : nothing
          )
        }</span>`
        : nothing
    }
      <span role="status" aria-live="polite">${this.announcement || t("organizeOriginalKept")}</span>
    </div>`
  }

  protected override render() {
    const { t, layout } = this
    const draft = this.draft
    if (layout === null || draft === null) return html`<p class="message" role="status">${t("loading")}</p>`
    const { copy, selection } = draft
    const lastSelected = lastSelectedIndex(copy.pages, selection.selected)
    return html`${this.renderBar()}${this.renderStatus()}
      <div class="main">
        ${
      copy.pages.length === 0
        ? html`<p class="message" id="empty" role="status">${t("organizeEmpty")}</p>`
        : html`<docstack-organizer-grid .copy=${copy} .selection=${selection} .version=${this.version}
            .client=${this.client} .loader=${this.loader} .thumbnailWidth=${draft.thumbnailWidth} .t=${t}
            @selection-change=${() => this.version++}
            @page-action=${(event: CustomEvent<PageAction>) =>
          this.onPageAction(event.detail)}></docstack-organizer-grid>`
    }
        ${
      this.merging
        ? html`<docstack-merge-dialog .client=${this.client} .t=${t} .afterPosition=${
          lastSelected < 0 ? null : lastSelected + 1
        }
            @merge-source=${(event: CustomEvent<MergeRequest>) => this.merge(event.detail)}
            @merge-close=${() => {
          this.merging = false
          void this.updateComplete.then(() =>
            this.renderRoot.querySelector<HTMLElement>("[data-action=merge]")?.focus()
          )
        }}></docstack-merge-dialog>`
        : nothing
    }
      </div>`
  }
}

customElements.define("docstack-page-organizer", PageOrganizer)
