/**
 * `<docstack-annotation-bar>`: the row of annotation tools under the toolbar, and the style of what
 * is selected (or of the tool chosen): colour, opacity, line width, fill, font size, the stamp's
 * template; undo, redo and delete; annotation files in and out. In redaction mode the same row holds
 * the redaction tools, the reason, "find and redact" and "apply". Every control is a labelled button
 * or field, reached by Tab; a tool is chosen with Enter or Space and then used with the pointer, or
 * with Enter again on the pages (AnnotationEditor places it in the middle of the view).
 */
import { css, html, LitElement, nothing } from "lit"
import type { MessageKey, Translate } from "../i18n/messages.ts"
import { barStyles, icon, type IconName, iconStyles } from "../toolbar/Icons.ts"
import type { AnnotationController } from "./AnnotationController.ts"
import { type Annotation, hexColor, isRedaction, type Mutable, rgbOf } from "./AnnotationModel.ts"
import { annotationTypeOf, stampTemplates, SWATCHES, type Tool, type ToolStyle } from "./AnnotationTools.ts"

export type EditMode = "annotate" | "redact"

const ANNOTATE_TOOLS: ReadonlyArray<[Tool, IconName]> = [
  ["select", "pointer"],
  ["Highlight", "highlight"],
  ["Underline", "underline"],
  ["StrikeOut", "strikeout"],
  ["Squiggly", "squiggly"],
  ["Text", "note"],
  ["FreeText", "freeText"],
  ["Square", "square"],
  ["Circle", "circle"],
  ["Line", "line"],
  ["Arrow", "arrow"],
  ["Polygon", "polygon"],
  ["Ink", "ink"],
  ["Stamp", "stamp"]
]

const REDACT_TOOLS: ReadonlyArray<[Tool, IconName]> = [
  ["select", "pointer"],
  ["RedactText", "redactText"],
  ["Redact", "redactArea"]
]

/** The tool whose style an annotation shows in the bar. */
const toolOf = (a: Annotation): Exclude<Tool, "select"> =>
  a.type === "Line" && a.lineEndings?.some((e) => e !== "None") ? "Arrow" : a.type === "PolyLine" ? "Polygon" : a.type

/** A tool's name in the catalog (`toolHighlight`, `toolSelect`, …). */
export const toolKey = (tool: Tool) => `tool${tool[0]!.toUpperCase()}${tool.slice(1)}` as MessageKey

const hasFill = (tool: Tool) => tool === "Square" || tool === "Circle" || tool === "Polygon" || tool === "FreeText"
const hasWidth = (tool: Tool) =>
  tool === "Square" || tool === "Circle" || tool === "Line" || tool === "Arrow" || tool === "Polygon" ||
  tool === "Ink" || tool === "FreeText"

const WIDTHS = [0.5, 1, 2, 3, 5, 8]
const FONT_SIZES = [8, 10, 12, 14, 18, 24, 36]

export class AnnotationBar extends LitElement {
  static override properties = {
    controller: { attribute: false },
    t: { attribute: false },
    mode: { type: String },
    language: { type: String },
    version: { type: Number },
    filesOpen: { state: true }
  }

  declare controller: AnnotationController
  declare t: Translate
  declare mode: EditMode
  declare language: string
  /** The store's version: a change of it redraws the bar (undo state, the selection's style). */
  declare version: number
  /** The menu of annotation files and annotated downloads is open. */
  declare filesOpen: boolean

  constructor() {
    super()
    this.filesOpen = false
  }

