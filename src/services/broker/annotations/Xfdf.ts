/**
 * XFDF (Adobe "XML Forms Data Format Specification" 3.0, 2009; ISO 19444-1) to and from the
 * PdfAnnotation model: the annotation file of GET /documents/{id}/file/annotations and one side of
 * POST /annotations/conversion.
 *
 * Reading is deliberately strict about XML and deliberately tolerant about XFDF:
 * - the document is tokenised by htmlparser2 (xml mode, entities left alone) and checked here: a
 *   DOCTYPE or any other `<!…>` declaration is refused, so no DTD, internal or external entity is
 *   ever declared, expanded or fetched; the only references decoded are the five predefined entities
 *   and numeric character references; tags must nest, attributes must be quoted, one root;
 * - unknown elements and attributes (fields, popups, `ids`, vendor data such as Apryse's
 *   `trn-custom-data`, annotation types outside the model such as caret or link) are skipped.
 *
 * The reply and review-state conventions are shared with Fdf.ts (same records, same threading), so
 * both formats agree on what an annotation file means:
 * - a reply is a `text` annotation with `inreplyto` naming its parent (replies to replies are kept
 *   on the first annotation of the thread; `replyType="group"` is not a reply);
 * - a review state is, as PDF 32000-1 12.5.6.3 and Acrobat have it, a hidden `text` annotation in
 *   reply to the annotation carrying `state`/`statemodel`; the latest one gives the annotation its
 *   `state`. A state written on the annotation itself is read too.
 */
import { Effect, Schema } from "effect"
import { QuoteType, Tokenizer, type TokenizerCallbacks } from "htmlparser2"
import {
  clamp01,
  normaliseRect,
  type PdfAnnotation,
  type PdfAnnotationSubtype,
  type PdfColor,
  type PdfPoint,
  type PdfRect,
  type PdfReply
} from "./PdfAnnotation.ts"
import { fromPdfDate, toPdfDate } from "../engine/PdfObjects.ts"

/** An annotation file (XFDF or FDF) the broker cannot read: not the format, malformed, hostile or too large. */
export class AnnotationFileInvalid extends Schema.TaggedError<AnnotationFileInvalid>()(
  "AnnotationFileInvalid",
  { message: Schema.String }
) {}

// ---- shared with Fdf.ts ----------------------------------------------------------------------

/** At most this many annotations (replies and review states included) in one file. */
export const MAX_ANNOTATIONS = 100_000

/** Thrown inside the synchronous readers; turned into AnnotationFileInvalid at their edge. */
export class UnreadableAnnotationFile extends Error {}

export const unreadable = (message: string): never => {
  throw new UnreadableAnnotationFile(message)
}

/**
 * Runs a synchronous reader: its UnreadableAnnotationFile becomes AnnotationFileInvalid, anything
 * else it throws is a defect (a bug, not a bad file).
 */
export const readWith = <A>(read: () => A): Effect.Effect<A, AnnotationFileInvalid> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(read())
    } catch (error) {
      if (error instanceof UnreadableAnnotationFile) return Effect.fail(new AnnotationFileInvalid({ message: error.message }))
      throw error
    }
  })

/** What an annotation carries besides its identity, place and thread. */
export type AnnotationDetails = Omit<PdfAnnotation, "subtype" | "page" | "name" | "rect" | "state" | "replies">

type MutableDetails = { -readonly [K in keyof AnnotationDetails]?: AnnotationDetails[K] }

/** Sets `key` only when there is a value (exactOptionalPropertyTypes: absent, never undefined). */
export const put = <K extends keyof AnnotationDetails>(details: MutableDetails, key: K, value: AnnotationDetails[K] | undefined): void => {
  if (value !== undefined) details[key] = value
}

/**
 * One annotation dictionary or element of a file, before replies are threaded: the common ground
 * of the XFDF and FDF readers and writers.
 */
export interface AnnotationRecord {
  /** Unique within the file (an index, an object reference). */
  readonly key: string
  readonly subtype: PdfAnnotationSubtype
  readonly name: string | undefined
  readonly page: number | undefined
  readonly rect: PdfRect | undefined
  readonly details: AnnotationDetails
  readonly state: string | undefined
  readonly stateModel: string | undefined
  /** The key of the record this one is in reply to. */
  readonly inReplyTo: string | undefined
  /** R (reply, the default) or Group. */
  readonly replyType: string | undefined
}

/** Flags of the replies and state notes written: print, nozoom, norotate (+ hidden for states), as Acrobat writes them. */
const REPLY_FLAGS = (1 << 2) | (1 << 3) | (1 << 4)
const STATE_FLAGS = REPLY_FLAGS | (1 << 1)

const isMarkedState = (state: string) => /^(un)?marked$/i.test(state)

