/**
 * A message as the pages people see. Part 0 is the message itself as one complete UTF-8 HTML page:
 * a header block (From, To, Cc, Date, Subject), then the HTML body, or the text body in a `<pre>`.
 * The page is made safe to hand to a converter (by sanitize-html, to an allowlist of elements and
 * attributes): no scripts, event handlers, frames or objects, and no reference that would make it
 * fetch anything (remote or local images, stylesheets, `@import`, `url(...)`); images the body
 * references by `cid:` are embedded as `data:` URIs. An attached email reads as plain text.
 */
import { convert as htmlToText, type HtmlToTextOptions } from "html-to-text"
import sanitizeHtml from "sanitize-html"
import { UTF8_META } from "../conversion/TextEncoding.ts"
import { type Message, NO_SUBJECT, normalizeCid } from "./MessageReader.ts"

// ---------------------------------------------------------------------------------------------
// Making the body safe to convert

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** Elements kept (the defaults of sanitize-html and the presentational ones mail still uses); others lose their tags. */
const ALLOWED_TAGS = [
  ...sanitizeHtml.defaults.allowedTags,
  "img",
  "style",
  "font",
  "center",
  "big",
  "tt",
  "strike",
  "del",
  "ins",
  "nobr"
]
const ALLOWED = new Set(ALLOWED_TAGS)

/** Elements dropped with everything inside them, not only their tags. */
const DROPPED_WITH_CONTENT = [
  "script",
  "noscript",
  "textarea",
  "option",
  "xmp",
  "title",
  "template",
  "iframe",
  "frame",
  "frameset",
  "noframes",
  "noembed",
  "object",
  "embed",
  "applet",
  "svg",
  "math",
  "audio",
  "video",
  "xml"
]

/** The attributes mail lays itself out with; of these only `href`, `src` and `background` reference anything (vetted below). */
const ALLOWED_ATTRIBUTES: Record<string, Array<string>> = {
  "*": [
    "style",
    "class",
    "id",
    "title",
    "lang",
    "dir",
    "align",
    "valign",
    "width",
    "height",
    "bgcolor",
    "background",
    "color",
    "border",
    "nowrap"
  ],
  a: ["href", "name"],
  img: ["src", "alt", "hspace", "vspace"],
  font: ["face", "size"],
  table: ["cellpadding", "cellspacing"],
  td: ["colspan", "rowspan"],
  th: ["colspan", "rowspan", "scope"],
  col: ["span"],
  colgroup: ["span"],
  ol: ["start", "type", "reversed"],
  ul: ["type"],
  li: ["value", "type"],
  hr: ["size", "noshade"]
}

/** Images a data: URI may carry: raster formats only (an SVG image may reference other files). */
const INLINE_IMAGE = /^data:image\/(png|jpe?g|gif|webp|bmp|tiff?|x-icon|vnd\.microsoft\.icon);/i

/** Links a person may follow by clicking them in the PDF: web, mail and phone, and places in the page. */
const LINK = /^(https?:|mailto:|tel:|#)/

// Remove what a converter could read as a character sequence but a naive filter would not: escapes, comments, control characters.
const scheme = (value: string) => value.replace(/[\u0000-\u0020\u007f]+/g, "").toLowerCase()

const fromCodePointSafe = (codePoint: number) =>
  codePoint === 0 || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)
    ? "\uFFFD"
    : String.fromCodePoint(codePoint)

/**
 * CSS without @import, remote or local `url(...)`, `image-set(...)` or script hooks; `data:` images
 * stay. sanitize-html only filters CSS by an allowlist of properties, and not in `<style>` at all.
 */
