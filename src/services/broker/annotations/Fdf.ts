/**
 * FDF (PDF 32000-1 12.7.8, "Forms Data Format") annotation files to and from the PdfAnnotation
 * model: the other side of POST /annotations/conversion.
 *
 * An FDF file is PDF syntax under a `%FDF-1.x` header: objects, a trailer whose /Root is the FDF
 * catalog `<< /FDF << /Annots [refs] /F (file) >> >>`, each annotation a dictionary with, besides
 * the PDF annotation keys, /Page (0-based). Parsing uses pdf-lib's PDF parser (on a copy of the
 * bytes whose header reads %PDF-), so objects, object streams, literal strings (escapes, octal,
 * nested parentheses), hex strings and UTF-16 text strings are read by pdf-lib; only the mapping to
 * the model is done here. Replies point at their parent with /IRT (an indirect reference); review
 * states are Text annotations in reply carrying /State and /StateModel, as in XFDF
 * (AnnotationRecords.ts holds the threading both formats share). Popups and annotation types
 * outside the model are skipped.
 */
import { Effect } from "effect"
import {
  PDFArray,
  PDFContext,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFParser,
  PDFRef,
  PDFString
} from "pdf-lib"
import {
  fromPdfDate,
  nameFor,
  namesOf,
  nameText,
  numberOf,
  numbersOf,
  textOf,
  toPdfDate
} from "../engine/PdfObjects.ts"
import { AnnotationFileInvalid, readWith, unreadable } from "./AnnotationFileInvalid.ts"
import {
  type AnnotationRecord,
  assembleAnnotations,
  coordinatePairs,
  flattenAnnotations,
  MAX_ANNOTATIONS,
  type MutableDetails,
  put
} from "./AnnotationRecords.ts"
import { colorFromComponents, formatAppearance, formatDefaultStyle, parseAppearance } from "./DefaultAppearance.ts"
import {
  hasLineEndings,
  isPdfAnnotationSubtype,
  lineEndingsFrom,
  normaliseRect,
  type PdfAnnotation,
  type PdfColor
} from "./PdfAnnotation.ts"
import { plainTextOfRichText } from "./RichText.ts"

const key = (name: string) => PDFName.of(name)

/** Where the %FDF- header starts: within the first 1024 bytes, as readers accept a PDF header. */
const headerOffset = (bytes: Uint8Array): number | undefined => {
  const end = Math.min(bytes.length - 5, 1024)
  for (let i = 0; i <= end; i++) {
    if (
      bytes[i] === 0x25 && bytes[i + 1] === 0x46 && bytes[i + 2] === 0x44 && bytes[i + 3] === 0x46 &&
      bytes[i + 4] === 0x2d
    ) return i
  }
  return undefined
}

// ---- reading ---------------------------------------------------------------------------------

/** The numbers of an entry; an entry that is there but not all numbers makes the file unreadable. */
const numbersIn = (dict: PDFDict, name: string): Array<number> | undefined => {
  const array = dict.lookup(key(name))
  if (!(array instanceof PDFArray)) return undefined
  return numbersOf(array, dict.context) ?? unreadable(`FDF /${name} is not an array of numbers`)
}

const colorOf = (dict: PDFDict, name: string): PdfColor | undefined => {
  const values = numbersIn(dict, name)
  return values === undefined ? undefined : colorFromComponents(values)
}

const refKey = (ref: PDFRef) => `${ref.objectNumber} ${ref.generationNumber}`

