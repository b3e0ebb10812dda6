/**
 * What the three web components share: where the gateway is (`base-url`, the page's origin by
 * default), the token to show it (`token` property, for GATEWAY_AUTH=jwt), their strings, and the
 * look every one of them takes from the page's CSS custom properties.
 */
import { css, LitElement, type PropertyDeclarations } from "lit"
import { type Translate, translatorFor } from "../i18n/messages.ts"
import { GatewayClient } from "./GatewayClient.ts"

export class GatewayElement extends LitElement {
  static override properties: PropertyDeclarations = {
    baseUrl: { attribute: "base-url" },
    token: { attribute: false },
    error: { state: true }
  }

  declare baseUrl: string | undefined
  declare token: string | undefined
  /** Why what the element shows could not be read. */
  declare error: string | undefined

  protected t: Translate = (key) => key

  protected get client() {
    return new GatewayClient({ baseUrl: this.baseUrl ?? "", token: this.token })
  }

  /** Reads what the element shows from the gateway (nothing by default). */
  protected read(): Promise<void> {
    return Promise.resolve()
  }

  /** Reads it again (when connected, and whenever the page asks, after a change). */
  async load() {
    try {
      await this.read()
      this.error = undefined
    } catch (error) {
      this.error = (error as Error).message
    }
  }

  override connectedCallback() {
    super.connectedCallback()
    this.t = translatorFor(this)
    void this.load()
  }

  static sharedStyles = css`
    :host {
      display: block;
      color: var(--docstack-text, #1f2328);
      font: var(--docstack-font, 14px/1.5 system-ui, sans-serif);
    }
    button {
      font: inherit;
      border: 1px solid var(--docstack-border, #d0d7de);
      border-radius: 6px;
      background: var(--docstack-surface, #fff);
      color: inherit;
      padding: 4px 12px;
      cursor: pointer;
    }
    button:hover { background: color-mix(in srgb, currentColor 6%, var(--docstack-surface, #fff)); }
    button:focus-visible, textarea:focus-visible { outline: 2px solid var(--docstack-accent, #0b62d6); outline-offset: 1px; }
    button.primary { background: var(--docstack-accent, #0b62d6); border-color: var(--docstack-accent, #0b62d6); color: #fff; }
    button:disabled { opacity: .5; cursor: default; }
    [role="alert"] { color: var(--docstack-danger, #b42318); }
  `
}
