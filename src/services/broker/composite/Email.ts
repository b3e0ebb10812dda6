/**
 * An email (.eml, RFC 822) or Outlook message (.msg) as the parts of a composite document.
 *
 * Part 0 is the message itself as one complete UTF-8 HTML page: a header block (From, To, Cc, Date,
 * Subject), then the HTML body, or the text body in a `<pre>`, or for .msg the HTML carried in its
 * compressed RTF when that is all there is. The page is made safe to hand to a converter (by
 * sanitize-html, to an allowlist of elements and attributes): no scripts, event handlers, frames or
 * objects, and no reference that would make it fetch anything (remote or local images, stylesheets,
 * `@import`, `url(...)`); images the body references by `cid:` are embedded as `data:` URIs.
 *
 * Attachments follow from 1 in message order, each stored as it came, titled by its file name,
 * typed as declared. Choice: an attachment the HTML body shows inline (referenced by `cid:`) is
 * part of part 0 and NOT listed again; one with a Content-ID the body does not reference is listed.
 * An attached email (message/rfc822 in an .eml, an embedded message in a .msg) is listed as
 * `message/rfc822`, stored as a plain UTF-8 text rendering of it (headers, blank line, body, the
 * names of its own attachments), so that it opens as a text page.
 */
import { HttpApiSchema } from "@effect/platform"
import msgreaderModule, { type FieldsData } from "@kenjiuno/msgreader"
import { decompressRTF } from "@kenjiuno/decompressrtf"
import { Effect, Schema } from "effect"
import { convert as htmlToText, type HtmlToTextOptions } from "html-to-text"
import { readFile } from "node:fs/promises"
import PostalMime, { type Address, type Email as PostalEmail } from "postal-mime"
import { deEncapsulateSync } from "rtf-stream-parser"
import sanitizeHtml from "sanitize-html"
import type { BlobStore } from "../../common/BlobStore.ts"
import { bomOf, codepageEncoding, decodeAs, decodeHtml, UTF8_META } from "../conversion/TextEncoding.ts"
import { makePartStore, type PartEntry } from "./Parts.ts"