const readAnnotation = (dict: PDFDict, recordKey: string): AnnotationRecord | undefined => {
  const subtypeName = dict.lookup(key("Subtype"))
  const subtype = subtypeName instanceof PDFName ? nameText(subtypeName) : undefined
  if (subtype === undefined || !isPdfAnnotationSubtype(subtype)) return undefined
  const details: MutableDetails = {}
  const text = (name: string) => textOf(dict.lookup(key(name)))

  const pageObject = dict.lookup(key("Page"))
  const page = numberOf(pageObject)
  if (pageObject !== undefined && (page === undefined || !Number.isInteger(page) || page < 0)) {
    unreadable("FDF /Page is not a 0-based page number")
  }
  const rectValues = numbersIn(dict, "Rect")
  if (rectValues !== undefined && rectValues.length !== 4) unreadable("FDF /Rect is not four numbers")

  put(details, "color", colorOf(dict, "C"))
  put(details, "interiorColor", colorOf(dict, "IC"))
  put(details, "opacity", numberOf(dict.lookup(key("CA"))))
  put(details, "author", text("T"))
  put(details, "subject", text("Subj"))
  const contents = text("Contents")
  const richText = text("RC")
  put(details, "contents", contents ?? (richText === undefined ? undefined : plainTextOfRichText(richText)))
  const modified = text("M")
  if (modified !== undefined) put(details, "modified", fromPdfDate(modified))
  const created = text("CreationDate")
  if (created !== undefined) put(details, "created", fromPdfDate(created))
  const flags = numberOf(dict.lookup(key("F")))
  if (flags !== undefined && Number.isInteger(flags)) details.flags = flags
  const borderStyle = dict.lookup(key("BS"))
  const border = numbersIn(dict, "Border")
  put(
    details,
    "lineWidth",
    (borderStyle instanceof PDFDict ? numberOf(borderStyle.lookup(key("W"))) : undefined) ?? border?.[2]
  )
  put(details, "quadPoints", numbersIn(dict, "QuadPoints"))
  const inkList = dict.lookup(key("InkList"))
  if (inkList instanceof PDFArray) {
    details.inkList = inkList.asArray().map((_, index) => {
      const stroke = inkList.lookup(index)
      if (!(stroke instanceof PDFArray)) return unreadable("FDF /InkList is not an array of arrays")
      return coordinatePairs(
        stroke.asArray().map((__, i) =>
          numberOf(stroke.lookup(i)) ?? unreadable("FDF /InkList is not an array of numbers")
        ),
        "FDF /InkList"
      )
    })
  }
  const vertices = numbersIn(dict, "Vertices")
  if (vertices !== undefined) details.vertices = coordinatePairs(vertices, "FDF /Vertices")
  const line = numbersIn(dict, "L")
  if (line !== undefined) {
    if (line.length !== 4) unreadable("FDF /L is not four numbers")
    details.vertices = coordinatePairs(line, "FDF /L")
  }
  if (hasLineEndings(subtype)) {
    put(details, "lineEndings", lineEndingsFrom(namesOf(dict.lookup(key("LE")), dict.context) ?? []))
  }
  const icon = dict.lookup(key("Name"))
  put(details, "iconName", icon instanceof PDFName ? nameText(icon) : textOf(icon))
  put(details, "overlayText", text("OverlayText"))
  const appearance = parseAppearance(text("DA"), text("DS"))
  put(details, "fontSize", appearance.fontSize)
  put(details, "fontColor", appearance.fontColor)

  const inReplyTo = dict.get(key("IRT"))
  const replyType = dict.lookup(key("RT"))
  return {
    key: recordKey,
    subtype,
    name: text("NM"),
    page,
    rect: rectValues === undefined ? undefined : normaliseRect(rectValues),
    details,
    state: text("State"),
    stateModel: text("StateModel"),
    inReplyTo: inReplyTo instanceof PDFRef ? refKey(inReplyTo) : undefined,
    replyType: replyType instanceof PDFName ? nameText(replyType) : textOf(replyType)
  }
}

const readAnnotations = (context: PDFContext): ReadonlyArray<PdfAnnotation> => {
  const fdfOf = (object: PDFObject | undefined) => {
    const fdf = object instanceof PDFDict ? object.lookup(key("FDF")) : undefined
    return fdf instanceof PDFDict ? fdf : undefined
  }
  const root = context.trailerInfo.Root
  const fdf = fdfOf(root instanceof PDFRef ? context.lookup(root) : root) ??
    context
      .enumerateIndirectObjects()
      .map(([, object]) => fdfOf(object))
      .find((found) => found !== undefined)
  if (fdf === undefined) return unreadable("not FDF: no FDF catalog (trailer /Root with an /FDF dictionary)")

  const annots = fdf.lookup(key("Annots"))
  if (annots === undefined) return []
  if (!(annots instanceof PDFArray)) return unreadable("FDF /Annots is not an array")
  if (annots.size() > MAX_ANNOTATIONS) unreadable(`FDF holds more than ${MAX_ANNOTATIONS} annotations`)
  const records: Array<AnnotationRecord> = []
  annots.asArray().forEach((entry, index) => {
    const dict = entry instanceof PDFRef ? context.lookup(entry) : entry
    if (!(dict instanceof PDFDict)) return
    const record = readAnnotation(dict, entry instanceof PDFRef ? refKey(entry) : `direct ${index}`)
    if (record !== undefined) records.push(record)
  })
  return assembleAnnotations(records, "FDF")
}

/**
 * The annotations of an FDF file. Fails with AnnotationFileInvalid when the bytes have no %FDF-
 * header, are not readable PDF syntax, have no FDF catalog, hold more than 100,000 annotations, or
 * an annotation lacks /Page or /Rect.
 */
export const parseFdf: (bytes: Uint8Array) => Effect.Effect<ReadonlyArray<PdfAnnotation>, AnnotationFileInvalid> =
  Effect.fn("Fdf.parse")(
    function*(bytes: Uint8Array) {
      const header = headerOffset(bytes)
      if (header === undefined) return yield* new AnnotationFileInvalid({ message: "not FDF: no %FDF- header" })
      // pdf-lib's parser looks for a PDF header; the rest of the syntax is the same.
      const copy = Uint8Array.from(bytes)
      copy[header + 1] = 0x50
      const context = yield* Effect.tryPromise({
        try: () => PDFParser.forBytesWithOptions(copy, Infinity, true, false).parseDocument(),
        catch: (error) =>
          new AnnotationFileInvalid({
            message: `FDF is not readable: ${(error instanceof Error ? error.message : String(error)).slice(0, 200)}`
          })
      })
      return yield* readWith(() => readAnnotations(context))
    }
  )

