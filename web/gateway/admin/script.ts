/** The admin bundle (/api/web-components/admin/script): defines `<docstack-ai-admin>`. */
import { AdminElement } from "./AdminElement.ts"

if (!customElements.get("docstack-ai-admin")) customElements.define("docstack-ai-admin", AdminElement)

export { AdminElement }
