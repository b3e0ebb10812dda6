/**
 * `<docstack-change-list>`: every text difference, in the left document's reading order: its type,
 * its page on each side, the words taken out and the words put in. A listbox whose selection
 * follows the focus: arrows, Home and End walk it and each change is shown on both sides as it is
 * reached, as next and previous do.
 */
import { css, html, LitElement, nothing, type PropertyValues } from "lit"
import { repeat } from "lit/directives/repeat.js"
import type { TextChange } from "../client/ViewerClient.ts"
import type { Translate } from "../i18n/messages.ts"
import { panelStyles } from "../panels/PanelStyles.ts"

/** A change's text past this many characters is cut in the list (the pages show it whole). */
const MAX_TEXT = 240

const TYPE_KEYS = {
  MODIFIED: "changeModified",
  DELETED: "changeDeleted",
  INSERTED: "changeInserted"
} as const

const cut = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text)

export class ChangeList extends LitElement {
  static override properties = {
    changes: { attribute: false },
    current: { type: Number },
    t: { attribute: false },
    focusIndex: { state: true }
  }

  static override styles = [
    panelStyles,
    css`
      ol {
        margin: 0;
        padding: 4px;
        list-style: none;
      }
      li {
        display: grid;
        grid-template-columns: auto 1fr;
        gap: 2px 8px;
        padding: 6px 8px;
        border-radius: 6px;
        border-left: 3px solid transparent;
        cursor: pointer;
        font-size: 13px;
      }
      li:hover {
        background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 8%, transparent);
      }
      li[aria-selected="true"] {
        background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 16%, transparent);
        border-left-color: var(--docstack-accent, #0b62d6);
      }
      li:focus-visible {
        outline: 2px solid var(--docstack-focus, #0b62d6);
        outline-offset: -2px;
      }
      .type {
        font-weight: 600;
        font-size: 12px;
      }
      .type.MODIFIED {
        color: var(--docstack-modified, #b45309);
      }
      .type.DELETED {
        color: var(--docstack-deleted, #c0262d);
      }
      .type.INSERTED {
        color: var(--docstack-inserted, #15803d);
      }
      .where {
        justify-self: end;
        color: var(--docstack-muted, #6b7280);
        font-variant-numeric: tabular-nums;
        font-size: 12px;
      }
      del,
      ins {
        grid-column: 1 / -1;
        text-decoration: none;
        overflow-wrap: anywhere;
        display: -webkit-box;
        -webkit-box-orient: vertical;
        -webkit-line-clamp: 3;
        overflow: hidden;
        padding: 0 4px;
        border-radius: 3px;
      }
      del {
        background: color-mix(in srgb, var(--docstack-deleted, #c0262d) 14%, transparent);
        text-decoration: line-through;
        text-decoration-color: color-mix(in srgb, var(--docstack-deleted, #c0262d) 60%, transparent);
      }
      ins {
        background: color-mix(in srgb, var(--docstack-inserted, #15803d) 16%, transparent);
      }
    `
  ]

  declare changes: ReadonlyArray<TextChange>
  /** The change shown on both sides, -1 for none. */
  declare current: number
  declare t: Translate
  /** The row holding the list's one tab stop. */
  declare focusIndex: number

  constructor() {
    super()
    this.changes = []
    this.current = -1
    this.focusIndex = 0
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has("current") && this.current >= 0) this.focusIndex = this.current
    this.focusIndex = Math.max(0, Math.min(this.focusIndex, this.changes.length - 1))
  }

  protected override updated(changed: PropertyValues<this>) {
    // A change reached by next or previous scrolls into the list's view too.
    if (changed.has("current") && this.current >= 0) {
      this.renderRoot.querySelector(`li[data-index="${this.current}"]`)?.scrollIntoView({ block: "nearest" })
    }
  }

  /** Puts the focus on the selected change (or the first), for the keyboard. */
  override focus() {
    this.renderRoot.querySelector<HTMLElement>(`li[data-index="${this.focusIndex}"]`)?.focus()
  }

  private select(index: number) {
    this.focusIndex = index
    this.dispatchEvent(new CustomEvent("select-change", { bubbles: true, composed: true, detail: { index } }))
  }

  private indexOf(event: Event): number | null {
    const row = (event.target as Element).closest<HTMLElement>("li[data-index]")
    return row === null ? null : Number(row.dataset.index)
  }

  /** Arrows move by one, Home and End to the ends; Enter and Space show the change the focus is on. */
  private readonly onKeyDown = async (event: KeyboardEvent) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return
    const from = this.indexOf(event) ?? this.focusIndex
    const last = this.changes.length - 1
    const moves: Readonly<Record<string, number>> = {
      ArrowDown: from + 1,
      ArrowUp: from - 1,
      Home: 0,
      End: last,
      Enter: from,
      " ": from
    }
    const to = moves[event.key]
    if (to === undefined) return
    event.preventDefault()
    this.select(Math.max(0, Math.min(last, to)))
    await this.updateComplete
    this.focus()
  }

  private where(change: TextChange) {
    const { t } = this
    const left = change.left?.pageNumber
    const right = change.right?.pageNumber
    if (left !== undefined && right !== undefined && left !== right) {
      return t("changePages", { left: left + 1, right: right + 1 })
    }
    return t("changePage", { page: (left ?? right ?? 0) + 1 })
  }

  private row(change: TextChange, index: number) {
    const { t } = this
    const type = t(TYPE_KEYS[change.type])
    const where = this.where(change)
    // Said whole, as struck-out and inserted text are not read as such by every screen reader.
    const label = [
      `${type}, ${where}`,
      change.left === null ? "" : t("originalText", { text: cut(change.left.text) }),
      change.right === null ? "" : t("revisedText", { text: cut(change.right.text) })
    ].filter((part) => part !== "").join(". ")
    return html`<li role="option" data-index=${index} aria-selected=${String(index === this.current)}
      tabindex=${index === this.focusIndex ? 0 : -1} aria-posinset=${index + 1} aria-setsize=${this.changes.length}
      aria-label=${label}>
      <span class=${`type ${change.type}`}>${type}</span>
      <span class="where">${where}</span>
      ${change.left === null ? nothing : html`<del>${cut(change.left.text)}</del>`}
      ${change.right === null ? nothing : html`<ins>${cut(change.right.text)}</ins>`}
    </li>`
  }

  protected override render() {
    if (this.changes.length === 0) return html`<p class="message" role="status">${this.t("noChanges")}</p>`
    return html`<ol role="listbox" aria-label=${this.t("changesPanel")} @keydown=${this.onKeyDown}
      @click=${(event: MouseEvent) => {
      const index = this.indexOf(event)
      if (index !== null) this.select(index)
    }}>${repeat(this.changes, (_, index) => index, (change, index) => this.row(change, index))}</ol>`
  }
}

customElements.define("docstack-change-list", ChangeList)
