/** The Quick Prompt bundle (/api/web-components/quick-prompt/script): defines `<docstack-quick-prompt>`. */
import { QuickPromptElement } from "./QuickPromptElement.ts"

if (!customElements.get("docstack-quick-prompt")) customElements.define("docstack-quick-prompt", QuickPromptElement)

export { QuickPromptElement }
