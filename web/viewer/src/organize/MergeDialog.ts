/**
 * `<docstack-merge-dialog>`: chooses the document whose pages join the working copy, a file
 * uploaded through the viewer service or a document it already has, by ID (or by a viewer address
 * with `?uuid=`), and where they go. It reads the document's layout (a file being converted is
 * waited for) and hands it over as a source with a `merge-source` event; what goes wrong is said in
 * the dialog, which stays open to try again.
 */
import { css, html, LitElement, nothing } from "lit"
import { documentIdOf } from "../client/RecentDocuments.ts"
import { isContainer, type ViewerClient } from "../client/ViewerClient.ts"
import type { Translate } from "../i18n/messages.ts"
import { controlStyles } from "./OrganizerStyles.ts"
import type { Source } from "./WorkingCopy.ts"

/** Where the added pages go: before the first page, after the last, or after a position (1-based). */
export type MergePlace = "start" | "end" | number

export interface MergeRequest {
  readonly source: Source
  readonly place: MergePlace
}

export class MergeDialog extends LitElement {
  static override styles = [
    controlStyles,
    css`
      :host {
        display: block;
        position: absolute;
        top: 8px;
        right: 8px;
        z-index: 5;
        width: min(26em, calc(100% - 16px));
        box-sizing: border-box;
        padding: 12px 14px;
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 10px;
        background: var(--docstack-toolbar-background, #fafafa);
        box-shadow: 0 8px 28px rgba(0, 0, 0, 0.25);
      }
      h3 {
        margin: 0 0 10px;
        font-size: 15px;
      }
      .row {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 6px;
        margin: 8px 0;
      }
      .row label {
        color: var(--docstack-muted, #6b7280);
      }
      select {
        height: 30px;
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 4px;
        background: var(--docstack-toolbar-background, #fff);
        color: inherit;
        font: inherit;
      }
      .busy,
      .error {
        margin: 8px 0;
      }
      .error {
        color: #d14343;
      }
      .actions {
        display: flex;
        justify-content: flex-end;
      }
    `
  ]
  static override properties = {
    client: { attribute: false },
    t: { attribute: false },
    afterPosition: { attribute: false },
    busy: { state: true },
    error: { state: true }
  }

  declare client: ViewerClient
  declare t: Translate
  /** The position the pages may go after (the last selected page's, 1-based), or null. */
  declare afterPosition: number | null
  /** What is being done, while it is. */
  declare busy: string | null
  declare error: string | null

  private run: AbortController | null = null

  constructor() {
    super()
    this.afterPosition = null
    this.busy = null
    this.error = null
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    this.run?.abort()
  }

  protected override firstUpdated() {
    this.renderRoot.querySelector<HTMLElement>("button")?.focus()
  }

  private get place(): MergePlace {
    const value = this.renderRoot.querySelector<HTMLSelectElement>("select")!.value
    return value === "start" || value === "end" ? value : Number(value)
  }

  /** Gets the document's ID (`name` says which file for the wait), then its layout, then hands it over. */
  private async add(name: string | null, documentId: (signal: AbortSignal) => Promise<string>) {
    const { t } = this
    this.run?.abort()
    const run = new AbortController()
    this.run = run
    this.error = null
    const place = this.place
    try {
      this.busy = name === null ? t("organizeReading") : t("organizeUploading", { name })
      const uuid = await documentId(run.signal)
      this.busy = t("organizeReading")
      const layout = await this.client.layout(uuid, run.signal)
      const title = layout.documentTitle ?? uuid
      if (isContainer(layout)) throw new Error(t("organizeContainer", { title, id: uuid }))
      if (layout.pageDimensionsList.length === 0) throw new Error(t("organizeNoPages", { title }))
      if (run.signal.aborted) return
      const detail: MergeRequest = { source: { uuid, title, pages: layout.pageDimensionsList }, place }
      this.dispatchEvent(new CustomEvent("merge-source", { detail }))
    } catch (error) {
      if (!run.signal.aborted) this.error = t("organizeMergeFailed", { message: (error as Error).message })
    } finally {
      if (this.run === run) this.busy = null
    }
  }

  private upload(input: HTMLInputElement) {
    const file = input.files?.[0]
    input.value = ""
    if (file !== undefined) void this.add(file.name, () => this.client.upload(file, file.name))
  }

  private addById(event: Event) {
    event.preventDefault()
    if (this.busy !== null) return
    const id = documentIdOf(this.renderRoot.querySelector<HTMLInputElement>("#merge-id")!.value)
    if (id === null) this.error = this.t("notAnId")
    else void this.add(null, async () => id)
  }

  private close() {
    this.dispatchEvent(new CustomEvent("merge-close"))
  }

  protected override render() {
    const { t, afterPosition: after } = this
    // One document at a time; the buttons keep the keyboard meanwhile (aria-disabled, not disabled).
    const busy = this.busy !== null
    return html`<div role="dialog" aria-labelledby="merge-title" @keydown=${(event: KeyboardEvent) => {
      if (event.key === "Escape") this.close()
    }}>
      <h3 id="merge-title">${t("organizeMergeTitle")}</h3>
      <div class="row">
        <button type="button" class="outlined" data-action="merge-upload" aria-disabled=${busy}
          @click=${() => busy || this.renderRoot.querySelector<HTMLInputElement>("input[type=file]")!.click()}>${
      t("organizeUpload")
    }</button>
        <input type="file" hidden @change=${(event: Event) => this.upload(event.target as HTMLInputElement)}>
      </div>
      <form class="row" @submit=${this.addById}>
        <label for="merge-id">${t("organizeDocumentId")}</label>
        <input type="text" id="merge-id" autocomplete="off" spellcheck="false">
        <button type="submit" class="outlined" data-action="merge-add" aria-disabled=${busy}>${
      t("organizeAdd")
    }</button>
      </form>
      <div class="row">
        <label for="merge-where">${t("organizeWhere")}</label>
        <select id="merge-where">
          <option value="end">${t("organizeAtEnd")}</option>
          <option value="start">${t("organizeAtStart")}</option>
          ${
      after === null
        ? nothing
        : html`<option value=${after}>${t("organizeAfterPage", { position: after })}</option>`
    }
        </select>
      </div>
      ${this.busy === null ? nothing : html`<p class="busy" role="status">${this.busy}</p>`}
      ${this.error === null ? nothing : html`<p class="error" role="alert">${this.error}</p>`}
      <div class="actions">
        <button type="button" class="outlined" data-action="merge-cancel" @click=${() => this.close()}>${
      t("cancel")
    }</button>
      </div>
    </div>`
  }
}

customElements.define("docstack-merge-dialog", MergeDialog)
