/**
 * `<docstack-quick-prompt for="chat-id">`: the user's Quick Prompt buttons (GET
 * /api/v1/prompts/display) grouped by category, in their order. Choosing one sends the stored
 * prompt to the `<docstack-chat>` named by `for`, with the text typed there as the variable
 * `input`; a page that wants to do something else cancels the `quick-prompt-select` event.
 */
import { css, html, nothing } from "lit"
import type { PromptDisplay } from "../client/GatewayClient.ts"
import { GatewayElement } from "../client/GatewayElement.ts"

/** What a Quick Prompt is sent to: `<docstack-chat>`, or any element with the same method. */
interface Asker extends HTMLElement {
  ask(
    content: ReadonlyArray<{ type: "prompt"; value: string; payload: Record<string, unknown> }>,
    shown?: string
  ): unknown
  draft?: string
}

export class QuickPromptElement extends GatewayElement {
  static override properties = {
    for: {},
    prompts: { state: true }
  }

  /** The ID of the chat the prompts go to. */
  declare for: string | undefined
  declare prompts: ReadonlyArray<PromptDisplay> | undefined

  protected override async read() {
    const prompts = await this.client.quickPrompts()
    this.prompts = [...prompts].sort((a, b) => (a.order ?? Infinity) - (b.order ?? Infinity))
  }

  private choose(prompt: PromptDisplay) {
    const chosen = new CustomEvent("quick-prompt-select", {
      detail: { promptId: prompt.id, label: prompt.label },
      bubbles: true,
      composed: true,
      cancelable: true
    })
    if (!this.dispatchEvent(chosen) || !this.for) return
    const chat = (this.getRootNode() as Document | ShadowRoot).getElementById(this.for) as Asker | null
    const input = chat?.draft ?? ""
    void chat?.ask(
      [{ type: "prompt", value: prompt.id, payload: { input } }],
      input ? `${prompt.label}: ${input}` : prompt.label
    )
    if (chat && "draft" in chat) chat.draft = ""
  }

  override render() {
    const t = this.t
    if (this.error !== undefined) return html`<p role="alert">${t("loadFailed", { message: this.error })}</p>`
    if (this.prompts === undefined) return nothing
    if (this.prompts.length === 0) return html`<p class="none">${t("noQuickPrompts")}</p>`
    const categories = [...new Set(this.prompts.map((p) => p.category ?? ""))]
    return html`<nav aria-label=${t("quickPrompts")}>${
      categories.map((category) =>
        html`<section>
          <h3>${category || t("other")}</h3>
          <div class="buttons">${
          this.prompts!.filter((p) => (p.category ?? "") === category).map((prompt) =>
            html`<button title=${prompt.description ?? prompt.label} @click=${() => this.choose(prompt)}>
              ${prompt.icon ? html`<span aria-hidden="true">${prompt.icon}</span>` : nothing}${prompt.label}</button>`
          )
        }</div>
        </section>`
      )
    }</nav>`
  }

  static override styles = [
    GatewayElement.sharedStyles,
    css`
      nav { display: flex; flex-direction: column; gap: 6px; }
      h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--docstack-muted, #656d76); margin: 0 0 4px; }
      .buttons { display: flex; flex-wrap: wrap; gap: 6px; }
      .buttons button { border-radius: 999px; display: inline-flex; gap: 6px; align-items: center; }
      .none { color: var(--docstack-muted, #656d76); }
    `
  ]
}
