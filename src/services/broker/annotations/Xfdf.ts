/**
 * XFDF (Adobe "XML Forms Data Format Specification" 3.0, 2009; ISO 19444-1) to and from the
 * PdfAnnotation model: the annotation file of GET /documents/{id}/file/annotations and one side of
 * POST /annotations/conversion.
 *
 * Reading is deliberately strict about XML and deliberately tolerant about XFDF:
 * - the document must be well-formed XML 1.0 without a DOCTYPE (Xml.ts: no DTD, internal or
 *   external entity is ever declared, expanded or fetched);
 * - unknown elements and attributes (fields, popups, `ids`, vendor data such as Apryse's
 *   `trn-custom-data`, annotation types outside the model such as caret or link) are skipped.
 *
 * Replies and review states follow the conventions FDF shares (AnnotationRecords.ts): a reply is a
 * `text` element with `inreplyto` naming its parent (`replyType="group"` is not a reply); a review
 * state is a hidden `text` reply carrying `state` and `statemodel`.
 */
import { Effect } from "effect"
import { fromPdfDate, toPdfDate } from "../engine/PdfObjects.ts"
import { type AnnotationFileInvalid, readWith, unreadable } from "./AnnotationFileInvalid.ts"
import {
  type AnnotationRecord,
  assembleAnnotations,
  coordinatePairs,
  flattenAnnotations,
  MAX_ANNOTATIONS,
  type MutableDetails,
  put
} from "./AnnotationRecords.ts"
import {
  colorFromHex,
  formatAppearance,
  formatDefaultStyle,
  formatNumber,
  hexColor,
  parseAppearance
} from "./DefaultAppearance.ts"
import {
  hasLineEndings,
  lineEndingsFrom,
  normaliseRect,
  type PdfAnnotation,
  type PdfAnnotationSubtype,
  type PdfPoint,
  type PdfRect
} from "./PdfAnnotation.ts"
import { plainTextOfElement } from "./RichText.ts"
import {
  child,
  childElements,
  decodeXml,
  escapeXmlAttribute,
  escapeXmlText,
  ownText,
  parseXml,
  type XmlElement
} from "./Xml.ts"

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

const SUBTYPE_ELEMENTS = Object.fromEntries(
  Object.entries(ELEMENT_SUBTYPES).map(([element, subtype]) => [subtype, element])
) as Readonly<
  Record<PdfAnnotationSubtype, string>
>

/** XFDF flag names by bit (PDF 32000-1 table 165). */
const FLAG_NAMES = [
  "invisible",
  "hidden",
  "print",
  "nozoom",
  "norotate",
  "noview",
  "readonly",
  "locked",
  "togglenoview",
  "lockedcontents"
] as const

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

const points = (value: string, what: string): Array<PdfPoint> => coordinatePairs(numbers(value, what), `XFDF ${what}`)

const formatPoints = (list: ReadonlyArray<PdfPoint>): string =>
  list.map(([x, y]) => `${formatNumber(x)},${formatNumber(y)}`).join(";")

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
    if (quadPoints.length % 8 !== 0) {
      unreadable(`XFDF ${label}: coords is not a list of quadrilaterals (8 numbers each)`)
    }
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
  // head is the start's ending, tail the end's (XFDF 3.0, line and polyline).
  if (hasLineEndings(subtype)) put(details, "lineEndings", lineEndingsFrom([attribute("head"), attribute("tail")]))
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
  else if (richContents !== undefined) details.contents = plainTextOfElement(richContents)

  const da = child(element, "defaultappearance")
  const ds = child(element, "defaultstyle")
  const appearance = parseAppearance(
    da === undefined ? undefined : ownText(da),
    ds === undefined ? undefined : ownText(ds)
  )
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
    if (parent?.name === "annots" && element.name in ELEMENT_SUBTYPES && ++annotationElements > MAX_ANNOTATIONS) {
      unreadable(`XFDF holds more than ${MAX_ANNOTATIONS} annotations`)
    }
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
  for (const record of records) {
    if (record.name !== undefined && !keyByName.has(record.name)) keyByName.set(record.name, record.key)
  }
  return assembleAnnotations(
    records.map((record) => ({
      ...record,
      // keys are positions (digits): a name nobody has stays a reference to nothing
      inReplyTo: record.inReplyTo === undefined
        ? undefined
        : (keyByName.get(record.inReplyTo) ?? `missing ${record.inReplyTo}`)
    })),
    "XFDF"
  )
}

/**
 * The annotations of an XFDF file (text, or bytes in UTF-8, UTF-16 with a BOM, or the encoding its
 * XML declaration names). Fails with AnnotationFileInvalid when it is not well-formed XML, has a
 * DOCTYPE, is not XFDF, holds more than 100,000 annotations, or an annotation lacks page or rect.
 */
export const parseXfdf: (
  xml: string | Uint8Array
) => Effect.Effect<ReadonlyArray<PdfAnnotation>, AnnotationFileInvalid> = Effect.fn("Xfdf.parse")(
  function*(xml: string | Uint8Array) {
    return yield* readWith(() => readXfdf(xml))
  }
)

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
    ["overlay-text", details.overlayText],
    ["head", details.lineEndings?.[0]],
    ["tail", details.lineEndings?.[1]]
  ]
  const line = record.subtype === "Line" && details.vertices?.length === 2 ? details.vertices : undefined
  if (line !== undefined) {
    attributes.push(["start", formatPoints([line[0] ?? [0, 0]])], ["end", formatPoints([line[1] ?? [0, 0]])])
  }

  const children: Array<string> = []
  if (details.contents !== undefined) children.push(`<contents>${escapeXmlText(details.contents)}</contents>`)
  if (details.fontSize !== undefined || details.fontColor !== undefined) {
    children.push(
      `<defaultappearance>${escapeXmlText(formatAppearance(details.fontSize, details.fontColor))}</defaultappearance>`
    )
    if (record.subtype === "FreeText") {
      children.push(
        `<defaultstyle>${escapeXmlText(formatDefaultStyle(details.fontSize, details.fontColor))}</defaultstyle>`
      )
    }
  }
  if (details.vertices !== undefined && line === undefined) {
    children.push(`<vertices>${formatPoints(details.vertices)}</vertices>`)
  }
  if (details.inkList !== undefined) {
    children.push(
      `<inklist>${details.inkList.map((stroke) => `<gesture>${formatPoints(stroke)}</gesture>`).join("")}</inklist>`
    )
  }

  const element = SUBTYPE_ELEMENTS[record.subtype]
  const open = `<${element}${
    attributes
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([name, value]) => ` ${name}="${escapeXmlAttribute(value)}"`)
      .join("")
  }`
  return children.length === 0 ? `${open}/>` : `${open}>${children.join("")}</${element}>`
}

/**
 * An XFDF document (UTF-8 text) holding the annotations, their replies and review states, as
 * Acrobat would import it; `fileName` becomes `<f href>`.
 */
export const writeXfdf = (
  annotations: ReadonlyArray<PdfAnnotation>,
  options: { readonly fileName?: string } = {}
): string => {
  const records = flattenAnnotations(annotations)
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<xfdf xmlns="${XFDF_NAMESPACE}" xml:space="preserve">`,
    `<annots>`
  ]
  for (const record of records) {
    const parent = record.inReplyTo === undefined ? undefined : records[Number(record.inReplyTo)]
    lines.push(writeElement(record, parent?.name))
  }
  lines.push(`</annots>`)
  if (options.fileName !== undefined) lines.push(`<f href="${escapeXmlAttribute(options.fileName)}"/>`)
  lines.push(`</xfdf>`, "")
  return lines.join("\n")
}
