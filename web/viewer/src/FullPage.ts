/**
 * The full page at `{viewer}/?uuid=<id>`: the element filling the window, opened from the address:
 * `uuid`, or `url` (repeated for a container of several documents) with an optional `title`, and
 * `page`, `zoom`, `lang` and `user` (docs/viewer.md, "The full page").
 */
import type { DocstackViewer } from "./DocstackViewer.ts"

export const openFromLocation = async (viewer: DocstackViewer, location: Location) => {
  const query = new URLSearchParams(location.search)
  const lang = query.get("lang")
  if (lang) {
    viewer.lang = lang
    document.documentElement.lang = lang
  }
  const user = query.get("user")
  if (user) viewer.user = user
  const zoom = query.get("zoom")
  if (zoom) void viewer.setZoom(/^\d+(\.\d+)?$/.test(zoom) ? Number(zoom) / 100 : zoom as "page-width")
  // The element is the whole page: keys typed anywhere are its.
  viewer.focus()
  const uuid = query.get("uuid")
  const urls = query.getAll("url")
  const title = query.get("title") ?? undefined
  // A failure is shown by the element itself.
  const opened = uuid
    ? viewer.open({ uuid })
    : urls.length > 0
    ? viewer.open(title === undefined ? { url: urls } : { url: urls, title })
    : null
  if (opened === null || !(await opened.then(() => true, () => false))) return
  if (viewer.layout) document.title = viewer.layout.documentTitle ?? document.title
  viewer.focus()
  const page = Number(query.get("page"))
  if (Number.isInteger(page) && page > 1) await viewer.goToPage(page)
}
