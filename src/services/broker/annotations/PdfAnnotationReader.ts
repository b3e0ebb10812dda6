/**
 * Annotations inside PDF files read with pdf-lib: the pages' /Annots as the shared model
 * (PdfAnnotation.ts), replies and review states threaded onto the annotation they answer. Writing
 * them is PdfAnnotations.ts.
 */
import {
  decodePDFRawStream,
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFName,
  type PDFObject,
  PDFRawStream,
  PDFRef
} from "pdf-lib"
import { fromPdfDate, nameOf, namesOf, numberOf, numbersOf, textOf } from "../engine/PdfObjects.ts"
import { colorFromComponents } from "./DefaultAppearance.ts"
import {
  hasLineEndings,
  isPdfAnnotationSubtype,
  lineEndingsFrom,
  normaliseRect,
  type PdfAnnotation,
  type PdfAnnotationSubtype,
  type PdfColor,
  type PdfPoint,
  type PdfReply
} from "./PdfAnnotation.ts"

type Writable<T> = { -readonly [K in keyof T]: T[K] }

const key = (name: string) => PDFName.of(name)

const lookup = (dict: PDFDict, name: string): PDFObject | undefined => dict.lookup(key(name))

const pairs = (values: ReadonlyArray<number>): Array<PdfPoint> => {
  const out: Array<PdfPoint> = []
  for (let i = 0; i + 1 < values.length; i += 2) out.push([values[i]!, values[i + 1]!])
  return out
}

/** A colour array: none (transparent), gray, RGB or CMYK (turned into RGB). */
const colorOf = (
  values: ReadonlyArray<number> | undefined
): PdfColor | undefined => (values === undefined ? undefined : colorFromComponents(values))

/** Font size and fill colour of a default appearance string (`/Helv 12 Tf 0 0 1 rg`). */
const parseDefaultAppearance = (da: string): { fontSize?: number; fontColor?: PdfColor } => {
  const tokens = da.trim().split(/\s+/)
  let fontSize: number | undefined
  let fontColor: PdfColor | undefined
  const operands = (i: number, n: number) => tokens.slice(i - n, i).map(Number)
  tokens.forEach((token, i) => {
    if (token === "Tf" && i >= 1) {
      const size = Number(tokens[i - 1])
      if (Number.isFinite(size) && size > 0) fontSize = size
    } else if ((token === "g" && i >= 1) || (token === "rg" && i >= 3) || (token === "k" && i >= 4)) {
      const values = operands(i, token === "g" ? 1 : token === "rg" ? 3 : 4)
      if (values.every(Number.isFinite)) fontColor = colorOf(values)
    }
  })
  return { ...(fontSize !== undefined ? { fontSize } : {}), ...(fontColor ? { fontColor } : {}) }
}

/** The colour of the first text an appearance stream shows (what pdf.js reports for a FreeText whose /DA names none). */
const appearanceTextColor = (dict: PDFDict): PdfColor | undefined => {
  const ap = lookup(dict, "AP")
  const normal = ap instanceof PDFDict ? lookup(ap, "N") : undefined
  if (!(normal instanceof PDFRawStream)) return undefined
  let content: string
  try {
    content = Buffer.from(decodePDFRawStream(normal).decode()).toString("latin1")
  } catch {
    return undefined
  }
  const tokens = content.split(/[\s]+/).filter((t) => t !== "")
  const stack: Array<PdfColor | undefined> = []
  let color: PdfColor | undefined
  let inText = false
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t === "q") stack.push(color)
    else if (t === "Q") color = stack.pop()
    else if (t === "BT") inText = true
    else if (t === "ET") inText = false
    else if (t === "g" || t === "rg" || t === "k") {
      const n = t === "g" ? 1 : t === "rg" ? 3 : 4
      const values = tokens.slice(i - n, i).map(Number)
      if (values.length === n && values.every(Number.isFinite)) color = colorOf(values)
    } else if (inText && (t.endsWith("Tj") || t.endsWith("TJ") || t === "'" || t === "\"")) return color
  }
  return undefined
}