/** Review (the default) or Marked, from the state model given or, when none is, from the state. */
const stateModelOf = (record: AnnotationRecord): "review" | "marked" | "other" => {
  const model = record.stateModel?.trim().toLowerCase()
  if (model === undefined || model === "") return record.state !== undefined && isMarkedState(record.state) ? "marked" : "review"
  return model === "review" ? "review" : model === "marked" ? "marked" : "other"
}

/**
 * Threads the records of a file into annotations: replies onto the first annotation of their
 * thread, review states folded into `state` (the latest Review-model state, else the latest
 * Marked-model one), everything else kept as an annotation of its own, which must then have a page
 * and a rectangle. Names missing from the file are generated (`annotation-<n>`, n its position).
 */
export const assembleAnnotations = (records: ReadonlyArray<AnnotationRecord>, format: string): Array<PdfAnnotation> => {
  if (records.length > MAX_ANNOTATIONS) unreadable(`${format} holds more than ${MAX_ANNOTATIONS} annotations`)
  const byKey = new Map<string, AnnotationRecord>()
  for (const record of records) if (!byKey.has(record.key)) byKey.set(record.key, record)

  const used = new Set<string>()
  for (const record of records) if (record.name !== undefined) used.add(record.name)
  const names = new Map<string, string>()
  records.forEach((record, index) => {
    if (record.name !== undefined) return names.set(record.key, record.name)
    let candidate = `annotation-${index + 1}`
    for (let n = 2; used.has(candidate); n++) candidate = `annotation-${index + 1}-${n}`
    used.add(candidate)
    names.set(record.key, candidate)
  })

  /** A Text annotation in reply (not a group member) to another: a reply or a review state. */
  const answers = (record: AnnotationRecord): record is AnnotationRecord & { readonly inReplyTo: string } =>
    record.subtype === "Text" &&
    record.inReplyTo !== undefined &&
    record.inReplyTo !== record.key &&
    record.replyType?.trim().toLowerCase() !== "group"
  const parentOf = (record: AnnotationRecord): AnnotationRecord | undefined => (answers(record) ? byKey.get(record.inReplyTo) : undefined)
  // The first annotation of each thread, remembered along the way so that long chains of replies
  // to replies cost linear time.
  const roots = new Map<string, AnnotationRecord>()
  const rootOf = (record: AnnotationRecord): AnnotationRecord => {
    const path: Array<AnnotationRecord> = []
    const onPath = new Set<string>()
    let current = record
    let root: AnnotationRecord | undefined
    while (root === undefined) {
      const parent = roots.get(current.key) === undefined ? parentOf(current) : undefined
      if (parent === undefined) root = roots.get(current.key) ?? current
      else {
        if (onPath.has(current.key)) return unreadable(`${format} replies form a cycle (annotation ${names.get(record.key)})`)
        onPath.add(current.key)
        path.push(current)
        current = parent
      }
    }
    for (const member of path) roots.set(member.key, root)
    return root
  }

  interface Thread {
    readonly record: AnnotationRecord
    readonly replies: Array<PdfReply>
    readonly states: Array<{ readonly state: string; readonly model: "review" | "marked"; readonly date: string }>
  }
  const threads = new Map<string, Thread>()
  const order: Array<Thread> = []
  for (const record of records) {
    if (parentOf(record) !== undefined || threads.has(record.key)) continue
    // The review state of an annotation that is not in the file (or not kept) says nothing.
    if (answers(record) && record.state !== undefined) continue
    if (record.page === undefined) unreadable(`${format} annotation ${names.get(record.key)} has no page`)
    if (record.rect === undefined) unreadable(`${format} annotation ${names.get(record.key)} has no rectangle`)
    const thread: Thread = { record, replies: [], states: [] }
    if (record.state !== undefined) {
      const model = stateModelOf(record)
      if (model !== "other") thread.states.push({ state: record.state, model, date: "" })
    }
    threads.set(record.key, thread)
    order.push(thread)
  }
  for (const record of records) {
    if (parentOf(record) === undefined) continue
    const thread = threads.get(rootOf(record).key)
    if (thread === undefined) continue
    if (record.state !== undefined) {
      const model = stateModelOf(record)
      if (model !== "other") thread.states.push({ state: record.state, model, date: record.details.modified ?? record.details.created ?? "" })
      continue
    }
    const reply: { -readonly [K in keyof PdfReply]: PdfReply[K] } = { name: names.get(record.key) ?? record.key, contents: record.details.contents ?? "" }
    if (record.details.author !== undefined) reply.author = record.details.author
    if (record.details.modified !== undefined) reply.modified = record.details.modified
    if (record.details.created !== undefined) reply.created = record.details.created
    thread.replies.push(reply)
  }

  return order.map(({ record, replies, states }) => {
    const latest = (model: "review" | "marked") =>
      states
        .map((entry, index) => ({ ...entry, index }))
        .filter((entry) => entry.model === model)
        .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.index - b.index))
        .at(-1)?.state
    const state = latest("review") ?? latest("marked")
    return {
      subtype: record.subtype,
      page: record.page ?? 0,
      name: names.get(record.key) ?? record.key,
      rect: record.rect ?? [0, 0, 0, 0],
      ...record.details,
      ...(state !== undefined ? { state } : {}),
      ...(replies.length > 0 ? { replies } : {})
    }
  })
}

