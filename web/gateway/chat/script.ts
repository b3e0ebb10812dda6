/** The chat bundle (/api/web-components/chat/script): defines `<docstack-chat>`. */
import { ChatElement } from "./ChatElement.ts"

if (!customElements.get("docstack-chat")) customElements.define("docstack-chat", ChatElement)

export { ChatElement }