  static override styles = [
    iconStyles,
    barStyles,
    css`
      :host {
        gap: 2px;
        font-size: 13px;
      }
      button {
        display: inline-flex;
        align-items: center;
        justify-content: center;
        gap: 4px;
        min-width: 30px;
        height: 30px;
        padding: 0 5px;
        border: 1px solid transparent;
        border-radius: 6px;
        background: transparent;
        color: inherit;
        font: inherit;
        cursor: pointer;
      }
      button:hover:not(:disabled) {
        background: color-mix(in srgb, currentColor 8%, transparent);
      }
      button[aria-pressed="true"] {
        background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 18%, transparent);
        border-color: color-mix(in srgb, var(--docstack-accent, #0b62d6) 45%, transparent);
      }
      button:disabled {
        opacity: 0.4;
        cursor: default;
      }
      :focus-visible {
        outline: 2px solid var(--docstack-focus, #0b62d6);
        outline-offset: 1px;
      }
      .group {
        display: flex;
        align-items: center;
        flex-wrap: wrap;
        gap: 2px;
      }
      .separator {
        width: 1px;
        align-self: stretch;
        margin: 3px 4px;
        background: var(--docstack-border, #d4d4d8);
      }
      .swatch {
        min-width: 22px;
        width: 22px;
        height: 22px;
        padding: 0;
        border-radius: 50%;
        border: 1px solid rgba(0, 0, 0, 0.25);
      }
      .swatch[aria-pressed="true"] {
        outline: 2px solid var(--docstack-accent, #0b62d6);
        outline-offset: 1px;
      }
      .swatch.none {
        background: linear-gradient(135deg, #fff 45%, #d14343 45% 55%, #fff 55%);
      }
      input[type="color"] {
        width: 28px;
        height: 26px;
        padding: 0;
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 4px;
        background: none;
      }
      select,
      input[type="range"] {
        height: 28px;
        font: inherit;
        color: inherit;
      }
      select {
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 4px;
        background: var(--docstack-background, #fff);
        max-width: 12em;
      }
      input[type="range"] {
        width: 80px;
      }
      label {
        display: inline-flex;
        align-items: center;
        gap: 4px;
        color: var(--docstack-muted, #6b7280);
      }
      .status {
        margin-left: auto;
        padding: 0 6px;
        color: var(--docstack-muted, #6b7280);
        white-space: nowrap;
        overflow: hidden;
        text-overflow: ellipsis;
        max-width: 28em;
      }
      .status.error {
        color: #d14343;
      }
      .apply {
        padding: 0 10px;
        background: #b3261e;
        color: #fff;
        font-weight: 600;
      }
      .apply:hover:not(:disabled) {
        background: #8c1d18;
      }
      .text-button {
        padding: 0 8px;
      }
      .files {
        position: relative;
      }
      .files [role="menu"] {
        position: absolute;
        z-index: 25;
        right: 0;
        top: 34px;
        display: flex;
        flex-direction: column;
        min-width: 280px;
        padding: 4px;
        background: var(--docstack-toolbar-background, #fafafa);
        border: 1px solid var(--docstack-border, #d4d4d8);
        border-radius: 8px;
        box-shadow: 0 6px 20px rgba(0, 0, 0, 0.2);
      }
      .files [role="menu"] button {
        justify-content: flex-start;
        gap: 8px;
        height: 32px;
        text-align: left;
      }
    `
  ]

  private get store() {
    return this.controller.store
  }

  /** The annotation selected, when there is one: the style controls then change it. */
  private get selected(): Annotation | undefined {
    const store = this.store
    return store?.selected ? store.get(store.selected) : undefined
  }

  private tools() {
    const { t } = this
    const readOnly = this.store?.readOnly ?? true
    const tools = this.mode === "redact" ? REDACT_TOOLS : ANNOTATE_TOOLS
    return html`<div class="group" role="radiogroup" aria-label=${t("annotationTools")}>${
      tools.map(([tool, name]) =>
        html`<button type="button" role="radio" data-tool=${tool} aria-checked=${String(this.controller.tool === tool)}
          aria-pressed=${String(this.controller.tool === tool)} aria-label=${t(toolKey(tool))} title=${
          t(toolKey(tool))
        } ?disabled=${readOnly && tool !== "select"} @click=${() => this.controller.setTool(tool)}>${
          icon(name)
        }</button>`
      )
    }</div>`
  }

  /** Changes the selected annotation's style, or the chosen tool's for what it makes next. */
  private restyle(change: Partial<ToolStyle>) {
    const a = this.selected
    const store = this.store
    if (a !== undefined && store !== null && !store.readOnly) {
      const tool = toolOf(a)
      const next: Mutable<Annotation> = { ...a }
      if (change.color) {
        if (tool === "FreeText") next.fontColor = change.color
        else next.color = change.color
      }
      if (change.opacity !== undefined) next.opacity = change.opacity
      if (change.lineWidth !== undefined) next.lineWidth = change.lineWidth
      if (change.fontSize !== undefined) next.fontSize = change.fontSize
      if ("interiorColor" in change) {
        // Free text's fill is its colour; a shape's, its interior colour. No fill: the field left out.
        const field = tool === "FreeText" ? "color" : "interiorColor"
        if (change.interiorColor) next[field] = change.interiorColor
        else delete next[field]
      }
      store.update([next])
      this.controller.setStyle(tool, change)
    } else if (this.controller.tool !== "select") {
      this.controller.setStyle(this.controller.tool, change)
    }
  }