/** The message cannot be read; `message` says why. */
export class EmailRejected extends Schema.TaggedError<EmailRejected>()(
  "EmailRejected",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {}

// The package is CommonJS with `exports.default`; Node's ESM loader hands over `module.exports`.
const MsgReader: typeof msgreaderModule.default = (msgreaderModule as unknown as { default?: typeof msgreaderModule.default }).default ??
  (msgreaderModule as unknown as typeof msgreaderModule.default)

/** A message, whichever format it came in. */
interface Message {
  readonly subject: string | undefined
  readonly from: string | undefined
  readonly to: string | undefined
  readonly cc: string | undefined
  readonly date: string | undefined
  readonly html: string | undefined
  readonly text: string | undefined
  readonly attachments: ReadonlyArray<Attachment>
}

interface Attachment {
  readonly name: string | undefined
  readonly mimeType: string | null
  /** Without angle brackets, lower case. */
  readonly contentId: string | undefined
  readonly content: Uint8Array
  /** Set for an attached email, parsed (its own attachments carry names only). */
  readonly message?: Message
}

const NO_SUBJECT = "(no subject)"

const nonEmpty = (value: string | null | undefined): string | undefined => {
  const trimmed = value?.trim()
  return trimmed ? trimmed : undefined
}

const normalizeCid = (cid: string) => {
  let value = cid.trim()
  try {
    value = decodeURIComponent(value)
  } catch {
    // keep as written
  }
  return value.replace(/^</, "").replace(/>$/, "").trim().toLowerCase()
}

// ---------------------------------------------------------------------------------------------
// .eml through postal-mime

const formatAddress = (address: Address): string =>
  address.group !== undefined
    ? `${address.name}: ${address.group.map(formatAddress).join(", ")};`
    : address.name && address.name !== address.address
    ? `${address.name} <${address.address}>`
    : address.address || address.name

const formatAddresses = (addresses: ReadonlyArray<Address> | undefined) => nonEmpty(addresses?.map(formatAddress).join(", "))

const parseEml = async (bytes: Uint8Array, depth: number): Promise<Message> => {
  // message/rfc822 parts are attachments (an attached email is a part of its own), never inlined into the body.
  const email: PostalEmail = await PostalMime.parse(bytes, { forceRfc822Attachments: true, attachmentEncoding: "arraybuffer" })
  const attachments: Array<Attachment> = []
  for (const attachment of email.attachments) {
    const content = typeof attachment.content === "string"
      ? new TextEncoder().encode(attachment.content)
      : new Uint8Array(attachment.content)
    const mimeType = attachment.mimeType.toLowerCase()
    const message = mimeType === "message/rfc822" && depth === 0 ? await parseEml(content, depth + 1).catch(() => undefined) : undefined
    attachments.push({
      name: nonEmpty(attachment.filename) ?? message?.subject,
      mimeType,
      contentId: attachment.contentId ? normalizeCid(attachment.contentId) : undefined,
      content,
      ...(message ? { message } : {})
    })
  }
  return {
    subject: nonEmpty(email.subject),
    from: email.from ? formatAddress(email.from) : undefined,
    to: formatAddresses(email.to),
    cc: formatAddresses(email.cc),
    date: nonEmpty(email.headers.find((header) => header.key === "date")?.value) ?? nonEmpty(email.date),
    html: nonEmpty(email.html),
    text: email.text,
    attachments
  }
}

// ---------------------------------------------------------------------------------------------
// .msg through msgreader

const decodeCodepage = (buffer: Uint8Array, encoding: string) => {
  const codepage = /^cp(\d+)$/i.exec(encoding)
  return decodeAs(buffer, (codepage ? codepageEncoding(Number(codepage[1])) : undefined) ?? "windows-1252")
}

/** The body an Outlook message keeps only as compressed RTF, de-encapsulated to the HTML or text it came from. */
const rtfBody = (compressed: Uint8Array): { readonly html?: string; readonly text?: string } => {
  try {
    const rtf = Buffer.from(decompressRTF(Array.from(compressed)))
    const result = deEncapsulateSync(rtf, { decode: decodeCodepage, mode: "either", htmlFixContentType: true })
    const text = typeof result.text === "string" ? result.text : result.text.toString("utf8")
    return result.mode === "html" ? { html: text } : { text }
  } catch {
    // Plain RTF (not encapsulated HTML or text): nothing we can show without a converter.
    return {}
  }
}

const msgAddress = (name: string | undefined, email: string | undefined) => {
  const address = email && email.includes("@") ? email : undefined
  const display = nonEmpty(name)
  return address && display && display !== address ? `${display} <${address}>` : address ?? display
}

const msgRecipients = (fields: FieldsData, type: "to" | "cc") =>
  nonEmpty(
    (fields.recipients ?? [])
      .filter((recipient) => recipient.recipType === type)
      .map((recipient) => msgAddress(recipient.name, recipient.smtpAddress ?? recipient.email))
      .filter((address): address is string => address !== undefined)
      .join(", ")
  )

const headerValue = (headers: string | undefined, name: string) =>
  headers === undefined ? undefined : nonEmpty(new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, "im").exec(headers)?.[1]?.replace(/\r?\n[ \t]+/g, " "))

const msgHtml = (fields: FieldsData): string | undefined => {
  if (fields.html && fields.html.length > 0) {
    const bytes = fields.html
    const bom = bomOf(bytes)
    const declared = fields.internetCodepage !== undefined ? codepageEncoding(fields.internetCodepage) : undefined
    return bom || declared === undefined ? decodeHtml(bytes).text : decodeAs(bytes, declared)
  }
  return nonEmpty(fields.bodyHtml)
}

