/**
 * `<docstack-ai-admin>`: an overview for the tenant's administrators: usage totals
 * (/admin/stats/global), the LLM provider configurations and the prompts with their versions.
 * Read-only: changes go through the admin API (or its explorer at /swagger-ui/index.html).
 */
import { css, html, nothing, type TemplateResult } from "lit"
import { GatewayElement } from "../client/GatewayElement.ts"

interface Overview {
  readonly stats: Record<string, number | null>
  readonly providers: ReadonlyArray<{ id: string; type: string; model: string; isDefault: boolean }>
  readonly prompts: ReadonlyArray<{
    id: string
    name: string | null
    category: string | null
    activeVersion: number
    draftVersion: number | null
    quickPrompt: { enabled: boolean; label: string } | null
  }>
}

export class AdminElement extends GatewayElement {
  static override properties = { overview: { state: true } }

  declare overview: Overview | undefined

  protected override async read() {
    const [stats, providers, prompts] = await Promise.all([
      this.client.get<Overview["stats"]>("/api/v1/admin/stats/global"),
      this.client.get<Overview["providers"]>("/api/v1/admin/llm/provider-conf"),
      this.client.get<Overview["prompts"]>("/api/v1/admin/prompts")
    ])
    this.overview = { stats, providers, prompts }
  }

  private table(caption: string, heads: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>) {
    return html`<table>
      <caption>${caption}</caption>
      <thead><tr>${heads.map((head) => html`<th scope="col">${head}</th>`)}</tr></thead>
      <tbody>${rows.map((row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody>
    </table>`
  }

  override render(): TemplateResult {
    const t = this.t
    const overview = this.overview
    const figure = (label: string, value: unknown) => html`<div class="figure"><dt>${label}</dt><dd>${value}</dd></div>`
    return html`
      <header><h2>${t("admin")}</h2><button @click=${() => this.load()}>${t("refresh")}</button></header>
      ${this.error === undefined ? nothing : html`<p role="alert">${t("loadFailed", { message: this.error })}</p>`}
      ${
      overview === undefined ? nothing : html`
        <section aria-label=${t("usage")}>
          <h3>${t("usage")}</h3>
          <dl class="figures">
            ${figure(t("users"), overview.stats.users)}
            ${figure(t("conversations"), overview.stats.conversations)}
            ${figure(t("requests"), overview.stats.requests)}
            ${figure(t("failedRequests"), overview.stats.failedRequests)}
            ${figure(t("tokens"), `${overview.stats.inputTokens} / ${overview.stats.outputTokens}`)}
            ${
        figure(
          t("latency"),
          overview.stats.averageLatencyMs === null ? "–" : `${Math.round(overview.stats.averageLatencyMs!)} ms`
        )
      }
            ${figure(t("feedback"), `${overview.stats.feedbackGood} / ${overview.stats.feedbackBad}`)}
          </dl>
        </section>
        ${
        this.table(
          t("providers"),
          [t("id"), t("type"), t("model"), t("isDefault")],
          overview.providers.map((p) => [p.id, p.type, p.model, p.isDefault ? t("yes") : ""])
        )
      }
        ${
        this.table(
          t("prompts"),
          [t("id"), t("name"), t("category"), t("activeVersion"), t("draft"), t("quickPrompt")],
          overview.prompts.map((p) => [
            p.id,
            p.name ?? "",
            p.category ?? "",
            `v${p.activeVersion}`,
            p.draftVersion === null ? t("none") : `v${p.draftVersion}`,
            p.quickPrompt?.enabled ? p.quickPrompt.label : ""
          ])
        )
      }`
    }`
  }

  static override styles = [
    GatewayElement.sharedStyles,
    css`
      header { display: flex; align-items: center; justify-content: space-between; }
      h2 { font-size: 18px; margin: 0; }
      h3 { font-size: 14px; margin: 16px 0 6px; }
      .figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: 8px; margin: 0; }
      .figure { border: 1px solid var(--docstack-border, #d0d7de); border-radius: 8px; padding: 8px 12px; background: var(--docstack-surface, #fff); }
      dt { color: var(--docstack-muted, #656d76); font-size: 12px; }
      dd { margin: 0; font-size: 20px; font-weight: 600; }
      table { border-collapse: collapse; width: 100%; margin-top: 16px; background: var(--docstack-surface, #fff); }
      caption { text-align: left; font-weight: 600; padding-bottom: 6px; }
      th, td { text-align: left; padding: 4px 10px; border-bottom: 1px solid var(--docstack-border, #d0d7de); }
      th { font-size: 12px; color: var(--docstack-muted, #656d76); }
    `
  ]
}
