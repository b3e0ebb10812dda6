/**
 * `<docstack-redaction>`: find and redact, and the review of what is marked. A search (text, a
 * regular expression, or one of the policy's rules such as e-mail addresses) lists its hits, each
 * to keep or leave out, and marks the kept ones at once, with the reason chosen. Below, every mark
 * of the document: a click goes to it, a button takes it back. Marks are annotations until applied:
 * reviewable and reversible (undo too). "Apply" asks once, then the viewer makes the redacted copy.
 */
import { css, html, LitElement, nothing, type PropertyValues } from "lit"
import type { AnnotationController } from "../annotations/AnnotationController.ts"
import { type Annotation, boundsOf, isRedaction, unionOf } from "../annotations/AnnotationModel.ts"
import { fromQuads } from "../annotations/AnnotationTools.ts"
import type { SearchHit, ViewerClient } from "../client/ViewerClient.ts"
import { FindController, type FindState, noFind } from "../find/FindController.ts"
import type { Translate } from "../i18n/messages.ts"
import { panelStyles } from "../panels/PanelStyles.ts"

/** A hit already covered by a text redaction on its page (marked before): not offered again. */
const covered = (hit: SearchHit, marks: ReadonlyArray<Annotation>) => {
  const box = unionOf(hit.rects)
  const cx = box.x + box.w / 2
  const cy = box.y + box.h / 2
  return marks.some((m) =>
    m.page === hit.pageNumber &&
    (m.quadPoints ?? [m.position]).some((q) => cx >= q.x && cx <= q.x + q.w && cy >= q.y && cy <= q.y + q.h)
  )
}

export class RedactionPanel extends LitElement {
  static override properties = {
    controller: { attribute: false },
    client: { attribute: false },
    uuid: { type: String },
    pageCount: { type: Number },
    t: { attribute: false },
    language: { type: String },
    version: { type: Number },
    found: { state: true },
    excluded: { state: true },
    confirming: { state: true }
  }

  declare controller: AnnotationController
  declare client: ViewerClient
  declare uuid: string
  declare pageCount: number
  declare t: Translate
  declare language: string
  declare version: number
  declare found: FindState
  /** Hits the reader unticked (by index in `found.hits`). */
  declare excluded: ReadonlySet<number>
  declare confirming: boolean

  private finder: FindController | null = null
  private regex = false
  private caseSensitive = false

  static override styles = [
    panelStyles,
    css`
      section {
        padding: 8px;
        border-bottom: 1px solid var(--docstack-border, #d4d4d8);
        font-size: 13px;
      }
      h3 {
        margin: 0 0 6px;
        font-size: 12px;
        text-transform: uppercase;
        letter-spacing: 0.04em;
        color: var(--docstack-muted, #6b7280);
      }
      form {
        display: flex;
        gap: 4px;
        flex-wrap: wrap;
      }
      input[type="search"] {
        flex: 1 1 10em;
        min-width: 0;
        height: 28px;
        padding: 0 6px;
        font: inherit;
        color: inherit;
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 4px;
        background: var(--docstack-background, #fff);
      }
      label {
        display: inline-flex;
        gap: 4px;
        align-items: center;
      }
      button {
        padding: 4px 10px;
        font: inherit;
        color: inherit;
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 4px;
        background: var(--docstack-toolbar-background, #fafafa);
        cursor: pointer;
      }
      button:disabled {
        opacity: 0.5;
        cursor: default;
      }
      button.primary {
        background: #b3261e;
        border-color: #b3261e;
        color: #fff;
        font-weight: 600;
      }
      .rules {
        display: flex;
        flex-wrap: wrap;
        gap: 4px;
        margin-top: 6px;
      }
      .rules button {
        font-size: 12px;
        padding: 2px 8px;
      }
      ul {
        list-style: none;
        margin: 6px 0;
        padding: 0;
        max-height: 40vh;
        overflow: auto;
      }
      li {
        display: flex;
        align-items: center;
        gap: 6px;
        padding: 3px 2px;
        border-radius: 4px;
      }
      li:hover {
        background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 8%, transparent);
      }
      .where {
        flex: none;
        color: var(--docstack-muted, #6b7280);
        font-variant-numeric: tabular-nums;
      }
      .what {
        flex: 1 1 auto;
        min-width: 0;
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }
      .mark {
        text-align: left;
        border: 0;
        background: none;
        padding: 2px;
        display: flex;
        gap: 6px;
        flex: 1 1 auto;
        min-width: 0;
      }
      .status {
        color: var(--docstack-muted, #6b7280);
      }
      .confirm {
        margin-top: 8px;
        padding: 8px;
        border: 1px solid #b3261e;
        border-radius: 6px;
      }
      .row {
        display: flex;
        gap: 6px;
        justify-content: flex-end;
        margin-top: 6px;
      }
      :focus-visible {
        outline: 2px solid var(--docstack-focus, #0b62d6);
        outline-offset: 1px;
      }
    `
  ]