const msgMessage = (fields: FieldsData, attachments: ReadonlyArray<Attachment>): Message => {
  let html = msgHtml(fields)
  let text = nonEmpty(fields.body) !== undefined ? fields.body : undefined
  if (html === undefined && text === undefined && fields.compressedRtf) {
    const fromRtf = rtfBody(fields.compressedRtf)
    html = nonEmpty(fromRtf.html)
    text = fromRtf.text
  }
  return {
    subject: nonEmpty(fields.subject),
    from: msgAddress(fields.senderName, fields.senderSmtpAddress ?? fields.senderEmail) ?? headerValue(fields.headers, "From"),
    to: msgRecipients(fields, "to") ?? headerValue(fields.headers, "To"),
    cc: msgRecipients(fields, "cc") ?? headerValue(fields.headers, "Cc"),
    date: headerValue(fields.headers, "Date") ?? nonEmpty(fields.clientSubmitTime) ?? nonEmpty(fields.messageDeliveryTime) ??
      nonEmpty(fields.creationTime),
    html,
    text,
    attachments
  }
}

const attachmentName = (fields: FieldsData) => nonEmpty(fields.fileName) ?? nonEmpty(fields.name) ?? nonEmpty(fields.fileNameShort)

const parseMsg = (bytes: Uint8Array): Message => {
  const reader = new MsgReader(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer)
  const fields = reader.getFileData()
  if (fields.error) throw new Error(fields.error)
  if (fields.dataType !== "msg") throw new Error("not an Outlook message")
  const attachments: Array<Attachment> = []
  for (const attachment of fields.attachments ?? []) {
    if (attachment.innerMsgContent && attachment.innerMsgContentFields) {
      const inner = attachment.innerMsgContentFields
      const innerAttachments = (inner.attachments ?? []).map((a): Attachment => ({
        name: attachmentName(a) ?? nonEmpty(a.innerMsgContentFields?.subject),
        mimeType: null,
        contentId: undefined,
        content: new Uint8Array()
      }))
      const message = msgMessage(inner, innerAttachments)
      attachments.push({
        name: attachmentName(attachment) ?? message.subject,
        mimeType: "message/rfc822",
        contentId: undefined,
        content: new Uint8Array(),
        message
      })
      continue
    }
    let content: Uint8Array
    try {
      content = reader.getAttachment(attachment).content
    } catch {
      continue // an attachment without readable data (an OLE object msgreader cannot extract)
    }
    attachments.push({
      name: attachmentName(attachment),
      mimeType: nonEmpty(attachment.attachMimeTag)?.toLowerCase() ?? null,
      contentId: attachment.pidContentId ? normalizeCid(attachment.pidContentId) : undefined,
      content
    })
  }
  return msgMessage(fields, attachments)
}

// ---------------------------------------------------------------------------------------------
// Making the body safe to convert

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** Elements kept (the defaults of sanitize-html and the presentational ones mail still uses); others lose their tags. */
const ALLOWED_TAGS = [...sanitizeHtml.defaults.allowedTags, "img", "style", "font", "center", "big", "tt", "strike", "del", "ins", "nobr"]
const ALLOWED = new Set(ALLOWED_TAGS)

/** Elements dropped with everything inside them, not only their tags. */
const DROPPED_WITH_CONTENT = [
  "script", "noscript", "textarea", "option", "xmp", "title", "template", "iframe", "frame", "frameset", "noframes",
  "noembed", "object", "embed", "applet", "svg", "math", "audio", "video", "xml"
]

/** The attributes mail lays itself out with; of these only `href`, `src` and `background` reference anything (vetted below). */
const ALLOWED_ATTRIBUTES: Record<string, Array<string>> = {
  "*": ["style", "class", "id", "title", "lang", "dir", "align", "valign", "width", "height", "bgcolor", "background", "color", "border", "nowrap"],
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
  codePoint === 0 || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff) ? "\uFFFD" : String.fromCodePoint(codePoint)

