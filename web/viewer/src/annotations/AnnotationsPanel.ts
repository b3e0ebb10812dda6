/**
 * `<docstack-annotations>`: every annotation of the document in a side panel, page by page, filtered
 * by type and by author. Choosing one selects it and goes to it; the one selected opens its comment:
 * its text, a note's review status and its replies, where the policy allows them. The list is one
 * tab stop, walked with the arrow keys, as the other panels' trees are.
 */
import { css, html, LitElement, nothing, type PropertyValues } from "lit"
import { repeat } from "lit/directives/repeat.js"
import type { MessageKey, Translate } from "../i18n/messages.ts"
import { panelStyles } from "../panels/PanelStyles.ts"
import type { AnnotationController } from "./AnnotationController.ts"
import {
  type Annotation,
  boundsOf,
  cssColor,
  defaultColor,
  isLocked,
  newAnnotationId,
  REVIEW_STATES
} from "./AnnotationModel.ts"

/** What to call an annotation, from the catalog (`typeHighlight`, …; a line with an arrowhead is an arrow). */
export const typeLabel = (t: Translate, a: Pick<Annotation, "type" | "lineEndings">) =>
  a.type === "Line" && a.lineEndings?.some((ending) => ending !== "None")
    ? t("typeArrow")
    : t(`type${a.type}` as MessageKey)

const when = (iso: string | undefined, language: string) => {
  if (!iso) return ""
  const date = new Date(iso)
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(language, { dateStyle: "medium", timeStyle: "short" })
}

export class AnnotationsPanel extends LitElement {
  static override properties = {
    controller: { attribute: false },
    t: { attribute: false },
    language: { type: String },
    version: { type: Number },
    typeFilter: { state: true },
    authorFilter: { state: true },
    focusIndex: { state: true }
  }

  declare controller: AnnotationController
  declare t: Translate
  declare language: string
  /** The store's version: any change redraws the list. */
  declare version: number
  declare typeFilter: string
  declare authorFilter: string
  declare focusIndex: number

  static override styles = [
    panelStyles,
    css`
      .filters {
        display: flex;
        flex-wrap: wrap;
        gap: 4px;
        padding: 6px;
        border-bottom: 1px solid var(--docstack-border, #d4d4d8);
      }
      select {
        flex: 1 1 6em;
        min-width: 0;
        height: 28px;
        font: inherit;
        font-size: 12px;
        color: inherit;
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 4px;
        background: var(--docstack-background, #fff);
      }
      .count {
        width: 100%;
        font-size: 12px;
        color: var(--docstack-muted, #6b7280);
      }
      .page {
        padding: 6px 8px 2px;
        font-size: 12px;
        font-weight: 600;
        color: var(--docstack-muted, #6b7280);
      }
      .item {
        margin: 2px 4px;
        border-radius: 6px;
        border: 1px solid transparent;
      }
      .item[aria-current] {
        border-color: var(--docstack-accent, #0b62d6);
        background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 8%, transparent);
      }
      .head {
        display: grid;
        grid-template-columns: 12px 1fr;
        gap: 2px 6px;
        width: 100%;
        padding: 6px;
        border: 0;
        background: none;
        color: inherit;
        font: inherit;
        font-size: 12px;
        text-align: left;
        cursor: pointer;
        border-radius: 6px;
      }
      .head:focus-visible {
        outline: 2px solid var(--docstack-focus, #0b62d6);
        outline-offset: -2px;
      }
      .chip {
        width: 10px;
        height: 10px;
        margin-top: 3px;
        border-radius: 3px;
        border: 1px solid rgba(0, 0, 0, 0.3);
      }
      .type {
        font-weight: 600;
      }
      .meta,
      .excerpt {
        grid-column: 2;
        color: var(--docstack-muted, #6b7280);
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }
      .excerpt {
        color: inherit;
      }
      .badge {
        margin-left: 6px;
        padding: 0 5px;
        border-radius: 8px;
        font-size: 11px;
        font-weight: 400;
        background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 15%, transparent);
      }
      .thread {
        display: flex;
        flex-direction: column;
        gap: 6px;
        padding: 0 6px 8px 24px;
        font-size: 12px;
      }
      textarea {
        width: 100%;
        box-sizing: border-box;
        min-height: 3.2em;
        resize: vertical;
        font: inherit;
        color: inherit;
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 4px;
        background: var(--docstack-background, #fff);
      }
      .reply {
        padding: 4px 6px;
        border-left: 2px solid var(--docstack-border, #d4d4d8);
      }
      .reply .meta {
        display: block;
      }
      .row {
        display: flex;
        gap: 4px;
        align-items: center;
        justify-content: space-between;
      }
      button.small {
        padding: 3px 8px;
        font: inherit;
        color: inherit;
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 4px;
        background: var(--docstack-toolbar-background, #fafafa);
        cursor: pointer;
      }
      button.small:disabled {
        opacity: 0.5;
        cursor: default;
      }
      :focus-visible {
        outline: 2px solid var(--docstack-focus, #0b62d6);
        outline-offset: 1px;
      }
    `
  ]