  constructor() {
    super()
    this.found = noFind
    this.excluded = new Set()
    this.confirming = false
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    this.finder?.cancel()
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has("uuid") || changed.has("client") || changed.has("pageCount")) {
      this.finder?.cancel()
      this.finder = new FindController(this.client, this.uuid, this.pageCount, (state) => {
        if (state.query !== this.found.query) this.excluded = new Set()
        this.found = state
      })
      this.found = noFind
    }
  }

  private get marks() {
    return (this.controller.store?.all() ?? []).filter((a) => isRedaction(a.type))
  }

  private search(text: string, options: { regex: boolean; caseSensitive: boolean }) {
    void this.finder?.find(text, { ...options, accentSensitive: false }, 0)
  }

  private onSubmit(event: Event) {
    event.preventDefault()
    const input = this.renderRoot.querySelector<HTMLInputElement>("input[type=search]")!
    this.search(input.value, { regex: this.regex, caseSensitive: this.caseSensitive })
  }

  /** The hits ticked and not marked before: what "mark" marks. */
  private chosen(): ReadonlyArray<SearchHit> {
    const marks = this.marks
    return this.found.hits.filter((hit, index) => !this.excluded.has(index) && !covered(hit, marks))
  }

  private markChosen() {
    const store = this.controller.store
    const hits = this.chosen()
    if (store === null || hits.length === 0) return
    store.create(
      hits.map((hit) => fromQuads(this.controller.makingFor("RedactText", hit.pageNumber), hit.rects, hit.text))
    )
    this.excluded = new Set()
  }

  private goTo(a: Annotation) {
    this.controller.store?.select(a.id)
    this.dispatchEvent(
      new CustomEvent("navigate", {
        bubbles: true,
        composed: true,
        detail: { index: a.page, top: Math.max(0, boundsOf(a).y - 36) }
      })
    )
  }

  private hitsSection() {
    const { t, found } = this
    if (found.query === "") return nothing
    if (found.error !== null) return html`<p class="status" role="alert">${found.error}</p>`
    const marks = this.marks
    const chosen = this.chosen().length
    return html`<p class="status" role="status">${
      found.done ? t("redactHits", { count: found.hits.length }) : t("findSearching", { total: found.hits.length })
    }</p>
      ${
      found.hits.length === 0 && found.done
        ? html`<p class="status">${t("redactNoHits")}</p>`
        : html`<ul aria-label=${t("redactHits", { count: found.hits.length })}>${
          found.hits.map((hit, index) => {
            const done = covered(hit, marks)
            return html`<li><label class="what"><input type="checkbox" .checked=${!done && !this.excluded.has(index)}
              ?disabled=${done} @change=${(event: Event) => {
              const next = new Set(this.excluded)
              if ((event.target as HTMLInputElement).checked) next.delete(index)
              else next.add(index)
              this.excluded = next
            }}><span class="where">${
              t("page", { number: hit.pageNumber + 1 })
            }</span><span>${hit.text}</span></label></li>`
          })
        }</ul>
        <div class="row">
          <button type="button" class="primary" data-action="mark-hits" ?disabled=${
          chosen === 0 || !found.done || this.readOnly
        }
            @click=${() => this.markChosen()}>${t("redactMarkSelected", { count: chosen })}</button>
        </div>`
    }`
  }

  private get readOnly() {
    return this.controller.store?.readOnly ?? true
  }

  private marksSection() {
    const { t } = this
    const marks = this.marks
    const policy = this.controller.store?.policy
    const reason = (name: string | undefined) => {
      const found = policy?.availableRedactReasons.find((r) => r.symbolicName === name)
      return found ? found.displayName[this.language] ?? found.displayName.en ?? name : name ?? ""
    }
    return html`<section>
      <h3>${t("redactMarks")} (${marks.length})</h3>
      ${
      marks.length === 0
        ? html`<p class="status">${t("redactNoMarks")}</p>`
        : html`<ul aria-label=${t("redactMarks")}>${
          marks.map((a) =>
            html`<li data-id=${a.id}><button type="button" class="mark" @click=${() => this.goTo(a)}>
              <span class="where">${t("page", { number: a.page + 1 })}</span>
              <span class="what">${a.contents || t(a.type === "Redact" ? "typeRedact" : "typeRedactText")}</span>
              <span class="where">${reason(a.redactReason)}</span></button>
              <button type="button" aria-label=${`${t("deleteAnnotation")} ${
              a.contents ?? ""
            }`} ?disabled=${this.readOnly}
                @click=${() => this.controller.store?.remove([a.id])}>×</button></li>`
          )
        }</ul>`
    }
      ${
      this.confirming
        ? html`<div class="confirm" role="alertdialog" aria-label=${t("applyRedactions", { count: marks.length })}>
            <p>${t("redactConfirm", { count: marks.length })}</p>
            <div class="row">
              <button type="button" @click=${() => (this.confirming = false)}>${t("cancel")}</button>
              <button type="button" class="primary" data-action="confirm-apply" @click=${() => {
          this.confirming = false
          this.dispatchEvent(new CustomEvent("apply-redactions", { bubbles: true, composed: true }))
        }}>${t("applyRedactions", { count: marks.length })}</button>
            </div>
          </div>`
        : html`<div class="row"><button type="button" class="primary" data-action="apply"
            ?disabled=${marks.length === 0} @click=${() => (this.confirming = true)}>${
          t("applyRedactions", { count: marks.length })
        }</button></div>`
    }
    </section>`
  }

  /** Asks to apply the marks (the bar's "apply" button lands here). */
  confirmApply() {
    this.confirming = this.marks.length > 0
  }

  protected override render() {
    const { t } = this
    // Read-only: nothing can be marked; what is marked can still be reviewed and applied to a copy.
    if (this.readOnly) return this.marksSection()
    const rules = this.controller.store?.policy?.annotationCreationRuleCatalog.annotationCreationRules ?? []
    return html`<section>
        <h3>${t("findAndRedact")}</h3>
        <form @submit=${this.onSubmit}>
          <input type="search" aria-label=${t("redactSearch")} placeholder=${t("redactSearch")}>
          <button type="submit">${t("redactSearchButton")}</button>
          <label><input type="checkbox" @change=${(
      e: Event
    ) => (this.caseSensitive = (e.target as HTMLInputElement).checked)}>${t("matchCase")}</label>
          <label><input type="checkbox" @change=${(
      e: Event
    ) => (this.regex = (e.target as HTMLInputElement).checked)}>${t("regex")}</label>
        </form>
        ${
      rules.length > 0
        ? html`<div class="rules" role="group" aria-label=${t("redactRules")}>${
          rules.map((rule) =>
            html`<button type="button" data-rule=${rule.ruleId} @click=${() =>
              this.search(rule.searchOptions.searchText, {
                regex: rule.searchOptions.regex,
                caseSensitive: true
              })}>${rule.ruleName}</button>`
          )
        }</div>`
        : nothing
    }
        ${this.hitsSection()}
      </section>
      ${this.marksSection()}`
  }
}

customElements.define("docstack-redaction", RedactionPanel)
