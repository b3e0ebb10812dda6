/**
 * The browser viewer's bundle (web/dist/docstack-viewer.js): defines `<docstack-viewer>` and its
 * parts. A `<docstack-viewer from-location>` opens what the page's address names (the full page).
 */
import { DocstackViewer } from "./DocstackViewer.ts"
import { openFromLocation } from "./FullPage.ts"
import "./pages/PageView.ts"

export { DocstackViewer }
export type { OpenRequest } from "./DocstackViewer.ts"

document.querySelectorAll<DocstackViewer>("docstack-viewer[from-location]").forEach((viewer) => {
  void openFromLocation(viewer, window.location)
})