  constructor() {
    super()
    this.typeFilter = ""
    this.authorFilter = ""
    this.focusIndex = 0
  }

  private get store() {
    return this.controller.store
  }

  private shown(): ReadonlyArray<Annotation> {
    return (this.store?.all() ?? []).filter((a) =>
      // Filtered by the name shown, so an arrow is not listed under "Line".
      (this.typeFilter === "" || typeLabel(this.t, a) === this.typeFilter) &&
      (this.authorFilter === "" || (a.creator ?? "") === this.authorFilter)
    )
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    // The selected annotation's entry holds the tab stop, so Tab from the pages lands on it.
    if (changed.has("version")) {
      const index = this.shown().findIndex((a) => a.id === this.store?.selected)
      if (index >= 0) this.focusIndex = index
    }
  }

  protected override updated(changed: PropertyValues<this>) {
    if (changed.has("version") && this.store?.selected) {
      this.renderRoot.querySelector(`.item[data-id="${CSS.escape(this.store.selected)}"]`)?.scrollIntoView({
        block: "nearest"
      })
    }
  }

  /** Selects `a` and asks the viewer to show it. */
  private choose(a: Annotation) {
    this.store?.select(a.id)
    const box = boundsOf(a)
    this.dispatchEvent(
      new CustomEvent("navigate", {
        bubbles: true,
        composed: true,
        detail: { index: a.page, top: Math.max(0, box.y - 36) }
      })
    )
  }

