/**
 * The toolbar, drawn from the viewer's state: navigation, zoom, rotation, find, download, print,
 * full screen and night reading. On a narrow element the less used tools move into the "more" menu.
 */
import { html, nothing } from "lit"
import type { DownloadKind } from "../client/ViewerClient.ts"
import type { Translate } from "../i18n/messages.ts"
import type { Zoom } from "../pages/PageGeometry.ts"
import { icon, type IconName } from "./Icons.ts"

export interface ToolbarState {
  readonly t: Translate
  readonly title: string
  readonly pageCount: number
  /** 0-based. */
  readonly current: number
  readonly zoom: Zoom
  readonly scale: number
  readonly sidebarOpen: boolean
  readonly findOpen: boolean
  readonly dark: boolean
  readonly menuOpen: boolean
  readonly narrow: boolean
  readonly hasDocument: boolean
  /** The pages are shown (not another view in their place): the reading tools act on them. */
  readonly pagesShown: boolean
  /** The annotation or redaction tools are shown. */
  readonly editMode: "annotate" | "redact" | null
  /** A view other than the pages: arranging them, or comparing with another document. */
  readonly view: "pages" | "organize" | "compare"
}

export interface ToolbarActions {
  readonly toggleSidebar: () => void
  readonly goTo: (index: number) => void
  readonly zoomStep: (direction: 1 | -1) => void
  readonly setZoom: (zoom: Zoom) => void
  readonly rotate: (allPages: boolean) => void
  readonly toggleFind: () => void
  readonly download: (kind: DownloadKind) => void
  readonly print: () => void
  readonly fullScreen: () => void
  readonly toggleDark: () => void
  readonly toggleMenu: () => void
  readonly toggleEditMode: (mode: "annotate" | "redact") => void
  readonly toggleView: (view: "organize" | "compare") => void
}

const button = (
  name: IconName,
  label: string,
  action: () => void,
  options: { disabled?: boolean; pressed?: boolean; className?: string; id?: string } = {}
) =>
  html`<button type="button" class=${`icon-button ${options.className ?? ""}`} data-action=${options.id ?? name}
    aria-label=${label} title=${label} ?disabled=${options.disabled ?? false}
    aria-pressed=${options.pressed === undefined ? nothing : String(options.pressed)}
    @click=${action}>${icon(name)}</button>`

/** The reading tools act on the pages: not without a document, nor while another view is in their place. */
const readable = (state: ToolbarState) => state.hasDocument && state.pagesShown

const zoomChoice = (state: ToolbarState, actions: ToolbarActions) => {
  const { t } = state
  const value = typeof state.zoom === "number" ? "custom" : state.zoom
  const onChange = (event: Event) => {
    const chosen = (event.target as HTMLSelectElement).value
    if (chosen === "page-width" || chosen === "page-fit" || chosen === "actual") actions.setZoom(chosen)
    else if (chosen !== "custom") actions.setZoom(Number(chosen))
  }
  const percent = `${Math.round(state.scale * 100)} %`
  return html`<select class="zoom-select" aria-label=${t("zoom")} title=${t("zoom")} .value=${value}
    ?disabled=${!readable(state)} @change=${onChange}>
    <option value="custom" ?selected=${value === "custom"}>${percent}</option>
    <option value="page-width" ?selected=${value === "page-width"}>${
    t(state.narrow ? "widthShort" : "pageWidth")
  }</option>
    <option value="page-fit" ?selected=${value === "page-fit"}>${t(state.narrow ? "pageShort" : "pageFit")}</option>
    <option value="actual" ?selected=${value === "actual"}>${t("actualSize")}</option>
    ${
    [0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4].map((scale) =>
      html`<option value=${scale}>${Math.round(scale * 100)} %</option>`
    )
  }
  </select>`
}

const pageField = (state: ToolbarState, actions: ToolbarActions) => {
  const { t } = state
  const commit = (event: Event) => {
    const input = event.target as HTMLInputElement
    const number = Number.parseInt(input.value, 10)
    if (Number.isInteger(number)) actions.goTo(Math.min(state.pageCount, Math.max(1, number)) - 1)
    input.value = String(state.current + 1)
  }
  return html`<input class="page-number" type="text" inputmode="numeric" aria-label=${t("pageNumber")}
      .value=${state.hasDocument ? String(state.current + 1) : ""} ?disabled=${!readable(state)}
      @change=${commit} @keydown=${(event: KeyboardEvent) => event.key === "Enter" && commit(event)}>
    <span class="page-count">${state.hasDocument ? t("ofPages", { count: state.pageCount }) : ""}</span>`
}

