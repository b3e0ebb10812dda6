/**
 * The signature fields of a PDF, as pdf-lib reads the file: found through the AcroForm field tree
 * (kids included, names and values inherited), or, for a signed file whose form cannot be
 * followed, as signature dictionaries found among its objects.
 */
import { PDFArray, type PDFContext, PDFDict, PDFName, type PDFObject, PDFParser, PDFRef } from "pdf-lib"
import { textOf } from "../engine/PdfObjects.ts"

const MAX_FIELDS = 10_000
const MAX_FIELD_DEPTH = 32

/** The PDF names the signature checks read. */
export const N = {
  AcroForm: PDFName.of("AcroForm"),
  Fields: PDFName.of("Fields"),
  Kids: PDFName.of("Kids"),
  T: PDFName.of("T"),
  FT: PDFName.of("FT"),
  V: PDFName.of("V"),
  Sig: PDFName.of("Sig"),
  AP: PDFName.of("AP"),
  Type: PDFName.of("Type"),
  SubFilter: PDFName.of("SubFilter"),
  ByteRange: PDFName.of("ByteRange"),
  Contents: PDFName.of("Contents"),
  Cert: PDFName.of("Cert"),
  M: PDFName.of("M"),
  Name: PDFName.of("Name"),
  Reason: PDFName.of("Reason"),
  Location: PDFName.of("Location"),
  Pages: PDFName.of("Pages"),
  Page: PDFName.of("Page"),
  Annots: PDFName.of("Annots"),
  Metadata: PDFName.of("Metadata"),
  DSS: PDFName.of("DSS"),
  Subtype: PDFName.of("Subtype")
} as const

/** The file's objects, all parsed in one go; an object pdf-lib cannot read is kept as invalid rather than failing the parse. */
export const parsePdf = (pdf: Uint8Array): Promise<PDFContext> =>
  PDFParser.forBytesWithOptions(pdf, Infinity, false).parseDocument()

export const asDict = (
  object: PDFObject | undefined
): PDFDict | undefined => (object instanceof PDFDict ? object : undefined)

export interface SignatureField {
  /** Fully qualified: the partial names (/T) from the root down, joined with dots. */
  readonly name: string
  readonly node: PDFDict
  readonly ref: PDFRef | undefined
  /** The signature dictionary (/V, possibly inherited). */
  readonly value: PDFDict | undefined
  /** The reference to it: set while `value` is not when the reference leads nowhere (a damaged file). */
  readonly valueRef: PDFRef | undefined
  /** The field's widgets: itself when merged, else its kids. */
  readonly widgets: ReadonlyArray<PDFObject>
  /** A signature dictionary found among the objects, outside the form. */
  readonly loose: boolean
}

export interface SignatureForm {
  readonly fields: ReadonlyArray<SignatureField>
  readonly catalog: PDFDict | undefined
  readonly acroForm: PDFDict | undefined
  /** Field nodes whose subtree holds signature fields only (the terminals, their parents, their widgets). */
  readonly signatureNodes: ReadonlySet<PDFObject>
}

export const signatureFields = (context: PDFContext): SignatureForm => {
  const catalog = asDict(context.lookup(context.trailerInfo.Root))
  const acroForm = asDict(catalog?.lookup(N.AcroForm))
  const roots = acroForm?.lookup(N.Fields)
  const fields: Array<SignatureField> = []
  const signatureNodes = new Set<PDFObject>()
  if (!(roots instanceof PDFArray)) return { fields, catalog, acroForm, signatureNodes }
  const seen = new Set<PDFDict>()

  /** Visits a field node; true when its subtree holds signature fields only. */
  const visit = (
    entry: PDFObject,
    parentName: string | null,
    inheritedType: PDFObject | undefined,
    inheritedValue: PDFObject | undefined,
    depth: number
  ): boolean => {
    const node = asDict(context.lookup(entry))
    if (!node || seen.has(node) || depth > MAX_FIELD_DEPTH || fields.length >= MAX_FIELDS) return false
    seen.add(node)
    const partial = textOf(node.lookup(N.T))
    const name = partial === undefined ? parentName : parentName === null ? partial : `${parentName}.${partial}`
    const type = node.lookup(N.FT) ?? inheritedType
    const value = node.get(N.V) ?? inheritedValue
    const kids = node.lookup(N.Kids)
    const kidEntries = kids instanceof PDFArray ? kids.asArray() : []
    const childFields = kidEntries.filter((kid) => asDict(context.lookup(kid))?.has(N.T) === true)
    let onlySignatures: boolean
    if (childFields.length > 0) {
      onlySignatures = true
      for (const kid of childFields) onlySignatures = visit(kid, name, type, value, depth + 1) && onlySignatures
    } else {
      onlySignatures = type === N.Sig
      if (onlySignatures) {
        const signature = context.lookup(value)
        fields.push({
          name: name ?? "",
          node,
          ref: entry instanceof PDFRef ? entry : undefined,
          value: asDict(signature),
          valueRef: value instanceof PDFRef ? value : undefined,
          widgets: kidEntries.length > 0 ? kidEntries : [entry],
          loose: false
        })
        for (const widget of kidEntries) signatureNodes.add(widget)
      }
    }
    if (onlySignatures) signatureNodes.add(entry)
    return onlySignatures
  }
  for (const root of roots.asArray()) visit(root, null, undefined, undefined, 0)
  return { fields, catalog, acroForm, signatureNodes }
}

/** Signature dictionaries (a /ByteRange and /Contents) among the indirect objects. */
export const looseSignatures = (context: PDFContext): ReadonlyArray<SignatureField> =>
  context.enumerateIndirectObjects().flatMap(([ref, object]) =>
    object instanceof PDFDict && object.has(N.ByteRange) && object.has(N.Contents)
      ? [{ name: "", node: object, ref: undefined, value: object, valueRef: ref, widgets: [], loose: true }]
      : []
  )