/**
 * The records to write for annotations: each annotation, then its replies (Text annotations in
 * reply to it, on its page and rectangle), then its review state as Acrobat records one (a hidden
 * Text annotation in reply to it, named `<name>-state`). Keys are positions.
 */
export const flattenAnnotations = (annotations: ReadonlyArray<PdfAnnotation>): Array<AnnotationRecord & { readonly name: string }> => {
  const used = new Set<string>()
  for (const annotation of annotations) {
    used.add(annotation.name)
    for (const reply of annotation.replies ?? []) used.add(reply.name)
  }
  const records: Array<AnnotationRecord & { readonly name: string }> = []
  const thread = { inReplyTo: undefined, replyType: undefined, state: undefined, stateModel: undefined }
  for (const annotation of annotations) {
    const { subtype, page, name, rect, state, replies, ...details } = annotation
    const parentKey = String(records.length)
    records.push({ ...thread, key: parentKey, subtype, name, page, rect, details })
    for (const reply of replies ?? []) {
      const replyDetails: MutableDetails = { contents: reply.contents, flags: REPLY_FLAGS, iconName: "Comment" }
      put(replyDetails, "author", reply.author)
      put(replyDetails, "modified", reply.modified)
      put(replyDetails, "created", reply.created)
      records.push({ ...thread, key: String(records.length), subtype: "Text", name: reply.name, page, rect, details: replyDetails, inReplyTo: parentKey })
    }
    if (state !== undefined) {
      let stateName = `${name}-state`
      for (let n = 2; used.has(stateName); n++) stateName = `${name}-state-${n}`
      used.add(stateName)
      records.push({
        ...thread,
        key: String(records.length),
        subtype: "Text",
        name: stateName,
        page,
        rect,
        details: { flags: STATE_FLAGS, iconName: "Comment" },
        state,
        stateModel: isMarkedState(state) ? "Marked" : "Review",
        inReplyTo: parentKey
      })
    }
  }
  return records
}

/** A number as PDF and XFDF write it: shortest round-tripping decimal, never exponent notation. */
export const formatNumber = (value: number): string => {
  if (!Number.isFinite(value)) return "0"
  const text = String(Object.is(value, -0) ? 0 : value)
  if (!/e/i.test(text)) return text
  return value.toFixed(20).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "")
}


/** RGB from the 1, 3 or 4 components of a PDF colour array (gray, RGB, CMYK); undefined otherwise. */
export const colorFromComponents = (components: ReadonlyArray<number>): PdfColor | undefined => {
  if (components.length === 1) {
    const [g = 0] = components
    return [g, g, g]
  }
  if (components.length === 3) {
    const [r = 0, g = 0, b = 0] = components
    return [r, g, b]
  }
  if (components.length === 4) {
    const [c = 0, m = 0, y = 0, k = 0] = components
    return [(1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)]
  }
  return undefined
}

const hexColor = (color: PdfColor): string =>
  "#" + color.map((component) => Math.round(clamp01(component) * 255).toString(16).padStart(2, "0").toUpperCase()).join("")

const colorFromHex = (value: string | undefined): PdfColor | undefined => {
  const match = value === undefined ? null : /^\s*#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})\s*$/i.exec(value)
  if (match === null) return undefined
  return [parseInt(match[1] ?? "0", 16) / 255, parseInt(match[2] ?? "0", 16) / 255, parseInt(match[3] ?? "0", 16) / 255]
}

const APPEARANCE_OPERATORS: Readonly<Record<string, number>> = { Tf: 1, rg: 3, RG: 3, g: 1, G: 1, k: 4, K: 4 }

/**
 * Font size and text colour from a default appearance string (`/Helv 12 Tf 0 0 1 rg`: the size of
 * Tf, the fill colour of rg, g or k, else the stroke colour) and, for what it lacks, from a default
 * style string (`font: Helvetica 12pt; color:#0000FF`). A Tf size of 0 (auto) is no size.
 */
