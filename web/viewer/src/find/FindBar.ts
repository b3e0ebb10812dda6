/**
 * The find bar: the text, its options (case, accents, regular expression), the hit count and
 * previous/next. It only asks; the viewer searches (FindController) and tells it what was found.
 */
import { css, html, LitElement } from "lit"
import type { SearchOptions } from "../client/ViewerClient.ts"
import type { Translate } from "../i18n/messages.ts"
import { barStyles, icon, iconStyles } from "../toolbar/Icons.ts"
import type { FindState } from "./FindController.ts"

/** Typing waits this long for the next key before searching. */
const TYPING_DELAY_MS = 250

export class FindBar extends LitElement {
  static override properties = {
    t: { attribute: false },
    state: { attribute: false }
  }

  declare t: Translate
  declare state: FindState

  private options: Required<SearchOptions> = { caseSensitive: false, accentSensitive: false, regex: false }
  private typing: ReturnType<typeof setTimeout> | undefined

  static override styles = [
    iconStyles,
    barStyles,
    css`
    input[type="search"] {
      flex: 1 1 12em;
      min-width: 8em;
      max-width: 24em;
      height: 30px;
      padding: 0 8px;
      border: 1px solid var(--docstack-border, #d4d4d8);
      border-radius: 4px;
      background: var(--docstack-background, #fff);
      color: inherit;
      font: inherit;
    }
    button {
      display: inline-flex;
      align-items: center;
      justify-content: center;
      min-width: 32px;
      height: 32px;
      border: 1px solid transparent;
      border-radius: 6px;
      background: transparent;
      color: inherit;
      font: inherit;
      cursor: pointer;
    }
    button:hover {
      background: color-mix(in srgb, currentColor 8%, transparent);
    }
    button[aria-pressed="true"] {
      background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 18%, transparent);
      border-color: color-mix(in srgb, var(--docstack-accent, #0b62d6) 45%, transparent);
    }
    :focus-visible {
      outline: 2px solid var(--docstack-focus, #0b62d6);
      outline-offset: 1px;
    }
    .option {
      font-weight: 600;
      min-width: 30px;
      font-size: 13px;
    }
    .status {
      padding: 0 6px;
      color: var(--docstack-muted, #6b7280);
      white-space: nowrap;
    }
    .status.error {
      color: #d14343;
    }
  `
  ]

  /** A search started by the element's search() shows its text in the field. */
  protected override updated() {
    const input = this.renderRoot.querySelector<HTMLInputElement>("input")
    if (
      input && this.state.query !== "" && input.value !== this.state.query && this.shadowRoot?.activeElement !== input
    ) {
      input.value = this.state.query
    }
  }

  /** Puts the cursor in the text field (Ctrl+F, the toolbar's find button). */
  focusInput() {
    const input = this.renderRoot.querySelector<HTMLInputElement>("input")
    input?.focus()
    input?.select()
  }

  private get input() {
    return this.renderRoot.querySelector<HTMLInputElement>("input")!
  }

  private search(now: boolean) {
    clearTimeout(this.typing)
    const ask = () =>
      this.dispatchEvent(
        new CustomEvent("find", { detail: { query: this.input.value, options: { ...this.options } } })
      )
    if (now) ask()
    else this.typing = setTimeout(ask, TYPING_DELAY_MS)
  }

  private move(direction: 1 | -1) {
    this.dispatchEvent(new CustomEvent("find-move", { detail: { direction } }))
  }

  private onKey(event: KeyboardEvent) {
    if (event.key === "Enter") {
      event.preventDefault()
      // Enter on a new text searches it; on the text already searched it moves to the next hit.
      if (this.input.value !== this.state.query) this.search(true)
      else this.move(event.shiftKey ? -1 : 1)
    } else if (event.key === "Escape") {
      event.preventDefault()
      this.dispatchEvent(new CustomEvent("find-close"))
    }
  }

  private toggle(option: keyof SearchOptions) {
    this.options = { ...this.options, [option]: !this.options[option] }
    this.requestUpdate()
    if (this.input.value !== "") this.search(true)
  }

  private status() {
    const { t, state } = this
    if (state.error !== null) {
      return html`<span class="status error" role="status">${t("findError", { message: state.error })}</span>`
    }
    if (state.query === "") return html`<span class="status" role="status"></span>`
    const total = state.hits.length
    const text = !state.done
      ? t("findSearching", { total })
      : total === 0
      ? t("findNone")
      : t("findCount", { current: state.current + 1, total })
    return html`<span class="status" role="status" aria-live="polite">${text}</span>`
  }

  protected override render() {
    const { t } = this
    const option = (name: keyof SearchOptions, label: string, text: string) =>
      html`<button class="option" type="button" aria-pressed=${this.options[name]} title=${label} aria-label=${label}
        @click=${() => this.toggle(name)}>${text}</button>`
    return html`
      <input type="search" aria-label=${t("findInput")} placeholder=${t("findInput")} enterkeyhint="search"
        @input=${() => this.search(false)} @keydown=${this.onKey}>
      ${option("caseSensitive", t("matchCase"), "Aa")}
      ${option("accentSensitive", t("matchAccents"), "é")}
      ${option("regex", t("regex"), ".*")}
      <button type="button" aria-label=${t("findPrevious")} title=${t("findPrevious")} @click=${() => this.move(-1)}>${
      icon("up")
    }</button>
      <button type="button" aria-label=${t("findNext")} title=${t("findNext")} @click=${() => this.move(1)}>${
      icon("down")
    }</button>
      ${this.status()}
      <button type="button" aria-label=${t("closeFind")} title=${t("closeFind")} @click=${() =>
      this.dispatchEvent(new CustomEvent("find-close"))}>${icon("close")}</button>
    `
  }
}

customElements.define("docstack-find-bar", FindBar)
