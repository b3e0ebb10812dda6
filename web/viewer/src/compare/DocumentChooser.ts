/**
 * `<docstack-compare-chooser>`: the second document of a comparison, chosen as a reader has it at
 * hand: a file from their computer (uploaded), a document ID or viewer link pasted, or one of the
 * documents recently opened in this browser. Which side the document shown goes to is said, and
 * can be swapped, before comparing: differences read from the original (left) to the revision.
 */
import { css, html, LitElement, nothing } from "lit"
import { documentIdOf, type RecentDocument, recentDocuments } from "../client/RecentDocuments.ts"
import type { ViewerClient } from "../client/ViewerClient.ts"
import type { Language, Translate } from "../i18n/messages.ts"
import { icon, iconStyles } from "../toolbar/Icons.ts"

export class DocumentChooser extends LitElement {
  static override properties = {
    client: { attribute: false },
    t: { attribute: false },
    language: { type: String },
    uuid: { type: String },
    documentTitle: { type: String },
    thisOnLeft: { type: Boolean },
    uploading: { state: true },
    problem: { state: true },
    dragging: { state: true }
  }

  static override styles = [
    iconStyles,
    css`
      :host {
        display: block;
        overflow: auto;
        padding: 24px 16px;
        box-sizing: border-box;
        color: var(--docstack-text, #1f2328);
      }
      .card {
        max-width: 640px;
        margin: 0 auto;
        padding: 20px;
        border-radius: 10px;
        background: var(--docstack-toolbar-background, #fafafa);
        border: 1px solid var(--docstack-border, #d4d4d8);
      }
      :host([dragging]) .card {
        outline: 3px dashed var(--docstack-accent, #0b62d6);
        outline-offset: 4px;
      }
      h2 {
        margin: 0 0 16px;
        font-size: 17px;
      }
      h3 {
        margin: 18px 0 6px;
        font-size: 12px;
        text-transform: uppercase;
        letter-spacing: 0.04em;
        color: var(--docstack-muted, #6b7280);
      }
      .sides {
        display: grid;
        grid-template-columns: 1fr auto 1fr;
        align-items: stretch;
        gap: 8px;
      }
      .slot {
        padding: 8px 10px;
        border-radius: 8px;
        border: 1px solid var(--docstack-border, #d4d4d8);
        background: var(--docstack-background, #fff);
        min-width: 0;
        overflow-wrap: anywhere;
      }
      .slot small {
        display: block;
        color: var(--docstack-muted, #6b7280);
      }
      .slot.empty {
        border-style: dashed;
        color: var(--docstack-muted, #6b7280);
      }
      button,
      input {
        font: inherit;
        color: inherit;
      }
      button {
        display: inline-flex;
        align-items: center;
        gap: 6px;
        min-height: 32px;
        padding: 4px 12px;
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 6px;
        background: var(--docstack-background, #fff);
        cursor: pointer;
      }
      button.primary {
        background: var(--docstack-accent, #0b62d6);
        border-color: var(--docstack-accent, #0b62d6);
        color: #fff;
        font-weight: 600;
      }
      button:disabled {
        opacity: 0.5;
        cursor: default;
      }
      :focus-visible {
        outline: 2px solid var(--docstack-focus, #0b62d6);
        outline-offset: 1px;
      }
      .row {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 8px;
      }
      input[type="text"] {
        flex: 1 1 14em;
        min-width: 0;
        height: 32px;
        padding: 0 8px;
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 6px;
        background: var(--docstack-background, #fff);
      }
      input[type="file"] {
        display: none;
      }
      .hint,
      .note {
        color: var(--docstack-muted, #6b7280);
      }
      .problem {
        margin: 10px 0 0;
        color: #c0262d;
      }
      ul {
        margin: 0;
        padding: 0;
        list-style: none;
      }
      ul button {
        width: 100%;
        justify-content: space-between;
        margin: 2px 0;
        border-color: transparent;
        background: transparent;
        text-align: left;
      }
      ul button:hover {
        background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 10%, transparent);
      }
      .title {
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }
      .when {
        flex: none;
        color: var(--docstack-muted, #6b7280);
        font-size: 12px;
      }
      .footer {
        margin-top: 20px;
      }
      @media (max-width: 480px) {
        .sides {
          grid-template-columns: 1fr;
        }
        .swap {
          justify-self: center;
          transform: rotate(90deg);
        }
      }
    `
  ]

  declare client: ViewerClient
  declare t: Translate
  declare language: Language
  /** The document shown in the viewer: one of the two. */
  declare uuid: string
  declare documentTitle: string
  /** The document shown is the original (left) and the one chosen its revision, or the other way round. */
  declare thisOnLeft: boolean
  /** The name of the file being uploaded. */
  declare uploading: string | null
  /** What went wrong with the last choice, said under it. */
  declare problem: string | null
  declare dragging: boolean