export const parseAppearance = (da: string | undefined, ds: string | undefined): { fontSize?: number; fontColor?: PdfColor } => {
  let fontSize: number | undefined
  let fill: PdfColor | undefined
  let stroke: PdfColor | undefined
  if (da !== undefined) {
    const tokens = da.trim().split(/\s+/)
    const operands = (index: number, count: number): Array<number> | undefined => {
      if (index < count) return undefined
      const values = tokens.slice(index - count, index).map(Number)
      return values.every(Number.isFinite) ? values : undefined
    }
    tokens.forEach((token, index) => {
      const arity = APPEARANCE_OPERATORS[token]
      if (arity === undefined) return
      const values = operands(index, arity)
      if (values === undefined) return
      if (token === "Tf") {
        const [size = 0] = values
        if (size > 0) fontSize = size
      } else if (token === token.toLowerCase()) fill = colorFromComponents(values)
      else stroke = colorFromComponents(values)
    })
  }
  let fontColor = fill ?? stroke
  if (ds !== undefined) {
    if (fontSize === undefined) {
      const size = /(?:^|[;\s])font-size\s*:\s*(\d+(?:\.\d+)?)\s*pt/i.exec(ds) ?? /(?:^|[;\s])font\s*:[^;]*?(\d+(?:\.\d+)?)\s*pt/i.exec(ds)
      const value = Number(size?.[1])
      if (Number.isFinite(value) && value > 0) fontSize = value
    }
    if (fontColor === undefined) fontColor = colorFromHex(/(?:^|[;\s])color\s*:\s*(#[0-9a-f]{6})/i.exec(ds)?.[1])
  }
  return { ...(fontSize !== undefined ? { fontSize } : {}), ...(fontColor !== undefined ? { fontColor } : {}) }
}

/** The default appearance string for a font size and text colour (Helvetica; size 0 when none). */
export const formatAppearance = (fontSize: number | undefined, fontColor: PdfColor | undefined): string =>
  `/Helv ${formatNumber(fontSize ?? 0)} Tf` + (fontColor === undefined ? "" : ` ${fontColor.map(formatNumber).join(" ")} rg`)

/** The default style string (CSS) Acrobat reads for FreeText. */
export const formatDefaultStyle = (fontSize: number | undefined, fontColor: PdfColor | undefined): string =>
  [
    ...(fontSize !== undefined ? [`font: Helvetica,sans-serif ${formatNumber(fontSize)}pt`] : []),
    ...(fontColor !== undefined ? [`color:${hexColor(fontColor)}`] : [])
  ].join("; ")

/** The text of an XHTML rich text string (/RC, contents-richtext); undefined when it is not readable. */
export const plainTextOfRichText = (xhtml: string): string | undefined => {
  try {
    return richText(parseXml(xhtml))
  } catch (error) {
    if (error instanceof UnreadableAnnotationFile) return undefined
    throw error
  }
}

// ---- XML -------------------------------------------------------------------------------------

interface XmlElement {
  /** As written, prefix included. */
  readonly qname: string
  /** Local name, lower case. */
  readonly name: string
  /** By qualified name, lower case. */
  readonly attributes: ReadonlyMap<string, string>
  readonly children: Array<XmlElement | string>
}

const MAX_DEPTH = 256
const MAX_ELEMENTS = 1_000_000
const XML_NAME = /^[A-Za-z_:\u00C0-\uFFFF][\w.:\-\u00B7\u00C0-\uFFFF]*$/
/** Characters XML 1.0 does not allow, even as references (lone surrogates included). */
const NOT_XML_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const PREDEFINED: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }

const isXmlCharacter = (codePoint: number) =>
  codePoint === 0x9 ||
  codePoint === 0xa ||
  codePoint === 0xd ||
  (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
  (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
  (codePoint >= 0x10000 && codePoint <= 0x10ffff)

/** Decodes the five predefined entities and character references; any other `&` is an error. */
const decodeReferences = (raw: string): string => {
  if (!raw.includes("&")) return raw
  const reference = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,8})|#x([0-9a-fA-F]{1,7}));/y
  let out = ""
  let from = 0
  for (;;) {
    const at = raw.indexOf("&", from)
    if (at < 0) return out + raw.slice(from)
    out += raw.slice(from, at)
    reference.lastIndex = at
    const match = reference.exec(raw)
    if (match === null) return unreadable("XML uses an entity other than &amp; &lt; &gt; &quot; &apos; (entities are not expanded)")
    const [, entity, decimal, hex] = match
    if (entity !== undefined) out += PREDEFINED[entity] ?? ""
    else {
      const codePoint = decimal !== undefined ? parseInt(decimal, 10) : parseInt(hex ?? "", 16)
      if (!isXmlCharacter(codePoint)) return unreadable("XML refers to a character XML does not allow")
      out += String.fromCodePoint(codePoint)
    }
    from = reference.lastIndex
  }
}

/**
 * Parses a whole XML document into elements and text. No DTD: `<!DOCTYPE`, `<!ENTITY` and every
 * other declaration stop the parse, before anything is declared, expanded or fetched.
 */
const parseXml = (source: string, onElement?: (element: XmlElement, parent: XmlElement | undefined) => void): XmlElement => {
  const text = source.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n")
  if (NOT_XML_CHARACTER.test(text)) unreadable("not XML: it holds characters XML does not allow")
  const stack: Array<XmlElement> = []
  let root: XmlElement | undefined
  let rootClosed = false
  let elements = 0
  let openTag: { readonly qname: string; readonly attributes: Map<string, string> } | undefined
  let attributeName: string | undefined
  let attributeValue = ""
  let pendingText = ""

  const appendText = (element: XmlElement, value: string) => {
    if (value === "") return
    const last = element.children.length - 1
    const previous = element.children[last]
    if (typeof previous === "string") element.children[last] = previous + value
    else element.children.push(value)
  }
  const flushText = () => {
    if (pendingText === "") return
    const raw = pendingText
    pendingText = ""
    const parent = stack.at(-1)
    if (parent === undefined) {
      if (raw.trim() !== "") unreadable("not XML: text outside the root element")
      return
    }
    if (raw.includes("<")) unreadable("not XML: a stray '<'")
    appendText(parent, decodeReferences(raw))
  }
  const openElement = (selfClosing: boolean) => {
    if (openTag === undefined) return unreadable("not XML: malformed tag")
    const { qname, attributes } = openTag
    openTag = undefined
    if (++elements > MAX_ELEMENTS) unreadable(`XML has more than ${MAX_ELEMENTS} elements`)
    const element: XmlElement = { qname, name: (qname.slice(qname.indexOf(":") + 1) || qname).toLowerCase(), attributes, children: [] }
    const parent = stack.at(-1)
    if (parent !== undefined) parent.children.push(element)
    else if (root !== undefined) unreadable("not XML: more than one root element")
    else root = element
    onElement?.(element, parent)
    if (selfClosing) {
      if (parent === undefined) rootClosed = true
    } else {
      stack.push(element)
      if (stack.length > MAX_DEPTH) unreadable(`XML nests elements more than ${MAX_DEPTH} deep`)
    }
  }

  const callbacks: TokenizerCallbacks = {
    onattribdata: (start, end) => {
      attributeValue += text.slice(start, end)
    },
    onattribentity: () => unreadable("not XML: unexpected entity"),
    onattribend: (quote) => {
      if (openTag === undefined || attributeName === undefined) return unreadable("not XML: malformed attribute")
      if (quote !== QuoteType.Double && quote !== QuoteType.Single) unreadable(`not XML: attribute ${attributeName} has no quoted value`)
      if (attributeValue.includes("<")) unreadable(`not XML: '<' in attribute ${attributeName}`)
      const key = attributeName.toLowerCase()
      if (openTag.attributes.has(key)) unreadable(`not XML: attribute ${attributeName} given twice`)
      openTag.attributes.set(key, decodeReferences(attributeValue.replace(/[\t\n]/g, " ")))
      attributeName = undefined
    },
    onattribname: (start, end) => {
      const name = text.slice(start, end)
      if (!XML_NAME.test(name)) unreadable("not XML: malformed attribute name")
      attributeName = name
      attributeValue = ""
    },
    oncdata: (start, end, endOffset) => {
      flushText()
      if (endOffset !== 2) unreadable("not XML: unterminated CDATA section")
      const parent = stack.at(-1)
      if (parent === undefined) return unreadable("not XML: CDATA outside the root element")
      appendText(parent, text.slice(start, end - endOffset))
    },
    onclosetag: (start, end) => {
      flushText()
      const top = stack.pop()
      if (top === undefined || top.qname !== text.slice(start, end)) unreadable("not XML: an end tag that does not match its start tag")
      if (stack.length === 0) rootClosed = true
    },
    oncomment: (_start, _end, endOffset) => {
      flushText()
      if (endOffset !== 2) unreadable("not XML: unterminated comment")
    },
    ondeclaration: () => unreadable("XML with a DOCTYPE or another markup declaration is refused (no DTDs, no entities)"),
    onend: () => {
      flushText()
      if (openTag !== undefined || attributeName !== undefined) unreadable("not XML: unterminated tag")
      if (stack.length > 0) unreadable("not XML: unclosed element")
      if (root === undefined) unreadable("not XML: no root element")
    },
    onopentagend: () => openElement(false),
    onopentagname: (start, end) => {
      flushText()
      const qname = text.slice(start, end)
      if (!XML_NAME.test(qname)) unreadable("not XML: malformed element name")
      if (rootClosed) unreadable("not XML: content after the root element")
      openTag = { qname, attributes: new Map() }
    },
    onprocessinginstruction: (start, end) => {
      flushText()
      // The XML declaration must open the document (its name starts right after "<?").
      if (/^xml(\s|$)/i.test(text.slice(start, end)) && start !== 2) unreadable("not XML: misplaced XML declaration")
    },
    onselfclosingtag: () => openElement(true),
    ontext: (start, end) => {
      pendingText += text.slice(start, end)
    },
    ontextentity: () => unreadable("not XML: unexpected entity")
  }
  const tokenizer = new Tokenizer({ xmlMode: true, decodeEntities: false }, callbacks)
  tokenizer.write(text)
  tokenizer.end()
  if (root === undefined) return unreadable("not XML: no root element")
  return root
}

/** Bytes as text: BOM, else the encoding of the XML declaration, else UTF-8; never lenient. */
const decodeXml = (bytes: Uint8Array): string => {
  const [b0, b1, b2, b3] = bytes
  let label = "utf-8"
  if (b0 === 0xfe && b1 === 0xff) label = "utf-16be"
  else if (b0 === 0xff && b1 === 0xfe) label = "utf-16le"
  else if (b0 === 0x00 && b1 === 0x3c && b2 === 0x00 && b3 === 0x3f) label = "utf-16be"
  else if (b0 === 0x3c && b1 === 0x00 && b2 === 0x3f && b3 === 0x00) label = "utf-16le"
  else if (!(b0 === 0xef && b1 === 0xbb && b2 === 0xbf)) {
    const head = String.fromCharCode(...bytes.subarray(0, 256))
    label = /^<\?xml\s[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1] ?? "utf-8"
  }
  let decoder: TextDecoder
  try {
    decoder = new TextDecoder(label, { fatal: true })
  } catch {
    return unreadable(`XML in an unsupported encoding (${label.slice(0, 40)})`)
  }
  try {
    return decoder.decode(bytes)
  } catch {
    return unreadable(`not XML: the bytes are not valid ${label}`)
  }
}

const childElements = (element: XmlElement): Array<XmlElement> => element.children.filter((child): child is XmlElement => typeof child !== "string")

const child = (element: XmlElement, name: string): XmlElement | undefined => childElements(element).find((candidate) => candidate.name === name)

/** The element's own text (its text children, not its descendants'). */
const ownText = (element: XmlElement): string => element.children.filter((node): node is string => typeof node === "string").join("")

const BLOCKS = new Set(["p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6"])

/** Plain text of rich text: paragraphs on lines of their own, <br/> a line break, spaces collapsed as XHTML shows them. */
const richText = (element: XmlElement): string => {
  const lines: Array<string> = []
  let line = ""
  const BREAK = "\u0000"
  const endLine = (block: boolean) => {
    const collapsed = line.replace(/[ \t\n\r]+/g, " ").replace(/ ?\u0000 ?/g, BREAK).trim().replaceAll(BREAK, "\n")
    if (block || collapsed !== "") lines.push(collapsed)
    line = ""
  }
  const visit = (node: XmlElement) => {
    for (const item of node.children) {
      if (typeof item === "string") line += item
      else if (item.name === "br") line += BREAK
      else if (BLOCKS.has(item.name)) {
        endLine(false)
        visit(item)
        endLine(true)
      } else visit(item)
    }
  }
  visit(element)
  endLine(false)
  while (lines[0] === "") lines.shift()
  while (lines.at(-1) === "") lines.pop()
  return lines.join("\n")
}

// ---- XFDF ------------------------------------------------------------------------------------

const XFDF_NAMESPACE = "http://ns.adobe.com/xfdf/"

const ELEMENT_SUBTYPES: Readonly<Record<string, PdfAnnotationSubtype>> = {
  highlight: "Highlight",
  underline: "Underline",
  strikeout: "StrikeOut",
  squiggly: "Squiggly",
  text: "Text",
  freetext: "FreeText",
  square: "Square",
  circle: "Circle",
  line: "Line",
  polygon: "Polygon",
  polyline: "PolyLine",
  ink: "Ink",
  stamp: "Stamp",
  redact: "Redact"
}

const SUBTYPE_ELEMENTS = Object.fromEntries(Object.entries(ELEMENT_SUBTYPES).map(([element, subtype]) => [subtype, element])) as Readonly<
  Record<PdfAnnotationSubtype, string>
>

/** XFDF flag names by bit (PDF 32000-1 table 165). */
const FLAG_NAMES = ["invisible", "hidden", "print", "nozoom", "norotate", "noview", "readonly", "locked", "togglenoview", "lockedcontents"] as const

const parseFlags = (value: string): number =>
  value
    .split(/[\s,]+/)
    .map((name) => FLAG_NAMES.indexOf(name.toLowerCase() as (typeof FLAG_NAMES)[number]))
    .filter((bit) => bit >= 0)
    .reduce((flags, bit) => flags | (1 << bit), 0)

const formatFlags = (flags: number): string => FLAG_NAMES.filter((_, bit) => (flags & (1 << bit)) !== 0).join(",")

const numbers = (value: string, what: string): Array<number> => {
  const parts = value.trim() === "" ? [] : value.trim().split(/[\s,;]+/)
  const result = parts.map(Number)
  if (result.some((n) => !Number.isFinite(n))) unreadable(`XFDF ${what} is not a list of numbers`)
  return result
}

const points = (value: string, what: string): Array<PdfPoint> => {
  const values = numbers(value, what)
  if (values.length % 2 !== 0) unreadable(`XFDF ${what} has an odd number of coordinates`)
  const result: Array<PdfPoint> = []
  for (let i = 0; i < values.length; i += 2) result.push([values[i] ?? 0, values[i + 1] ?? 0])
  return result
}

const formatPoints = (list: ReadonlyArray<PdfPoint>): string => list.map(([x, y]) => `${formatNumber(x)},${formatNumber(y)}`).join(";")

const finiteNumber = (value: string | undefined): number | undefined => {
  if (value === undefined || value.trim() === "") return undefined
  const n = Number(value)
  return Number.isFinite(n) ? n : undefined
}

/** One annotation element as a record (its inreplyto still a name, resolved by the caller). */
const readElement = (element: XmlElement, subtype: PdfAnnotationSubtype, index: number): AnnotationRecord => {
  const attribute = (name: string) => element.attributes.get(name)
  const details: MutableDetails = {}
  const label = `${element.name} ${attribute("name") ?? `#${index + 1}`}`.slice(0, 120)

  const pageText = attribute("page")
  let page: number | undefined
  if (pageText !== undefined) {
    if (!/^\s*\d{1,9}(\.0*)?\s*$/.test(pageText)) unreadable(`XFDF ${label}: page is not a 0-based page number`)
    page = Number(pageText)
  }
  const rectText = attribute("rect")
  let rect: PdfRect | undefined
  if (rectText !== undefined) {
    const values = numbers(rectText, `${label} rect`)
    if (values.length !== 4) unreadable(`XFDF ${label}: rect is not four numbers`)
    rect = normaliseRect(values)
  }

  put(details, "color", colorFromHex(attribute("color")))
  put(details, "interiorColor", colorFromHex(attribute("interior-color")))
  put(details, "opacity", finiteNumber(attribute("opacity")))
  put(details, "author", attribute("title"))
  put(details, "subject", attribute("subject"))
  const date = attribute("date")
  if (date !== undefined) put(details, "modified", fromPdfDate(date))
  const creationDate = attribute("creationdate")
  if (creationDate !== undefined) put(details, "created", fromPdfDate(creationDate))
  const flags = attribute("flags")
  if (flags !== undefined) details.flags = parseFlags(flags)
  put(details, "lineWidth", finiteNumber(attribute("width")))
  const coords = attribute("coords")
  if (coords !== undefined) {
    const quadPoints = numbers(coords, `${label} coords`)
    if (quadPoints.length % 8 !== 0) unreadable(`XFDF ${label}: coords is not a list of quadrilaterals (8 numbers each)`)
    details.quadPoints = quadPoints
  }
  const vertices = child(element, "vertices")
  if (vertices !== undefined) details.vertices = points(ownText(vertices), `${label} vertices`)
  const start = attribute("start")
  const end = attribute("end")
  if (start !== undefined && end !== undefined) {
    const line = [...points(start, `${label} start`), ...points(end, `${label} end`)]
    if (line.length !== 2) unreadable(`XFDF ${label}: start and end are not one point each`)
    details.vertices = line
  }
  const inkList = child(element, "inklist")
  if (inkList !== undefined) {
    details.inkList = childElements(inkList)
      .filter((gesture) => gesture.name === "gesture")
      .map((gesture) => points(ownText(gesture), `${label} gesture`))
  }
  put(details, "iconName", attribute("icon"))
  put(details, "overlayText", attribute("overlay-text"))

  const contents = child(element, "contents")
  const richContents = child(element, "contents-richtext")
  if (contents !== undefined) details.contents = ownText(contents)
  else if (richContents !== undefined) details.contents = richText(richContents)

  const da = child(element, "defaultappearance")
  const ds = child(element, "defaultstyle")
  const appearance = parseAppearance(da === undefined ? undefined : ownText(da), ds === undefined ? undefined : ownText(ds))
  put(details, "fontSize", appearance.fontSize)
  put(details, "fontColor", appearance.fontColor)

  return {
    key: String(index),
    subtype,
    name: attribute("name"),
    page,
    rect,
    details,
    state: attribute("state"),
    stateModel: attribute("statemodel"),
    inReplyTo: attribute("inreplyto"),
    replyType: attribute("replytype")
  }
}

const readXfdf = (input: string | Uint8Array): ReadonlyArray<PdfAnnotation> => {
  const text = typeof input === "string" ? input : decodeXml(input)
  let annotationElements = 0
  const root = parseXml(text, (element, parent) => {
    if (parent?.name === "annots" && element.name in ELEMENT_SUBTYPES && ++annotationElements > MAX_ANNOTATIONS)
      unreadable(`XFDF holds more than ${MAX_ANNOTATIONS} annotations`)
  })
  if (root.name !== "xfdf") unreadable("not XFDF: the root element is not <xfdf>")

  const records: Array<AnnotationRecord> = []
  for (const annots of childElements(root).filter((element) => element.name === "annots")) {
    for (const element of childElements(annots)) {
      const subtype = ELEMENT_SUBTYPES[element.name]
      if (subtype !== undefined) records.push(readElement(element, subtype, records.length))
    }
  }
  // inreplyto names the parent; the first annotation of that name is the one meant.
  const keyByName = new Map<string, string>()
  for (const record of records) if (record.name !== undefined && !keyByName.has(record.name)) keyByName.set(record.name, record.key)
  return assembleAnnotations(
    records.map((record) => ({
      ...record,
      // keys are positions (digits): a name nobody has stays a reference to nothing
      inReplyTo: record.inReplyTo === undefined ? undefined : (keyByName.get(record.inReplyTo) ?? `missing ${record.inReplyTo}`)
    })),
    "XFDF"
  )
}

/**
 * The annotations of an XFDF file (text, or bytes in UTF-8, UTF-16 with a BOM, or the encoding its
 * XML declaration names). Fails with AnnotationFileInvalid when it is not well-formed XML, has a
 * DOCTYPE, is not XFDF, holds more than 100,000 annotations, or an annotation lacks page or rect.
 */
export const parseXfdf: (xml: string | Uint8Array) => Effect.Effect<ReadonlyArray<PdfAnnotation>, AnnotationFileInvalid> = Effect.fn("Xfdf.parse")(
  function* (xml: string | Uint8Array) {
    return yield* readWith(() => readXfdf(xml))
  }
)

/** Characters XML cannot carry at all are dropped; CR, TAB and LF are written as references where XML would normalise them. */
const NOT_XML_CHARACTERS = new RegExp(NOT_XML_CHARACTER.source, "g")

const escapeText = (value: string): string =>
  value.replace(NOT_XML_CHARACTERS, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\r/g, "&#13;")

const escapeAttribute = (value: string): string => escapeText(value).replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\t/g, "&#9;")

