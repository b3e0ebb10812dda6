/**
 * Reading an email (.eml, RFC 822, through postal-mime) or an Outlook message (.msg, through
 * msgreader) into one model: headers, the HTML and text bodies (for .msg, the HTML carried in its
 * compressed RTF when that is all there is), and attachments, an attached email parsed in turn.
 * Runs inside a PDF engine worker thread (MessageWorker.ts): parsing is CPU work, and a hostile
 * file (a compound file whose chains loop) can exhaust memory, which ends only that thread.
 */
import { decompressRTF } from "@kenjiuno/decompressrtf"
import msgreaderModule, { type FieldsData } from "@kenjiuno/msgreader"
import PostalMime, { type Address, type Email as PostalEmail } from "postal-mime"
import { deEncapsulateSync } from "rtf-stream-parser"
import { bomOf, codepageEncoding, decodeAs, decodeHtml } from "../conversion/TextEncoding.ts"

// The package is CommonJS with `exports.default`; Node's ESM loader hands over `module.exports`.
const MsgReader: typeof msgreaderModule.default =
  (msgreaderModule as unknown as { default?: typeof msgreaderModule.default }).default ??
    (msgreaderModule as unknown as typeof msgreaderModule.default)

/** A message, whichever format it came in. */
export interface Message {
  readonly subject: string | undefined
  readonly from: string | undefined
  readonly to: string | undefined
  readonly cc: string | undefined
  readonly date: string | undefined
  readonly html: string | undefined
  readonly text: string | undefined
  readonly attachments: ReadonlyArray<Attachment>
}

export interface Attachment {
  readonly name: string | undefined
  readonly mimeType: string | null
  /** Without angle brackets, lower case. */
  readonly contentId: string | undefined
  readonly content: Uint8Array
  /** Set for an attached email, parsed (its own attachments carry names only). */
  readonly message?: Message
}

export const NO_SUBJECT = "(no subject)"

export const nonEmpty = (value: string | null | undefined): string | undefined => {
  const trimmed = value?.trim()
  return trimmed ? trimmed : undefined
}

export const normalizeCid = (cid: string) => {
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

const formatAddresses = (addresses: ReadonlyArray<Address> | undefined) =>
  nonEmpty(addresses?.map(formatAddress).join(", "))

const parseEml = async (bytes: Uint8Array, depth: number): Promise<Message> => {
  // message/rfc822 parts are attachments (an attached email is a part of its own), never inlined into the body.
  const email: PostalEmail = await PostalMime.parse(bytes, {
    forceRfc822Attachments: true,
    attachmentEncoding: "arraybuffer"
  })
  const attachments: Array<Attachment> = []
  for (const attachment of email.attachments) {
    const content = typeof attachment.content === "string"
      ? new TextEncoder().encode(attachment.content)
      : new Uint8Array(attachment.content)
    const mimeType = attachment.mimeType.toLowerCase()
    const message = mimeType === "message/rfc822" && depth === 0
      ? await parseEml(content, depth + 1).catch(() => undefined)
      : undefined
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
  headers === undefined
    ? undefined
    : nonEmpty(
      new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, "im").exec(headers)?.[1]?.replace(/\r?\n[ \t]+/g, " ")
    )

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
    from: msgAddress(fields.senderName, fields.senderSmtpAddress ?? fields.senderEmail) ??
      headerValue(fields.headers, "From"),
    to: msgRecipients(fields, "to") ?? headerValue(fields.headers, "To"),
    cc: msgRecipients(fields, "cc") ?? headerValue(fields.headers, "Cc"),
    date: headerValue(fields.headers, "Date") ?? nonEmpty(fields.clientSubmitTime) ??
      nonEmpty(fields.messageDeliveryTime) ??
      nonEmpty(fields.creationTime),
    html,
    text,
    attachments
  }
}

const attachmentName = (fields: FieldsData) =>
  nonEmpty(fields.fileName) ?? nonEmpty(fields.name) ?? nonEmpty(fields.fileNameShort)

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

/** The message in `bytes`, in the format its detection gave. */
export const readMessage = async (bytes: Uint8Array, format: "eml" | "msg"): Promise<Message> =>
  format === "eml" ? await parseEml(bytes, 0) : parseMsg(bytes)