  private onKeyDown(event: KeyboardEvent, list: ReadonlyArray<Annotation>) {
    if (
      (event.target as HTMLElement).tagName !== "BUTTON" || !(event.target as HTMLElement).classList.contains("head")
    ) {
      return
    }
    const last = list.length - 1
    const to = event.key === "ArrowDown"
      ? Math.min(last, this.focusIndex + 1)
      : event.key === "ArrowUp"
      ? Math.max(0, this.focusIndex - 1)
      : event.key === "Home"
      ? 0
      : event.key === "End"
      ? last
      : null
    if (event.key === "Delete" && !this.store?.readOnly) {
      const a = list[this.focusIndex]
      if (a && !isLocked(a)) this.store?.remove([a.id])
      return
    }
    if (to === null) return
    event.preventDefault()
    this.focusIndex = to
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<HTMLElement>(`.item[data-index="${to}"] .head`)?.focus()
    )
  }

  private update1(a: Annotation, change: Partial<Annotation>) {
    this.store?.update([{ ...a, ...change }])
  }

  private thread(a: Annotation) {
    const { t } = this
    const store = this.store!
    const policy = store.policy
    const editable = !store.readOnly && !isLocked(a)
    const isNote = a.type === "Text"
    const replies = a.replies ?? []
    const canReply = editable && isNote && (policy?.textAnnotationsSupportReply ?? true)
    const canStatus = isNote && (policy?.textAnnotationsSupportStatus ?? true)
    const sendReply = (event: Event) => {
      const field = (event.target as HTMLElement).closest(".thread")!.querySelector<HTMLTextAreaElement>(
        "textarea.new-reply"
      )!
      const text = field.value.trim()
      if (text === "") return
      field.value = ""
      this.update1(a, {
        replies: [...replies, {
          id: newAnnotationId(),
          creator: this.controller.author,
          date: new Date().toISOString(),
          contents: text
        }]
      })
    }
    return html`<div class="thread">
      <textarea class="contents" aria-label=${t("comment")} placeholder=${t("commentPlaceholder")}
        .value=${a.contents ?? ""} ?readonly=${!editable}
        @change=${(event: Event) =>
      this.update1(a, { contents: (event.target as HTMLTextAreaElement).value })}></textarea>
      ${
      canStatus
        ? html`<label class="row">${t("reviewStatus")}<select aria-label=${t("reviewStatus")} ?disabled=${!editable}
            @change=${(event: Event) => this.update1(a, { status: (event.target as HTMLSelectElement).value })}>${
          REVIEW_STATES.map((state) =>
            html`<option value=${state} ?selected=${(a.status ?? "None") === state}>${t(`status${state}`)}</option>`
          )
        }</select></label>`
        : nothing
    }
      ${
      replies.map((reply) =>
        html`<div class="reply"><span class="meta">${reply.creator ?? t("unknownAuthor")} · ${
          when(reply.date, this.language)
        }</span>${reply.contents}</div>`
      )
    }
      ${
      canReply
        ? html`<textarea class="new-reply" aria-label=${t("reply")} placeholder=${t("replyPlaceholder")}
            @keydown=${(event: KeyboardEvent) => {
          if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) sendReply(event)
        }}></textarea>
          <div class="row"><span></span><button type="button" class="small" data-action="reply" @click=${sendReply}>${
          t("sendReply")
        }</button></div>`
        : nothing
    }
      <div class="row">
        <span class="meta">${t("created", { date: when(a.creationDate, this.language) })}</span>
        ${
      editable
        ? html`<button type="button" class="small" data-action="delete" @click=${() => store.remove([a.id])}>${
          t("deleteAnnotation")
        }</button>`
        : nothing
    }
      </div>
    </div>`
  }

  private item(a: Annotation, index: number, list: ReadonlyArray<Annotation>) {
    const { t } = this
    const selected = this.store?.selected === a.id
    const replies = a.replies?.length ?? 0
    const excerpt = a.contents ?? ""
    return html`<div class="item" role="listitem" data-id=${a.id} data-index=${index}
      aria-current=${selected ? "true" : nothing}>
      <button type="button" class="head" tabindex=${index === this.focusIndex ? 0 : -1} aria-expanded=${
      String(selected)
    }
        @click=${() => {
      this.focusIndex = index
      this.choose(a)
    }} @keydown=${(event: KeyboardEvent) => this.onKeyDown(event, list)}
        @dblclick=${() => this.controller.editText(a.id)}>
        <span class="chip" style=${`background:${
      cssColor(a.type === "FreeText" ? a.fontColor ?? { r: 0, g: 0, b: 0 } : defaultColor(a))
    }`}></span>
        <span class="type">${typeLabel(t, a)}${
      a.status && a.status !== "None"
        ? html`<span class="badge">${t(`status${a.status}` as MessageKey)}</span>`
        : nothing
    }${
      replies > 0
        ? html`<span class="badge">${replies === 1 ? t("oneReply") : t("replies", { count: replies })}</span>`
        : nothing
    }</span>
        <span class="meta">${a.creator ?? t("unknownAuthor")} · ${when(a.date ?? a.creationDate, this.language)}</span>
        ${excerpt ? html`<span class="excerpt">${excerpt}</span>` : nothing}
      </button>
      ${selected ? this.thread(a) : nothing}
    </div>`
  }

  protected override render() {
    const { t } = this
    const store = this.store
    if (store === null) return nothing
    if (store.state === "loading") return html`<p class="message">${t("loadingAnnotations")}</p>`
    if (store.state === "failed") {
      return html`<p class="message" role="alert">${t("annotationsError", { message: store.error ?? "" })}</p>`
    }
    const all = store.all()
    const types = [...new Set(all.map((a) => typeLabel(t, a)))].sort()
    const authors = [...new Set(all.map((a) => a.creator ?? ""))].sort()
    const list = this.shown()
    let page = -1
    return html`<div class="filters">
        <select aria-label=${t("filterType")} @change=${(event: Event) => {
      this.typeFilter = (event.target as HTMLSelectElement).value
      this.focusIndex = 0
    }}>
          <option value="">${t("allTypes")}</option>
          ${types.map((type) => html`<option value=${type} ?selected=${type === this.typeFilter}>${type}</option>`)}
        </select>
        <select aria-label=${t("filterAuthor")} @change=${(event: Event) => {
      this.authorFilter = (event.target as HTMLSelectElement).value
      this.focusIndex = 0
    }}>
          <option value="">${t("allAuthors")}</option>
          ${
      authors.map((author) =>
        html`<option value=${author} ?selected=${author === this.authorFilter}>${author || t("unknownAuthor")}</option>`
      )
    }
        </select>
        <span class="count" role="status">${t("annotationCount", { shown: list.length, total: all.length })}</span>
      </div>
      ${
      list.length === 0
        ? html`<p class="message">${all.length === 0 ? t("noAnnotations") : t("noAnnotationsMatch")}</p>`
        : html`<div role="list" aria-label=${t("annotations")}>${
          repeat(list, (a) => a.id, (a, index) => {
            const header = a.page !== page
              ? html`<div class="page">${t("page", { number: a.page + 1 })}</div>`
              : nothing
            page = a.page
            return html`${header}${this.item(a, index, list)}`
          })
        }</div>`
    }`
  }
}

customElements.define("docstack-annotations", AnnotationsPanel)