const writeElement = (record: AnnotationRecord & { readonly name: string }, parentName: string | undefined): string => {
  const { details } = record
  const attributes: Array<[string, string | undefined]> = [
    ["page", record.page === undefined ? undefined : String(record.page)],
    ["rect", record.rect?.map(formatNumber).join(",")],
    ["color", details.color && hexColor(details.color)],
    ["interior-color", details.interiorColor && hexColor(details.interiorColor)],
    ["flags", details.flags === undefined ? undefined : formatFlags(details.flags)],
    ["name", record.name],
    ["title", details.author],
    ["subject", details.subject],
    ["date", details.modified && toPdfDate(details.modified)],
    ["creationdate", details.created && toPdfDate(details.created)],
    ["opacity", details.opacity === undefined ? undefined : formatNumber(details.opacity)],
    ["width", details.lineWidth === undefined ? undefined : formatNumber(details.lineWidth)],
    ["icon", details.iconName],
    ["coords", details.quadPoints?.map(formatNumber).join(",")],
    ["inreplyto", parentName],
    ["state", record.state],
    ["statemodel", record.stateModel],
    ["overlay-text", details.overlayText]
  ]
  const line = record.subtype === "Line" && details.vertices?.length === 2 ? details.vertices : undefined
  if (line !== undefined) attributes.push(["start", formatPoints([line[0] ?? [0, 0]])], ["end", formatPoints([line[1] ?? [0, 0]])])

  const children: Array<string> = []
  if (details.contents !== undefined) children.push(`<contents>${escapeText(details.contents)}</contents>`)
  if (details.fontSize !== undefined || details.fontColor !== undefined) {
    children.push(`<defaultappearance>${escapeText(formatAppearance(details.fontSize, details.fontColor))}</defaultappearance>`)
    if (record.subtype === "FreeText") children.push(`<defaultstyle>${escapeText(formatDefaultStyle(details.fontSize, details.fontColor))}</defaultstyle>`)
  }
  if (details.vertices !== undefined && line === undefined) children.push(`<vertices>${formatPoints(details.vertices)}</vertices>`)
  if (details.inkList !== undefined)
    children.push(`<inklist>${details.inkList.map((stroke) => `<gesture>${formatPoints(stroke)}</gesture>`).join("")}</inklist>`)

  const element = SUBTYPE_ELEMENTS[record.subtype]
  const open = `<${element}${attributes
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join("")}`
  return children.length === 0 ? `${open}/>` : `${open}>${children.join("")}</${element}>`
}

/**
 * An XFDF document (UTF-8 text) holding the annotations, their replies and review states, as
 * Acrobat would import it; `fileName` becomes `<f href>`.
 */
export const writeXfdf = (annotations: ReadonlyArray<PdfAnnotation>, options: { readonly fileName?: string } = {}): string => {
  const records = flattenAnnotations(annotations)
  const lines = [`<?xml version="1.0" encoding="UTF-8"?>`, `<xfdf xmlns="${XFDF_NAMESPACE}" xml:space="preserve">`, `<annots>`]
  for (const record of records) {
    const parent = record.inReplyTo === undefined ? undefined : records[Number(record.inReplyTo)]
    lines.push(writeElement(record, parent?.name))
  }
  lines.push(`</annots>`)
  if (options.fileName !== undefined) lines.push(`<f href="${escapeAttribute(options.fileName)}"/>`)
  lines.push(`</xfdf>`, "")
  return lines.join("\n")
}