  constructor() {
    super()
    this.thisOnLeft = true
    this.uploading = null
    this.problem = null
    this.dragging = false
    this.addEventListener("dragover", (event) => {
      if (!event.dataTransfer?.types.includes("Files")) return
      event.preventDefault()
      this.dragging = true
    })
    this.addEventListener("dragleave", () => (this.dragging = false))
    this.addEventListener("drop", (event) => {
      event.preventDefault()
      this.dragging = false
      const file = event.dataTransfer?.files[0]
      if (file) void this.upload(file)
    })
  }

  override updated() {
    this.toggleAttribute("dragging", this.dragging)
  }

  private choose(uuid: string) {
    this.dispatchEvent(new CustomEvent("choose", { detail: { uuid } }))
  }

  private async upload(file: File) {
    this.uploading = file.name
    this.problem = null
    try {
      this.choose(await this.client.upload(file, file.name))
    } catch (error) {
      this.problem = this.t("compareUploadFailed", { name: file.name, message: (error as Error).message })
    } finally {
      this.uploading = null
    }
  }

  private submitId(event: Event) {
    event.preventDefault()
    const input = this.renderRoot.querySelector<HTMLInputElement>("input[type=text]")!
    const uuid = documentIdOf(input.value)
    if (uuid === null) this.problem = this.t("notAnId")
    else if (uuid === this.uuid) this.problem = this.t("sameDocument")
    else this.choose(uuid)
  }

  private sideSlot(isThis: boolean, side: "sideOriginal" | "sideRevised") {
    const { t } = this
    return isThis
      ? html`<div class="slot"><small>${t(side)}</small>${this.documentTitle}</div>`
      : html`<div class="slot empty"><small>${t(side)}</small>${t("documentToChoose")}</div>`
  }

  private recent(entries: ReadonlyArray<RecentDocument>) {
    const { t } = this
    if (entries.length === 0) return html`<p class="note">${t("noRecent")}</p>`
    const date = new Intl.DateTimeFormat(this.language, { dateStyle: "medium", timeStyle: "short" })
    return html`<ul aria-label=${t("recentDocuments")}>${
      entries.map((entry) =>
        html`<li><button type="button" data-uuid=${entry.uuid} @click=${() => this.choose(entry.uuid)}
          aria-label=${t("compareWithRecent", { title: entry.title ?? entry.uuid })}>
          <span class="title">${entry.title ?? entry.uuid}</span>
          <span class="when">${date.format(entry.at)}</span>
        </button></li>`
      )
    }</ul>`
  }

  protected override render() {
    const { t } = this
    const recent = recentDocuments().filter((entry) => entry.uuid !== this.uuid)
    const picker = () => this.renderRoot.querySelector<HTMLInputElement>("input[type=file]")!.click()
    return html`<div class="card">
      <h2>${t("compareWithTitle", { title: this.documentTitle })}</h2>
      <div class="sides">
        ${this.sideSlot(this.thisOnLeft, "sideOriginal")}
        <button type="button" class="swap" data-action="swap" aria-label=${t("swapSides")} title=${t("swapSides")}
          @click=${() => this.dispatchEvent(new CustomEvent("swap"))}>${icon("swap")}</button>
        ${this.sideSlot(!this.thisOnLeft, "sideRevised")}
      </div>

      <h3>${t("fromComputer")}</h3>
      <div class="row">
        <button type="button" class="primary" data-action="upload" ?disabled=${this.uploading !== null}
          @click=${picker}>${icon("importFile")}${t("compareUpload")}</button>
        <input type="file" aria-hidden="true" tabindex="-1" @change=${(event: Event) => {
      const input = event.target as HTMLInputElement
      const file = input.files?.[0]
      input.value = ""
      if (file) void this.upload(file)
    }}>
        <span class="hint" role="status" aria-live="polite">${
      this.uploading === null ? t("compareDropHint") : t("compareUploading", { name: this.uploading })
    }</span>
      </div>

      <h3>${t("byId")}</h3>
      <form class="row" @submit=${(event: Event) => this.submitId(event)}>
        <input type="text" aria-label=${t("documentIdField")} placeholder=${t("documentIdField")}
          autocomplete="off" spellcheck="false" @input=${() => (this.problem = null)}>
        <button type="submit" data-action="compare-id">${t("compareButton")}</button>
      </form>
      ${this.problem === null ? nothing : html`<p class="problem" role="alert">${this.problem}</p>`}

      <h3>${t("recentDocuments")}</h3>
      ${this.recent(recent)}

      <div class="footer">
        <button type="button" data-action="close-compare" @click=${() =>
      this.dispatchEvent(new CustomEvent("close-view", { bubbles: true, composed: true }))}>${icon("close")}${
      t("backToDocument")
    }</button>
      </div>
    </div>`
  }
}

customElements.define("docstack-compare-chooser", DocumentChooser)