interface Entry {
  readonly dict: PDFDict
  readonly page: number
  /** The object's identity ("45 0"), or its position for a direct dictionary. */
  readonly id: string
  readonly name: string
  readonly subtype: string
}

const entriesOf = (pdf: PDFDocument): Array<Entry> => {
  const entries: Array<Entry> = []
  const seen = new Set<string>()
  pdf.getPages().forEach((page, pageIndex) => {
    const annots = lookup(page.node, "Annots")
    if (!(annots instanceof PDFArray)) return
    for (let i = 0; i < annots.size(); i++) {
      const item = annots.get(i)
      const dict = item instanceof PDFRef ? pdf.context.lookup(item) : item
      if (!(dict instanceof PDFDict)) continue
      const id = item instanceof PDFRef ? `${item.objectNumber} ${item.generationNumber}` : `direct ${pageIndex} ${i}`
      if (seen.has(id)) continue
      seen.add(id)
      const fallback = item instanceof PDFRef
        ? `pdf-${pageIndex}-${item.objectNumber}-${item.generationNumber}`
        : `pdf-${pageIndex}-direct-${i}`
      entries.push({
        dict,
        page: pageIndex,
        id,
        name: textOf(lookup(dict, "NM")) || fallback,
        subtype: nameOf(lookup(dict, "Subtype")) ?? ""
      })
    }
  })
  return entries
}

const dateOf = (dict: PDFDict, name: string) => {
  const text = textOf(lookup(dict, name))
  return text === undefined ? undefined : fromPdfDate(text)
}

const readAnnotation = (entry: Entry): Writable<PdfAnnotation> | undefined => {
  const d = entry.dict
  const rect = numbersOf(lookup(d, "Rect"), d.context)
  if (!rect || rect.length < 4) return undefined
  const a: Writable<PdfAnnotation> = {
    subtype: entry.subtype as PdfAnnotationSubtype,
    page: entry.page,
    name: entry.name,
    rect: normaliseRect([rect[0]!, rect[1]!, rect[2]!, rect[3]!])
  }
  const color = colorOf(numbersOf(lookup(d, "C"), d.context))
  if (color) a.color = color
  const interiorColor = colorOf(numbersOf(lookup(d, "IC"), d.context))
  if (interiorColor) a.interiorColor = interiorColor
  const opacity = numberOf(lookup(d, "CA"))
  if (opacity !== undefined) a.opacity = opacity
  const author = textOf(lookup(d, "T"))
  if (author !== undefined) a.author = author
  const subject = textOf(lookup(d, "Subj"))
  if (subject !== undefined) a.subject = subject
  const contents = textOf(lookup(d, "Contents"))
  if (contents !== undefined) a.contents = contents
  const modified = dateOf(d, "M")
  if (modified !== undefined) a.modified = modified
  const created = dateOf(d, "CreationDate")
  if (created !== undefined) a.created = created
  const flags = numberOf(lookup(d, "F"))
  if (flags !== undefined) a.flags = Math.trunc(flags)
  const bs = lookup(d, "BS")
  const lineWidth = bs instanceof PDFDict ? numberOf(lookup(bs, "W")) : numbersOf(lookup(d, "Border"), d.context)?.[2]
  if (lineWidth !== undefined) a.lineWidth = lineWidth
  const quadPoints = numbersOf(lookup(d, "QuadPoints"), d.context)
  if (quadPoints) a.quadPoints = quadPoints
  const inkList = lookup(d, "InkList")
  if (inkList instanceof PDFArray) {
    const strokes: Array<Array<PdfPoint>> = []
    for (let i = 0; i < inkList.size(); i++) {
      const points = numbersOf(d.context.lookup(inkList.get(i)), d.context)
      if (points) strokes.push(pairs(points))
    }
    a.inkList = strokes
  }
  const vertices = numbersOf(lookup(d, entry.subtype === "Line" ? "L" : "Vertices"), d.context)
  if (vertices) a.vertices = pairs(vertices)
  const lineEndings = hasLineEndings(entry.subtype)
    ? lineEndingsFrom(namesOf(lookup(d, "LE"), d.context) ?? [])
    : undefined
  if (lineEndings) a.lineEndings = lineEndings
  const iconName = nameOf(lookup(d, "Name"))
  if (iconName !== undefined) a.iconName = iconName
  const da = textOf(lookup(d, "DA"))
  const appearance = da === undefined ? {} : parseDefaultAppearance(da)
  if (appearance.fontSize !== undefined) a.fontSize = appearance.fontSize
  // A /DA without a colour means black; a FreeText whose appearance shows another colour (Acrobat
  // writes /DA without one and puts the colour in the appearance) has that colour.
  const shown = appearance.fontColor === undefined && entry.subtype === "FreeText" ? appearanceTextColor(d) : undefined
  const fontColor = appearance.fontColor ?? (shown && shown.some((c) => c !== 0) ? shown : undefined)
  if (fontColor) a.fontColor = fontColor
  const overlayText = textOf(lookup(d, "OverlayText"))
  if (overlayText !== undefined) a.overlayText = overlayText
  const state = nameOf(lookup(d, "State"))
  if (state !== undefined) a.state = state
  return a
}

