/**
 * An answer's markdown as safe HTML: rendered by marked, then sanitized by DOMPurify, since the
 * text comes from a model that may repeat whatever a prompt or a document put into it. Images
 * are shown only when they are inline data; any other image becomes a link, so that a crafted
 * answer cannot send what it knows to a server by making the page load a URL.
 */
import DOMPurify from "dompurify"
import { Marked } from "marked"

const marked = new Marked({ gfm: true, breaks: true, async: false })

const purifier = DOMPurify(window)
purifier.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank")
    node.setAttribute("rel", "noopener noreferrer nofollow")
  }
  if (node.tagName === "IMG" && !/^data:image\/(png|jpeg|gif|webp);/i.test(node.getAttribute("src") ?? "")) {
    // Without a description there is nothing to show for it.
    if (!node.getAttribute("alt")) return node.remove()
    const link = document.createElement("a")
    link.href = node.getAttribute("src") ?? ""
    link.textContent = node.getAttribute("alt")
    link.setAttribute("target", "_blank")
    link.setAttribute("rel", "noopener noreferrer nofollow")
    node.replaceWith(link)
  }
})

/** Safe HTML for `markdown` (also while it is still arriving: an unfinished construct renders as text). */
export const renderMarkdown = (markdown: string): string =>
  purifier.sanitize(marked.parse(markdown) as string, { USE_PROFILES: { html: true } })
