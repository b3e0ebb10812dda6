/**
 * What the bookmarks and parts panels share: a flat tree of rows with one tab stop (roving
 * tabindex) moved by the keys of TreeKeys. A panel says which rows it has, how one opens and what
 * choosing one does.
 */
import { html, LitElement, nothing, type PropertyDeclarations, type TemplateResult } from "lit"
import { repeat } from "lit/directives/repeat.js"
import type { Translate } from "../i18n/messages.ts"
import { chevron } from "./PanelStyles.ts"
import { focusedRow, type TreeMove, treeMove, type TreeRow } from "./TreeKeys.ts"

export abstract class TreePanel<T> extends LitElement {
  static override properties: PropertyDeclarations = {
    t: { attribute: false },
    focusKey: { state: true }
  }

  declare t: Translate
  /** The row holding the tree's one tab stop (a TreeKeys path); null for the first row. */
  declare focusKey: string | null

  /** The visible rows, computed by the panel before each render. */
  protected rows: Array<TreeRow<T>> = []

  constructor() {
    super()
    this.focusKey = null
  }

  protected abstract toggle(key: string, open: boolean): void
  protected abstract activate(row: TreeRow<T>): void

  private rowOf(event: Event): TreeRow<T> | undefined {
    const element = (event.target as Element).closest<HTMLElement>("[role=treeitem]")
    return this.rows.find((row) => row.key === element?.dataset.key)
  }

  /** A click on the toggle opens or closes; anywhere else on the row it chooses the row. */
  private readonly onClick = (event: MouseEvent) => {
    const row = this.rowOf(event)
    if (row === undefined) return
    this.focusKey = row.key
    if (row.expandable && (event.target as Element).closest(".toggle")) this.toggle(row.key, !row.expanded)
    else this.activate(row)
  }

  private readonly onFocusIn = (event: FocusEvent) => {
    const row = this.rowOf(event)
    if (row !== undefined) this.focusKey = row.key
  }

  private readonly onKeyDown = (event: KeyboardEvent) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return
    const move = treeMove(this.rows, focusedRow(this.rows, this.focusKey), event.key)
    if (move === null) return
    event.preventDefault()
    void this.apply(move)
  }

  private async apply(move: TreeMove) {
    switch (move.kind) {
      case "expand":
      case "collapse":
        return this.toggle(move.key, move.kind === "expand")
      case "activate":
        return this.activate(this.rows[move.row]!)
      case "focus": {
        const key = this.rows[move.row]!.key
        this.focusKey = key
        await this.updateComplete
        this.renderRoot.querySelector<HTMLElement>(`[data-key="${key}"]`)?.focus()
      }
    }
  }

  /**
   * The tree: each row a treeitem with its level, place among its siblings, open state and
   * toggle, holding what `content` draws. Rows are keyed, so the focused one keeps its element when
   * rows open above it.
   */
  protected renderTree(
    label: string,
    row: (
      row: TreeRow<T>
    ) => { readonly content: TemplateResult; readonly className: string; readonly current: boolean }
  ) {
    const { t } = this
    const tabStop = this.rows[focusedRow(this.rows, this.focusKey)]?.key
    return html`<div class="tree" role="tree" aria-label=${label}
      @click=${this.onClick} @keydown=${this.onKeyDown} @focusin=${this.onFocusIn}>${
      repeat(this.rows, (each) => each.key, (each) => {
        const { className, content, current } = row(each)
        return html`<div role="treeitem" data-key=${each.key} class=${className} style=${`--level:${each.level}`}
          tabindex=${each.key === tabStop ? 0 : -1} aria-level=${each.level} aria-setsize=${each.setSize}
          aria-posinset=${each.posInSet} aria-expanded=${each.expandable ? String(each.expanded) : nothing}
          aria-current=${current ? "true" : nothing}>${
          each.expandable
            ? html`<span class="toggle" title=${t(each.expanded ? "collapse" : "expand")}>${chevron}</span>`
            : html`<span class="toggle"></span>`
        }${content}</div>`
      })
    }</div>`
  }
}