  private styleControls() {
    const { t } = this
    const a = this.selected
    const tool = a ? toolOf(a) : this.controller.tool
    if (tool === "select" || isRedaction(annotationTypeOf(tool))) return nothing
    const style = this.controller.style(tool)
    const color = a === undefined
      ? style.color
      : tool === "FreeText"
      ? a.fontColor ?? style.color
      : a.color ?? style.color
    const fill = a === undefined ? style.interiorColor : tool === "FreeText" ? a.color ?? null : a.interiorColor ?? null
    const disabled = this.store?.readOnly ?? true
    const swatches = (current: string, pick: (hex: string) => void, label: string) =>
      html`<div class="group" role="group" aria-label=${label}>${
        SWATCHES.map((hex) =>
          html`<button type="button" class="swatch" style=${`background:${hex}`} aria-label=${`${label} ${hex}`}
            title=${hex} aria-pressed=${String(current === hex)} ?disabled=${disabled} @click=${() =>
            pick(hex)}></button>`
        )
      }</div>`
    const hex = hexColor(color)
    return html`<span class="separator"></span>
      ${swatches(hex, (picked) => this.restyle({ color: rgbOf(picked)! }), t("colour"))}
      <input type="color" aria-label=${t("customColour")} title=${t("customColour")} .value=${hex} ?disabled=${disabled}
        @change=${(event: Event) => this.restyle({ color: rgbOf((event.target as HTMLInputElement).value)! })}>
      ${
      hasFill(tool)
        ? html`<span class="separator"></span>
          <div class="group" role="group" aria-label=${t("fill")}>
            <button type="button" class="swatch none" aria-label=${t("noFill")} title=${t("noFill")}
              aria-pressed=${String(fill === null)} ?disabled=${disabled}
              @click=${() => this.restyle({ interiorColor: null })}></button>
            <input type="color" aria-label=${t("fill")} title=${t("fill")} .value=${fill ? hexColor(fill) : "#ffffff"}
              ?disabled=${disabled}
              @change=${(event: Event) =>
          this.restyle({ interiorColor: rgbOf((event.target as HTMLInputElement).value)! })}>
          </div>`
        : nothing
    }
      <span class="separator"></span>
      <label>${t("opacity")}<input type="range" min="0.1" max="1" step="0.05" aria-label=${t("opacity")}
        .value=${String(a?.opacity ?? style.opacity)} ?disabled=${disabled}
        @change=${(event: Event) =>
      this.restyle({ opacity: Number((event.target as HTMLInputElement).value) })}></label>
      ${
      hasWidth(tool)
        ? html`<label>${t("lineWidth")}<select aria-label=${t("lineWidth")} ?disabled=${disabled}
            @change=${(event: Event) => this.restyle({ lineWidth: Number((event.target as HTMLSelectElement).value) })}>
            ${
          WIDTHS.map((w) =>
            html`<option value=${w} ?selected=${(a?.lineWidth ?? style.lineWidth) === w}>${w} pt</option>`
          )
        }</select></label>`
        : nothing
    }
      ${
      tool === "FreeText"
        ? html`<label>${t("fontSize")}<select aria-label=${t("fontSize")} ?disabled=${disabled}
            @change=${(event: Event) => this.restyle({ fontSize: Number((event.target as HTMLSelectElement).value) })}>
            ${
          FONT_SIZES.map((s) =>
            html`<option value=${s} ?selected=${(a?.fontSize ?? style.fontSize) === s}>${s} pt</option>`
          )
        }</select></label>`
        : nothing
    }
      ${tool === "Stamp" && a === undefined ? this.stampChoice() : nothing}`
  }

  private stampChoice() {
    const templates = stampTemplates(this.store?.policy ?? null)
    if (templates.length === 0) return nothing
    const chosen = this.controller.stampName ?? templates[0]!.name
    return html`<label>${this.t("stampTemplate")}<select aria-label=${this.t("stampTemplate")}
      @change=${(event: Event) => {
      this.controller.stampName = (event.target as HTMLSelectElement).value
      this.requestUpdate()
    }}>${templates.map((tpl) => html`<option value=${tpl.name} ?selected=${tpl.name === chosen}>${tpl.name}</option>`)}
    </select></label>`
  }

  private reasonChoice() {
    const policy = this.store?.policy
    if (!policy || policy.availableRedactReasons.length === 0) return nothing
    const lang = this.language
    const chosen = this.controller.redactReason ?? policy.defaultRedactReasons?.[0] ??
      policy.availableRedactReasons[0]!.symbolicName
    const selected = this.selected
    return html`<label>${this.t("redactReason")}<select aria-label=${this.t("redactReason")}
      ?disabled=${this.store?.readOnly ?? true}
      @change=${(event: Event) => {
      const reason = (event.target as HTMLSelectElement).value
      this.controller.redactReason = reason
      if (selected && isRedaction(selected.type)) this.store?.update([{ ...selected, redactReason: reason }])
      this.requestUpdate()
    }}>${
      policy.availableRedactReasons.map((r) =>
        html`<option value=${r.symbolicName} ?selected=${
          (selected && isRedaction(selected.type) ? selected.redactReason : chosen) === r.symbolicName
        }>${r.displayName[lang] ?? r.displayName.en ?? r.symbolicName}</option>`
      )
    }</select></label>`
  }