// ---- writing ---------------------------------------------------------------------------------

/** A text string: a literal when it is printable ASCII, else UTF-16BE with a BOM (hex). */
const pdfText = (value: string): PDFString | PDFHexString =>
  /^[\x20-\x7E\t\n\r]*$/.test(value)
    ? PDFString.of(
      value
        .replace(/\\/g, "\\\\")
        .replace(/\(/g, "\\(")
        .replace(/\)/g, "\\)")
        .replace(/\r/g, "\\r")
        .replace(/\n/g, "\\n")
        .replace(/\t/g, "\\t")
    )
    : PDFHexString.fromText(value)

const finite = (value: number) => (Number.isFinite(value) ? value : 0)

const annotationDict = (context: PDFContext, record: AnnotationRecord, parent: PDFRef | undefined): PDFDict => {
  const { details } = record
  const dict = PDFDict.withContext(context)
  const set = (name: string, value: PDFObject | undefined) => {
    if (value !== undefined) dict.set(key(name), value)
  }
  const numbers = (
    values: ReadonlyArray<number> | undefined
  ) => (values === undefined ? undefined : context.obj(values.map(finite)))
  set("Type", key("Annot"))
  set("Subtype", key(record.subtype))
  set("Page", record.page === undefined ? undefined : PDFNumber.of(record.page))
  set("Rect", numbers(record.rect))
  set("NM", record.name === undefined ? undefined : pdfText(record.name))
  set("C", numbers(details.color))
  set("IC", numbers(details.interiorColor))
  set("CA", details.opacity === undefined ? undefined : PDFNumber.of(finite(details.opacity)))
  set("T", details.author === undefined ? undefined : pdfText(details.author))
  set("Subj", details.subject === undefined ? undefined : pdfText(details.subject))
  set("Contents", details.contents === undefined ? undefined : pdfText(details.contents))
  set("M", details.modified === undefined ? undefined : pdfText(toPdfDate(details.modified)))
  set("CreationDate", details.created === undefined ? undefined : pdfText(toPdfDate(details.created)))
  set("F", details.flags === undefined ? undefined : PDFNumber.of(details.flags))
  if (details.lineWidth !== undefined) {
    const borderStyle = PDFDict.withContext(context)
    borderStyle.set(key("W"), PDFNumber.of(finite(details.lineWidth)))
    set("BS", borderStyle)
  }
  set("QuadPoints", numbers(details.quadPoints))
  set(
    "InkList",
    details.inkList === undefined ? undefined : context.obj(details.inkList.map((stroke) => stroke.flat().map(finite)))
  )
  if (details.vertices !== undefined) {
    if (record.subtype === "Line" && details.vertices.length === 2) set("L", numbers(details.vertices.flat()))
    else set("Vertices", numbers(details.vertices.flat()))
  }
  set("LE", details.lineEndings === undefined ? undefined : context.obj([...details.lineEndings]))
  set("Name", details.iconName === undefined ? undefined : nameFor(details.iconName))
  if (details.fontSize !== undefined || details.fontColor !== undefined) {
    set("DA", PDFString.of(formatAppearance(details.fontSize, details.fontColor)))
    if (record.subtype === "FreeText") set("DS", pdfText(formatDefaultStyle(details.fontSize, details.fontColor)))
  }
  set("OverlayText", details.overlayText === undefined ? undefined : pdfText(details.overlayText))
  set("IRT", parent)
  set("State", record.state === undefined ? undefined : pdfText(record.state))
  set("StateModel", record.stateModel === undefined ? undefined : pdfText(record.stateModel))
  return dict
}

/**
 * An FDF file holding the annotations, their replies (/IRT to their parent) and review states;
 * `fileName` becomes the catalog's /F. No cross-reference table: FDF does not need one.
 */
export const writeFdf = (
  annotations: ReadonlyArray<PdfAnnotation>,
  options: { readonly fileName?: string } = {}
): Uint8Array => {
  const records = flattenAnnotations(annotations)
  const context = PDFContext.create()
  const catalogRef = context.nextRef()
  const refs = records.map(() => context.nextRef())
  records.forEach((record, index) => {
    const ref = refs[index]
    if (ref === undefined) return
    context.assign(
      ref,
      annotationDict(context, record, record.inReplyTo === undefined ? undefined : refs[Number(record.inReplyTo)])
    )
  })
  const fdf = PDFDict.withContext(context)
  fdf.set(key("Annots"), context.obj(refs))
  if (options.fileName !== undefined) fdf.set(key("F"), pdfText(options.fileName))
  const catalog = PDFDict.withContext(context)
  catalog.set(key("FDF"), fdf)
  context.assign(catalogRef, catalog)

  let out = "%FDF-1.2\n%\u00E2\u00E3\u00CF\u00D3\n"
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    out += `${ref.objectNumber} ${ref.generationNumber} obj\n${object.toString()}\nendobj\n`
  }
  out += `trailer\n<< /Root ${catalogRef.objectNumber} ${catalogRef.generationNumber} R >>\n%%EOF\n`
  const bytes = Buffer.from(out, "latin1")
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length)
}
