/**
 * The XML of annotation files (XFDF, and the XHTML rich text inside XFDF and FDF): a whole
 * document read into a tree of elements and text by saxes, a conformant XML 1.0 parser, and text
 * escaped for writing.
 *
 * Reading refuses rather than guesses:
 * - a DOCTYPE is refused as soon as saxes has read it (saxes itself declares, expands and fetches
 *   nothing), so no entity is ever declared; a reference to any entity but the five predefined
 *   ones is then an error saxes reports ("undefined entity"), never expanded text;
 * - the first error saxes reports ends the parse: after an error its events are guesses;
 * - XML 1.0 whatever the declaration says, so that the control characters XML 1.1 allows as
 *   references stay refused and its extra line ends are not rewritten;
 * - namespaces are not resolved: the readers match elements by local name, prefix or not (XFDF
 *   files without the XFDF namespace are read too), so resolving them would only refuse files
 *   with undeclared prefixes that the readers can read;
 * - at most MAX_ELEMENTS elements, at most MAX_DEPTH open at once, so that neither memory nor the
 *   recursive readers of the tree (rich text) run out.
 */
import { SaxesParser } from "saxes"
import { unreadable } from "./AnnotationFileInvalid.ts"

export interface XmlElement {
  /** Local name (after any prefix), lower case. */
  readonly name: string
  /** By qualified name, lower case. */
  readonly attributes: ReadonlyMap<string, string>
  /** Text and elements in document order; adjacent text (CDATA included) is one string. */
  readonly children: Array<XmlElement | string>
}

const MAX_DEPTH = 256
const MAX_ELEMENTS = 1_000_000

const PARSER_OPTIONS = {
  xmlns: false,
  // Errors carry saxes' message only; the line and column are added here, in words.
  position: false,
  defaultXMLVersion: "1.0",
  forceXMLVersion: true
} as const

const appendText = (element: XmlElement, value: string) => {
  const last = element.children.length - 1
  const previous = element.children[last]
  if (typeof previous === "string") element.children[last] = previous + value
  else element.children.push(value)
}

/**
 * Parses a whole XML document into its root element. `onElement` sees each element as it opens,
 * so that a reader can stop a file early (too many annotations) before the rest is parsed.
 */
export const parseXml = (
  source: string,
  onElement?: (element: XmlElement, parent: XmlElement | undefined) => void
): XmlElement => {
  // saxes pairs a high surrogate with whatever follows it; a lone surrogate is no character at all.
  if (!source.isWellFormed()) unreadable("not XML: it holds characters XML does not allow")
  const parser = new SaxesParser(PARSER_OPTIONS)
  const open: Array<XmlElement> = []
  let root: XmlElement | undefined
  let elements = 0
  const addText = (text: string) => {
    const parent = open.at(-1)
    // Outside the root only white space gets here (saxes refuses other text).
    if (parent !== undefined && text !== "") appendText(parent, text)
  }

  parser.on(
    "error",
    (error) => unreadable(`not XML: ${error.message.replace(/\.$/, "")} (line ${parser.line}, column ${parser.column})`)
  )
  parser.on("doctype", () => unreadable("XML with a DOCTYPE is refused (no DTDs, no entities)"))
  parser.on("opentag", (tag) => {
    if (++elements > MAX_ELEMENTS) unreadable(`XML has more than ${MAX_ELEMENTS} elements`)
    if (!tag.isSelfClosing && open.length >= MAX_DEPTH) unreadable(`XML nests elements more than ${MAX_DEPTH} deep`)
    const attributes = new Map<string, string>()
    for (const [qname, value] of Object.entries(tag.attributes)) {
      const key = qname.toLowerCase()
      // saxes refuses the same name twice; the readers ignore case, so a name in two cases is the same too.
      if (attributes.has(key)) unreadable(`not XML: attribute ${qname} given twice`)
      attributes.set(key, value)
    }
    const element: XmlElement = {
      name: (tag.name.slice(tag.name.indexOf(":") + 1) || tag.name).toLowerCase(),
      attributes,
      children: []
    }
    const parent = open.at(-1)
    // saxes refuses a second root.
    if (parent === undefined) root = element
    else parent.children.push(element)
    onElement?.(element, parent)
    open.push(element)
  })
  parser.on("closetag", () => open.pop())
  parser.on("text", addText)
  parser.on("cdata", addText)
  parser.write(source).close()
  return root ?? unreadable("not XML: no root element")
}

/** Bytes as text: BOM, else the encoding of the XML declaration, else UTF-8; never lenient. */
export const decodeXml = (bytes: Uint8Array): string => {
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

export const childElements = (element: XmlElement): Array<XmlElement> =>
  element.children.filter((child): child is XmlElement => typeof child !== "string")

export const child = (element: XmlElement, name: string): XmlElement | undefined =>
  childElements(element).find((candidate) => candidate.name === name)

/** The element's own text (its text children, not its descendants'). */
export const ownText = (element: XmlElement): string =>
  element.children.filter((node): node is string => typeof node === "string").join("")

/** Characters XML 1.0 does not allow, even as references (lone surrogates included). */
const NOT_XML_CHARACTERS =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Text content: characters XML cannot carry at all are dropped; CR is written as a reference, which XML would otherwise normalise to LF. */
export const escapeXmlText = (value: string): string =>
  value.replace(NOT_XML_CHARACTERS, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(
    /\r/g,
    "&#13;"
  )

/** A double-quoted attribute value: as text, and LF and TAB as references, which XML would otherwise normalise to spaces. */
export const escapeXmlAttribute = (value: string): string =>
  escapeXmlText(value).replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\t/g, "&#9;")
