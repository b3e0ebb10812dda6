/**
 * The side panel: its tabs (thumbnails, bookmarks, and parts for a container) and the panel shown.
 */
import { html, nothing, type TemplateResult } from "lit"
import type { ContainerLayout, PageLayout, ViewerClient } from "../client/ViewerClient.ts"
import type { MessageKey, Translate } from "../i18n/messages.ts"
import type { DocumentPages } from "../pages/PageView.ts"
import { icon, type IconName } from "../toolbar/Icons.ts"
import "./BookmarksPanel.ts"
import "./PartsPanel.ts"
import "./ThumbnailsPanel.ts"

export type SidebarTab = "thumbnails" | "bookmarks" | "parts" | "annotations" | "redaction"

/** A tab added by a feature beyond reading (annotations, redaction), with its panel. */
export interface ExtraTab {
  readonly name: SidebarTab
  readonly panel: () => TemplateResult
  /** The panel needs more room than a list of thumbnails. */
  readonly wide?: boolean
}

export interface SidebarState {
  readonly t: Translate
  readonly tab: SidebarTab
  readonly pages: DocumentPages | null
  readonly layout: PageLayout | null
  readonly root: ContainerLayout | null
  readonly rotations: ReadonlyMap<number, number>
  readonly current: number
  readonly client: ViewerClient
  readonly selectTab: (tab: SidebarTab) => void
  readonly navigate: (index: number, top: number | null) => void
  readonly openPart: (id: string) => void
  readonly extraTabs: ReadonlyArray<ExtraTab>
}

const TAB_ICONS: Readonly<Record<SidebarTab, IconName>> = {
  parts: "tree",
  thumbnails: "pages",
  bookmarks: "bookmark",
  annotations: "note",
  redaction: "redact"
}
const TAB_LABELS: Readonly<Record<SidebarTab, MessageKey>> = {
  parts: "parts",
  thumbnails: "thumbnails",
  bookmarks: "bookmarks",
  annotations: "annotations",
  redaction: "redactionPanel"
}
/** More tabs than this and their names no longer fit: each shows its icon, its name as its label and tooltip. */
const NAMED_TABS = 3

export const sidebar = (state: SidebarState) => {
  const { t } = state
  const tabs: ReadonlyArray<SidebarTab> = [
    ...(state.root === null ? [] : ["parts" as const]),
    "thumbnails",
    "bookmarks",
    ...state.extraTabs.map((extra) => extra.name)
  ]
  const tab = tabs.includes(state.tab) ? state.tab : tabs[0]!
  const extra = state.extraTabs.find((candidate) => candidate.name === tab)
  // Every panel's `navigate` (a thumbnail, a bookmark, an annotation, a redaction mark) goes to its page.
  const onNavigate = (event: CustomEvent<{ index: number; top?: number | null }>) =>
    state.navigate(event.detail.index, event.detail.top ?? null)
  const panel = () => {
    if (extra !== undefined) return extra.panel()
    switch (tab) {
      case "parts":
        return html`<docstack-parts .t=${t} .root=${state.root} .openId=${state.layout?.documentId.id ?? null}
          @open-part=${(event: CustomEvent<{ id: string }>) => state.openPart(event.detail.id)}></docstack-parts>`
      case "bookmarks":
        return state.pages === null
          ? nothing
          : html`<docstack-bookmarks .t=${t} .client=${state.client} .uuid=${state.pages.uuid}
            ></docstack-bookmarks>`
      default:
        return state.pages === null || state.layout === null
          ? nothing
          : html`<docstack-thumbnails .t=${t} .pages=${state.pages} .dimensions=${state.layout.pageDimensionsList}
            .rotations=${state.rotations} .current=${state.current}></docstack-thumbnails>`
    }
  }
  return html`<aside class=${extra?.wide ? "sidebar wide" : "sidebar"} aria-label=${t("sidebar")}>
    <div class=${tabs.length > NAMED_TABS ? "tabs compact" : "tabs"} role="tablist">
      ${
    tabs.map((name) =>
      html`<button type="button" role="tab" id=${`tab-${name}`} aria-selected=${String(name === tab)}
          aria-controls="panel" aria-label=${t(TAB_LABELS[name])} title=${t(TAB_LABELS[name])}
          @click=${() => state.selectTab(name)}>${icon(TAB_ICONS[name])}<span>${t(TAB_LABELS[name])}</span></button>`
    )
  }
    </div>
    <div class="panel" id="panel" role="tabpanel" aria-labelledby=${`tab-${tab}`}
      @navigate=${onNavigate}>${panel()}</div>
  </aside>`
}
