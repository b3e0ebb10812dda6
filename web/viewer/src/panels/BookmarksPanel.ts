/**
 * `<docstack-bookmarks>`: the document's outline as a tree. The top level starts open and deeper
 * levels closed, as readers of long outlines expect (pdf.js does the same). Choosing an entry asks
 * the viewer to go to its page; entries without a page (a heading of the outline) stay in the tree
 * but go nowhere.
 */
import { html, type PropertyValues } from "lit"
import type { Bookmark, ViewerClient } from "../client/ViewerClient.ts"
import { panelStyles, treeStyles } from "./PanelStyles.ts"
import { type TreeRow, visibleRows } from "./TreeKeys.ts"
import { TreePanel } from "./TreePanel.ts"

type Outline =
  | { readonly state: "loading" }
  | { readonly state: "ready"; readonly bookmarks: ReadonlyArray<Bookmark> }
  | { readonly state: "failed"; readonly message: string }

/** `navigate`'s detail: the page (0-based) and, when the outline says, the point of it (points from its top). */
export interface BookmarkTarget {
  readonly index: number
  readonly top: number | null
}

const childrenOf = (bookmark: Bookmark) => bookmark.children

export class BookmarksPanel extends TreePanel<Bookmark> {
  static override properties = {
    client: { attribute: false },
    uuid: { type: String },
    outline: { state: true },
    expanded: { state: true }
  }

  static override styles = [panelStyles, treeStyles]

  declare client: ViewerClient | undefined
  declare uuid: string | undefined
  declare outline: Outline
  /** Keys (TreeKeys paths) of the open entries. */
  declare expanded: ReadonlySet<string>

  /** The request under way, aborted when another document comes or the panel leaves the page. */
  private controller: AbortController | null = null
  /** What the outline shown (or loading) was read for; null when it must be read (again). */
  private readFor: { readonly client: ViewerClient; readonly uuid: string } | null = null

  constructor() {
    super()
    this.outline = { state: "loading" }
    this.expanded = new Set()
  }

  override connectedCallback() {
    super.connectedCallback()
    // Back on the page after a disconnection that aborted the read: read again.
    if (this.readFor === null) this.requestUpdate()
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    if (this.controller !== null) {
      this.controller.abort()
      this.controller = null
      this.readFor = null
    }
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    const { client, uuid } = this
    if (client !== undefined && uuid && (this.readFor?.client !== client || this.readFor.uuid !== uuid)) {
      this.read(client, uuid)
    }
    if (changed.has("outline") || changed.has("expanded")) {
      const bookmarks = this.outline.state === "ready" ? this.outline.bookmarks : []
      this.rows = visibleRows(bookmarks, childrenOf, (key) => this.expanded.has(key))
    }
  }

  private read(client: ViewerClient, uuid: string) {
    this.controller?.abort()
    const controller = new AbortController()
    this.controller = controller
    this.readFor = { client, uuid }
    this.outline = { state: "loading" }
    this.focusKey = null
    client.bookmarks(uuid, controller.signal).then(({ bookmarks }) => {
      if (this.controller !== controller) return
      this.controller = null
      this.outline = { state: "ready", bookmarks }
      this.expanded = new Set(
        bookmarks.flatMap((bookmark, index) => bookmark.children.length > 0 ? [String(index)] : [])
      )
    }, (error: unknown) => {
      if (this.controller !== controller) return
      this.controller = null
      this.outline = { state: "failed", message: error instanceof Error ? error.message : String(error) }
    })
  }

  protected override toggle(key: string, open: boolean) {
    const expanded = new Set(this.expanded)
    if (open) expanded.add(key)
    else expanded.delete(key)
    this.expanded = expanded
  }

  protected override activate(row: TreeRow<Bookmark>) {
    const { pageNumber, top } = row.node
    if (pageNumber !== null) {
      const detail: BookmarkTarget = { index: pageNumber, top }
      this.dispatchEvent(new CustomEvent("navigate", { bubbles: true, composed: true, detail }))
    } else if (row.expandable) {
      // A heading without a page: choosing it can only mean "show what is under it".
      this.toggle(row.key, !row.expanded)
    }
  }

  protected override render() {
    const { t, outline } = this
    if (outline.state === "loading") return html`<p class="message" role="status">${t("loadingBookmarks")}</p>`
    if (outline.state === "failed") {
      return html`<p class="message" role="alert">${t("bookmarksFailed", { message: outline.message })}</p>`
    }
    if (this.rows.length === 0) return html`<p class="message">${t("noBookmarks")}</p>`
    return this.renderTree(t("bookmarks"), (row) => ({
      className: row.node.pageNumber === null ? "row inert" : "row",
      current: false,
      content: html`<span class="label" title=${row.node.title}>${row.node.title}</span>`
    }))
  }
}

customElements.define("docstack-bookmarks", BookmarksPanel)