/**
 * CSS without @import, remote or local `url(...)`, `image-set(...)` or script hooks; `data:` images
 * stay. sanitize-html only filters CSS by an allowlist of properties, and not in `<style>` at all.
 */
const scrubCss = (css: string): string =>
  css
    // Undo escapes first, so that `\75 rl(` or `@\69mport` cannot hide from the rules below.
    .replace(/\\([0-9a-fA-F]{1,6})[ \t\n\r\f]?|\\([^\n\r\f0-9a-fA-F])/g, (_, hex: string | undefined, char: string | undefined) =>
      hex !== undefined ? fromCodePointSafe(parseInt(hex, 16)) : char!)
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
    const dataUri = `data:${attachment.mimeType ?? "application/octet-stream"};base64,${Buffer.from(attachment.content).toString("base64")}`
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
const messagePage = (message: Message): { readonly html: string; readonly embedded: ReadonlySet<string> } => {
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
    : { styles: "", body: message.text !== undefined ? `<pre style="white-space:pre-wrap">${escapeHtml(message.text)}</pre>` : "" }
  const html = `<!DOCTYPE html>\n<html><head>${UTF8_META}<title>${escapeHtml(subject)}</title>${styles}</head>\n<body>\n` +
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
const messageText = (message: Message): string => {
  const headers = headerLines(message).map(([label, value]) => `${label}: ${value}`)
  const body = message.text !== undefined && message.text.trim() !== ""
    ? message.text.replace(/\r\n?/g, "\n").trimEnd()
    : message.html !== undefined
    ? htmlToText(message.html, TEXT_RENDERING)
    : ""
  const names = message.attachments.map((attachment, i) => attachment.name ?? `attachment-${i + 1}`)
  return [headers.join("\n"), "", body, ...(names.length > 0 ? ["", `Attachments: ${names.join(", ")}`] : [])].join("\n") + "\n"
}

// ---------------------------------------------------------------------------------------------

/**
 * Stores the body page and every attachment of the message at `path` and returns the parts:
 * index 0 the body (text/html), attachments from 1. A message that cannot be read is rejected, and
 * leaves no blob behind that it created.
 */
export const expandEmail = Effect.fn("Email.expandEmail")(function*(path: string, format: "eml" | "msg") {
  const bytes = yield* Effect.promise(() => readFile(path))
  const message = yield* Effect.tryPromise({
    try: async () => (format === "eml" ? await parseEml(bytes, 0) : parseMsg(bytes)),
    catch: (error) =>
      new EmailRejected({
        message: `The ${format === "eml" ? "email" : "Outlook message"} cannot be read: ${error instanceof Error ? error.message : String(error)}`
      })
  })
  const store = yield* makePartStore
  return yield* Effect.gen(function*() {
    const page = messagePage(message)
    const body = yield* store.putBytes(new TextEncoder().encode(page.html))
    const parts: Array<PartEntry> = [
      { kind: "file", index: 0, name: message.subject ?? NO_SUBJECT, mimeType: "text/html", hash: body.hash, size: body.size }
    ]
    for (const attachment of message.attachments) {
      if (attachment.contentId !== undefined && page.embedded.has(attachment.contentId) && !attachment.message) continue
      const index = parts.length
      const content = attachment.message ? new TextEncoder().encode(messageText(attachment.message)) : attachment.content
      const stored = yield* store.putBytes(content)
      parts.push({
        kind: "file",
        index,
        name: attachment.name ?? (attachment.message ? attachment.message.subject ?? NO_SUBJECT : `attachment-${index}`),
        mimeType: attachment.message ? "message/rfc822" : attachment.mimeType,
        hash: stored.hash,
        size: stored.size
      })
    }
    return parts as ReadonlyArray<PartEntry>
  }).pipe(Effect.onError(() => store.rollback))
}) satisfies (path: string, format: "eml" | "msg") => Effect.Effect<ReadonlyArray<PartEntry>, EmailRejected, BlobStore>