/** Beyond reading: annotating, redacting, arranging pages, comparing. */
const workTools = (state: ToolbarState, actions: ToolbarActions) => {
  const { t } = state
  const none = !state.hasDocument
  return [
    button("annotate", t("annotate"), () => actions.toggleEditMode("annotate"), {
      disabled: none,
      pressed: state.editMode === "annotate",
      id: "annotate"
    }),
    button("redact", t("redactMode"), () => actions.toggleEditMode("redact"), {
      disabled: none,
      pressed: state.editMode === "redact",
      id: "redact"
    }),
    button("pages", t("organizePages"), () => actions.toggleView("organize"), {
      disabled: none,
      pressed: state.view === "organize",
      id: "organize"
    }),
    button("compare", t("compare"), () => actions.toggleView("compare"), {
      disabled: none,
      pressed: state.view === "compare",
      id: "compare"
    })
  ]
}

/** Tools that leave the bar for the menu on a narrow element. */
const secondaryTools = (state: ToolbarState, actions: ToolbarActions) => {
  const { t } = state
  const none = !state.hasDocument
  return [
    button("rotate", t("rotatePage"), () => actions.rotate(false), { disabled: !readable(state) }),
    button("rotateAll", t("rotateAll"), () => actions.rotate(true), { disabled: !readable(state) }),
    button("download", t("downloadOriginal"), () => actions.download("original"), {
      disabled: none,
      id: "download-original"
    }),
    button("file", t("downloadPdf"), () => actions.download("pdf"), { disabled: none, id: "download-pdf" }),
    button("print", t("print"), actions.print, { disabled: none }),
    button("fullScreen", t("fullScreen"), actions.fullScreen),
    button("moon", t("darkMode"), actions.toggleDark, { pressed: state.dark, id: "dark" })
  ]
}

/** The "more" menu: the secondary tools as labelled rows. */
const menu = (state: ToolbarState, actions: ToolbarActions) => {
  const { t } = state
  const row = (name: IconName, label: string, action: () => void) =>
    html`<button type="button" role="menuitem" @click=${() => {
      actions.toggleMenu()
      action()
    }}>${icon(name)}<span>${label}</span></button>`
  return html`<div class="menu" role="menu" aria-label=${t("more")}>
    ${row("annotate", t("annotate"), () => actions.toggleEditMode("annotate"))}
    ${row("redact", t("redactMode"), () => actions.toggleEditMode("redact"))}
    ${row("pages", t("organizePages"), () => actions.toggleView("organize"))}
    ${row("compare", t("compare"), () => actions.toggleView("compare"))}
    ${row("rotate", t("rotatePage"), () => actions.rotate(false))}
    ${row("rotateAll", t("rotateAll"), () => actions.rotate(true))}
    ${row("zoomIn", t("zoomIn"), () => actions.zoomStep(1))}
    ${row("zoomOut", t("zoomOut"), () => actions.zoomStep(-1))}
    ${row("download", t("downloadOriginal"), () => actions.download("original"))}
    ${row("file", t("downloadPdf"), () => actions.download("pdf"))}
    ${row("print", t("print"), actions.print)}
    ${row("fullScreen", t("fullScreen"), actions.fullScreen)}
    ${row("moon", t("darkMode"), actions.toggleDark)}
  </div>`
}

export const toolbar = (state: ToolbarState, actions: ToolbarActions) => {
  const { t } = state
  const none = !readable(state)
  const atStart = none || state.current <= 0
  const atEnd = none || state.current >= state.pageCount - 1
  return html`<div class="toolbar" role="toolbar" aria-label=${state.title || t("pages")}>
      ${button("sidebar", t("sidebar"), actions.toggleSidebar, { pressed: state.sidebarOpen })}
      <div class="group">
        ${button("first", t("firstPage"), () => actions.goTo(0), { disabled: atStart, className: "wide-only" })}
        ${button("previous", t("previousPage"), () => actions.goTo(state.current - 1), { disabled: atStart })}
        ${pageField(state, actions)}
        ${button("next", t("nextPage"), () => actions.goTo(state.current + 1), { disabled: atEnd })}
        ${
    button("last", t("lastPage"), () => actions.goTo(state.pageCount - 1), { disabled: atEnd, className: "wide-only" })
  }
      </div>
      <span class="separator wide-only"></span>
      <div class="group">
        ${button("zoomOut", t("zoomOut"), () => actions.zoomStep(-1), { disabled: none, className: "wide-only" })}
        ${zoomChoice(state, actions)}
        ${button("zoomIn", t("zoomIn"), () => actions.zoomStep(1), { disabled: none, className: "wide-only" })}
      </div>
      <span class="title" title=${state.title}>${state.title}</span>
      ${button("search", t("find"), actions.toggleFind, { pressed: state.findOpen, disabled: none })}
      ${
    state.narrow
      ? button("more", t("more"), actions.toggleMenu, { pressed: state.menuOpen })
      : html`<div class="group">${workTools(state, actions)}</div><span class="separator"></span>
        <div class="group">${secondaryTools(state, actions)}</div>`
  }
    </div>
    ${state.narrow && state.menuOpen ? menu(state, actions) : nothing}`
}