const scrubCss = (css: string): string =>
  css
    // Undo escapes first, so that `\75 rl(` or `@\69mport` cannot hide from the rules below.
    .replace(
      /\\([0-9a-fA-F]{1,6})[ \t\n\r\f]?|\\([^\n\r\f0-9a-fA-F])/g,
      (_, hex: string | undefined, char: string | undefined) =>
        hex !== undefined ? fromCodePointSafe(parseInt(hex, 16)) : char!
    )
    .replace(/\/\*[\s\S]*?(\*\/|$)/g, "")
    .replace(/@import\b[^;]*(;|$)/gi, "")
    .replace(/url\s*\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))\s*\)/gi, (match, a?: string, b?: string, c?: string) =>
      INLINE_IMAGE.test((a ?? b ?? c ?? "").trim()) ? match : "none")
    .replace(/\burl\s*\(/gi, "none(") // an unterminated url( that the rule above did not match
    .replace(/(-webkit-)?image-set\s*\(/gi, "blocked-image-set(")
    .replace(/expression\s*\(/gi, "blocked-expression(")
    .replace(/(behavior|-moz-binding)\s*:/gi, "blocked-$1:")

/** A `<style>` element of the page; `</` escaped, as the unescaping above may have made a `</style>` of `\3c/style\3e`. */
const styleElement = (css: string) => `<style>${scrubCss(css).replace(/<\//g, "<\\/")}</style>`

interface SanitizeContext {
  /** data: URIs of the message's images by normalized Content-ID. */
  readonly images: ReadonlyMap<string, string>
  /** Content-IDs the body did show. */
  readonly used: Set<string>
}

/** What an image reference becomes: the message's own image for `cid:`, a raster `data:` image as is, else nothing. */
const imageSource = (value: string, context: SanitizeContext): string | undefined => {
  const cleaned = scheme(value)
  if (cleaned.startsWith("cid:")) {
    const cid = normalizeCid(value.trim().slice(4))
    const image = context.images.get(cid)
    if (image !== undefined) context.used.add(cid)
    return image
  }
  return INLINE_IMAGE.test(cleaned) ? value : undefined
}

/**
 * The attributes of a kept element with every reference vetted and its style scrubbed. sanitize-html
 * allows relative URLs (which a converter resolves against the file system) and any `data:` type,
 * so the decision is taken here; its scheme lists below repeat it.
 */
const vetAttributes = (context: SanitizeContext): sanitizeHtml.Transformer => (tagName, attribs) => {
  if (!ALLOWED.has(tagName)) return { tagName, attribs }
  const vetted: sanitizeHtml.Attributes = {}
  for (const [name, value] of Object.entries(attribs)) {
    if (name === "style") vetted[name] = scrubCss(value)
    else if ((name === "src" && tagName === "img") || name === "background") {
      const source = imageSource(value, context)
      if (source !== undefined) vetted[name] = source
    } else if (name === "href") {
      if (LINK.test(scheme(value))) vetted[name] = value
    } else vetted[name] = value
  }
  return { tagName, attribs: vetted }
}

/** The body's styles (for the page's head) and content, made safe. */
const safeBody = (html: string, context: SanitizeContext): { readonly styles: string; readonly body: string } => {
  const styles: Array<string> = []
  const body = sanitizeHtml(html, {
    allowedTags: ALLOWED_TAGS,
    // <style> is safe here: its CSS is scrubbed and the element moved to the head (exclusiveFilter).
    allowVulnerableTags: true,
    nonTextTags: DROPPED_WITH_CONTENT,
    allowedAttributes: ALLOWED_ATTRIBUTES,
    allowedSchemes: ["data"],
    allowedSchemesByTag: { a: ["http", "https", "mailto", "tel"] },
    allowProtocolRelative: false,
    transformTags: { "*": vetAttributes(context) },
    exclusiveFilter: (frame) => {
      if (frame.tag !== "style") return false
      styles.push(styleElement(frame.text))
      return true
    }
  })
  return { styles: styles.join(""), body }
}

const imagesOf = (message: Message): ReadonlyMap<string, string> => {
  const images = new Map<string, string>()
  for (const attachment of message.attachments) {
    if (attachment.contentId === undefined || attachment.message) continue
    const dataUri = `data:${attachment.mimeType ?? "application/octet-stream"};base64,${
      Buffer.from(attachment.content).toString("base64")
    }`
    if (INLINE_IMAGE.test(dataUri)) images.set(attachment.contentId, dataUri)
  }
  return images
}

const HEADER_FIELDS = [["From", "from"], ["To", "to"], ["Cc", "cc"], ["Date", "date"]] as const

/** The header fields shown for a message, those it has, Subject always. */
const headerLines = (message: Message): ReadonlyArray<readonly [string, string]> => [
  ...HEADER_FIELDS.flatMap(([label, field]) => {
    const value = message[field]
    return value === undefined ? [] : [[label, value] as const]
  }),
  ["Subject", message.subject ?? NO_SUBJECT]
]

/** Part 0: the message as a complete UTF-8 HTML page, and the Content-IDs it embedded. */
export const messagePage = (message: Message): { readonly html: string; readonly embedded: ReadonlySet<string> } => {
  const context: SanitizeContext = { images: imagesOf(message), used: new Set() }
  const subject = message.subject ?? NO_SUBJECT
  const rows = headerLines(message)
    .map(([label, value]) =>
      `<tr><th style="text-align:left;vertical-align:top;padding:1px 12px 1px 0;white-space:nowrap">${label}:</th>` +
      `<td style="padding:1px 0">${escapeHtml(value)}</td></tr>`
    )
    .join("")
  const { styles, body } = message.html !== undefined
    ? safeBody(message.html, context)
    : {
      styles: "",
      body: message.text !== undefined ? `<pre style="white-space:pre-wrap">${escapeHtml(message.text)}</pre>` : ""
    }
  const html =
    `<!DOCTYPE html>\n<html><head>${UTF8_META}<title>${escapeHtml(subject)}</title>${styles}</head>\n<body>\n` +
    `<table class="email-header" style="border-collapse:collapse;margin:0 0 8px 0;font-family:sans-serif;font-size:10pt">${rows}</table>\n` +
    `<hr>\n<div class="email-body">${body}</div>\n</body></html>\n`
  return { html, embedded: context.used }
}

// ---------------------------------------------------------------------------------------------
// An attached email as text

/** How an HTML body reads as text: lines unwrapped, list items and table cells on lines of their own, no images or link targets. */
const TEXT_RENDERING: HtmlToTextOptions = {
  wordwrap: false,
  // The walk is recursive: deeper nesting than any real message would overflow the stack.
  limits: { maxDepth: 256 },
  selectors: [
    { selector: "a", options: { ignoreHref: true } },
    { selector: "ul", options: { itemPrefix: "- " } },
    { selector: "td", format: "block", options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
    ...["img", "head", "title", "template", "noscript"].map((selector) => ({ selector, format: "skip" })),
    // Headings keep their case: the message said what it said.
    ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: "th", format: "block", options: { leadingLineBreaks: 1, trailingLineBreaks: 1, uppercase: false } }
  ]
}

/** An attached email as plain text: header lines, a blank line, the body, then its attachments' names. */
export const messageText = (message: Message): string => {
  const headers = headerLines(message).map(([label, value]) => `${label}: ${value}`)
  const body = message.text !== undefined && message.text.trim() !== ""
    ? message.text.replace(/\r\n?/g, "\n").trimEnd()
    : message.html !== undefined
    ? htmlToText(message.html, TEXT_RENDERING)
    : ""
  const names = message.attachments.map((attachment, i) => attachment.name ?? `attachment-${i + 1}`)
  return [headers.join("\n"), "", body, ...(names.length > 0 ? ["", `Attachments: ${names.join(", ")}`] : [])].join(
    "\n"
  ) + "\n"
}
