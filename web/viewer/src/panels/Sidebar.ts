/**
 * The side panel: its tabs (thumbnails, bookmarks, and parts for a container) and the panel shown.
 */
import { html, nothing } from "lit"
import type { ContainerLayout, PageLayout, ViewerClient } from "../client/ViewerClient.ts"
import type { Translate } from "../i18n/messages.ts"
import type { DocumentPages } from "../pages/PageView.ts"
import "./BookmarksPanel.ts"
import "./PartsPanel.ts"
import "./ThumbnailsPanel.ts"

export type SidebarTab = "thumbnails" | "bookmarks" | "parts"

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
}

export const sidebar = (state: SidebarState) => {
  const { t } = state
  const tabs: ReadonlyArray<SidebarTab> = state.root === null
    ? ["thumbnails", "bookmarks"]
    : ["parts", "thumbnails", "bookmarks"]
  const tab = tabs.includes(state.tab) ? state.tab : tabs[0]!
  const onNavigate = (event: CustomEvent<{ index: number; top?: number | null }>) =>
    state.navigate(event.detail.index, event.detail.top ?? null)
  const panel = () => {
    switch (tab) {
      case "parts":
        return html`<docstack-parts .t=${t} .root=${state.root} .openId=${state.layout?.documentId.id ?? null}
          @open-part=${(event: CustomEvent<{ id: string }>) => state.openPart(event.detail.id)}></docstack-parts>`
      case "bookmarks":
        return state.pages === null
          ? nothing
          : html`<docstack-bookmarks .t=${t} .client=${state.client} .uuid=${state.pages.uuid}
            @navigate=${onNavigate}></docstack-bookmarks>`
      default:
        return state.pages === null || state.layout === null
          ? nothing
          : html`<docstack-thumbnails .t=${t} .pages=${state.pages} .dimensions=${state.layout.pageDimensionsList}
            .rotations=${state.rotations} .current=${state.current} @navigate=${onNavigate}></docstack-thumbnails>`
    }
  }
  return html`<aside class="sidebar" aria-label=${t("sidebar")}>
    <div class="tabs" role="tablist">
      ${
    tabs.map((name) =>
      html`<button type="button" role="tab" id=${`tab-${name}`} aria-selected=${String(name === tab)}
          aria-controls="panel" @click=${() => state.selectTab(name)}>${t(name)}</button>`
    )
  }
    </div>
    <div class="panel" id="panel" role="tabpanel" aria-labelledby=${`tab-${tab}`}>${panel()}</div>
  </aside>`
}