  private actions() {
    const { t } = this
    const store = this.store
    const selected = this.selected
    const readOnly = store?.readOnly ?? true
    return html`<span class="separator"></span>
      <button type="button" data-action="undo" aria-label=${t("undo")} title=${t("undo")} ?disabled=${!store?.canUndo}
        @click=${() => store?.undo()}>${icon("undo")}</button>
      <button type="button" data-action="redo" aria-label=${t("redo")} title=${t("redo")} ?disabled=${!store?.canRedo}
        @click=${() => store?.redo()}>${icon("redo")}</button>
      <button type="button" data-action="delete" aria-label=${t("deleteAnnotation")} title=${t("deleteAnnotation")}
        ?disabled=${readOnly || selected === undefined} @click=${() => selected && store?.remove([selected.id])}>${
      icon("trash")
    }</button>`
  }

  private redactActions() {
    const { t } = this
    const marks = this.store?.all().filter((a) => isRedaction(a.type)).length ?? 0
    return html`<span class="separator"></span>${this.reasonChoice()}
      <button type="button" class="text-button" data-action="find-redact" @click=${() =>
      this.emit("find-and-redact")}>${icon("search")}<span>${t("findAndRedact")}</span></button>
      <button type="button" class="apply" data-action="apply-redactions" ?disabled=${marks === 0}
        @click=${() => this.emit("apply-redactions")}>${t("applyRedactions", { count: marks })}</button>`
  }

  private emit(name: string, detail: unknown = null) {
    this.dispatchEvent(new CustomEvent(name, { bubbles: true, composed: true, detail }))
  }

  /** Annotation files in and out, and the PDF with its annotations: a small menu. */
  private files() {
    const { t } = this
    const choose = (name: string, detail: unknown = null) => {
      this.filesOpen = false
      this.emit(name, detail)
    }
    const importFile = () => {
      const input = this.renderRoot.querySelector<HTMLInputElement>("input[type=file]")!
      input.value = ""
      input.click()
    }
    return html`<span class="separator"></span><div class="files">
      <button type="button" data-action="files" aria-haspopup="menu" aria-expanded=${String(this.filesOpen)}
        aria-label=${t("annotationFiles")} title=${t("annotationFiles")}
        @click=${() => (this.filesOpen = !this.filesOpen)}>${icon("download")}</button>
      <input type="file" accept=".xfdf,.fdf,application/vnd.adobe.xfdf,application/vnd.fdf" hidden
        @change=${(event: Event) => {
      const file = (event.target as HTMLInputElement).files?.[0]
      if (file) choose("annotations-import", file)
    }}>
      ${
      this.filesOpen
        ? html`<div role="menu" aria-label=${t("annotationFiles")} @keydown=${(event: KeyboardEvent) => {
          if (event.key === "Escape") this.filesOpen = false
        }}>
            <button type="button" role="menuitem" data-action="import" ?disabled=${this.store?.readOnly ?? true}
              @click=${() => {
          this.filesOpen = false
          importFile()
        }}>${icon("importFile")}${t("importAnnotations")}</button>
            <button type="button" role="menuitem" data-action="export" @click=${() => choose("annotations-export")}>${
          icon("download")
        }${t("exportAnnotations")}</button>
            <button type="button" role="menuitem" data-action="download-flattened"
              @click=${() => choose("download-annotated", { flatten: true })}>${icon("file")}${
          t("downloadFlattened")
        }</button>
            <button type="button" role="menuitem" data-action="download-editable"
              @click=${() => choose("download-annotated", { flatten: false })}>${icon("file")}${
          t("downloadEditable")
        }</button>
          </div>`
        : nothing
    }
    </div>`
  }

  private status() {
    const { t } = this
    const store = this.store
    if (store === null) return nothing
    if (store.error !== null) {
      const said = t("annotationsError", { message: store.error })
      return html`<span class="status error" role="alert" title=${said}>${said}</span>`
    }
    if (store.state === "loading") return html`<span class="status" role="status">${t("loadingAnnotations")}</span>`
    if (store.readOnly) return html`<span class="status" role="status">${t("annotationsReadOnly")}</span>`
    const said = !store.saved ? t("saving") : store.notice ?? t("saved")
    return html`<span class="status" role="status" aria-live="polite">${said}</span>`
  }

  protected override render() {
    // Read-only (the policy's canCreateAnnotations false): no tool that would change anything is shown.
    if (this.store?.readOnly ?? true) {
      return html`${this.mode === "annotate" && this.store?.state === "ready" ? this.files() : nothing}${this.status()}`
    }
    return html`${this.tools()}${
      this.mode === "redact" ? this.redactActions() : this.styleControls()
    }${this.actions()}${this.mode === "annotate" ? this.files() : nothing}${this.status()}`
  }
}

customElements.define("docstack-annotation-bar", AnnotationBar)