const inReplyTo = (entry: Entry): string | undefined => {
  const irt = entry.dict.get(key("IRT"))
  return irt instanceof PDFRef ? `${irt.objectNumber} ${irt.generationNumber}` : undefined
}

/**
 * The annotations of the 14 kept subtypes in a loaded PDF, in page and /Annots order. Replies (Text
 * annotations with /IRT) are folded into their thread's first annotation's `replies`; review-state
 * annotations (a Text with /IRT and /State, as Acrobat records "Accepted") set the parent's `state`
 * instead. Other subtypes (Link, Widget, Popup, FileAttachment, …) and replies to them are left out.
 * An annotation without /NM gets a stable name from its page and object number ("pdf-3-45-0").
 */
export const readAnnotations = (pdf: PDFDocument): ReadonlyArray<PdfAnnotation> => {
  const entries = entriesOf(pdf)
  const byId = new Map(entries.map((e) => [e.id, e] as const))
  const isThreadReply = (e: Entry) =>
    e.subtype === "Text" && inReplyTo(e) !== undefined && nameOf(lookup(e.dict, "RT")) !== "Group" &&
    byId.has(inReplyTo(e)!)
  /** The first annotation of the thread a reply belongs to. */
  const rootOf = (e: Entry): Entry => {
    const visited = new Set<string>()
    let current = e
    while (isThreadReply(current) && !visited.has(current.id)) {
      visited.add(current.id)
      current = byId.get(inReplyTo(current)!)!
    }
    return current
  }

  const annotations = new Map<string, Writable<PdfAnnotation>>()
  for (const e of entries) {
    if (!isPdfAnnotationSubtype(e.subtype) || isThreadReply(e)) continue
    const a = readAnnotation(e)
    if (a) annotations.set(e.id, a)
  }
  const states = new Map<string, { readonly state: string; readonly at: string }>()
  for (const e of entries) {
    if (!isThreadReply(e)) continue
    const parent = annotations.get(rootOf(e).id)
    if (!parent) continue
    const state = nameOf(lookup(e.dict, "State"))
    if (state !== undefined) {
      // A "Marked" check mark is personal, not the annotation's review state.
      if (nameOf(lookup(e.dict, "StateModel")) === "Marked") continue
      const at = dateOf(e.dict, "M") ?? dateOf(e.dict, "CreationDate") ?? ""
      const previous = states.get(rootOf(e).id)
      if (!previous || at >= previous.at) states.set(rootOf(e).id, { state, at })
      continue
    }
    const reply: Writable<PdfReply> = { name: e.name, contents: textOf(lookup(e.dict, "Contents")) ?? "" }
    const author = textOf(lookup(e.dict, "T"))
    if (author !== undefined) reply.author = author
    const modified = dateOf(e.dict, "M")
    if (modified !== undefined) reply.modified = modified
    const created = dateOf(e.dict, "CreationDate")
    if (created !== undefined) reply.created = created
    parent.replies = [...(parent.replies ?? []), reply]
  }
  for (const [id, { state }] of states) annotations.get(id)!.state = state
  return [...annotations.values()]
}
