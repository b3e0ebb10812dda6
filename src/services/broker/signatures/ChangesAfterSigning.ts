/**
 * What incremental updates changed after a signature: the revision it covers is parsed again and
 * compared object by object with the final document. At most MAX_REVISIONS earlier revisions are
 * parsed, one at a time.
 */
import { createHash } from "node:crypto"
import {
  PDFArray,
  PDFContext,
  type PDFDict,
  PDFInvalidObject,
  PDFName,
  type PDFObject,
  PDFObjectParser,
  PDFRawStream,
  PDFRef
} from "pdf-lib"
import { finalRoles, forEachChild, type ObjectRoles, refOfTag, tagOf } from "./ObjectRoles.ts"
import { asDict, N, parsePdf, type SignatureField, type SignatureForm } from "./SignatureFields.ts"
import { messageOf } from "./SignatureProblem.ts"
import { isWhitespace } from "./SignedRange.ts"

/** Earlier revisions parsed to find what changed after a signature. */
const MAX_REVISIONS = 16
const MAX_LISTED_CHANGES = 6

/**
 * For every end of signed bytes (`coveredEnds`) before the end of the file, what the later
 * revisions changed; no entry means nothing but signature-related changes.
 *
 * The decision: the revision a signature covers (the file up to its /ByteRange's end) is parsed
 * again and compared object by object with the final document. These changes are what adding a
 * signature does, and are not reported:
 * - new objects, unless the signed revision already referred to them (a dangling reference filled
 *   in later would change signed content without touching a signed object);
 * - the catalog gaining or changing /AcroForm, /DSS (validation data), /Metadata, /Extensions;
 * - the form (/AcroForm) changing /SigFlags, /DR, /DA, or gaining signature fields in /Fields;
 * - a page gaining signature widgets in /Annots (nothing else of the page may change);
 * - a signature field that was not signed getting its /V and appearance (/AP, /AS, /MK, ...), and
 *   the appearance streams of such fields; a parent field gaining signature-only kids;
 * - the document information dictionary, the XMP metadata, and validation data (/DSS and below) —
 *   provided the object is not also reachable from a page's content (so that pointing /Metadata or
 *   /DSS at a content stream cannot hide a change to it).
 * Anything else — page content or resources, annotations other than signature widgets, a field or
 * signature dictionary that was already signed, fields or annotations removed, a new catalog — is
 * a change, reported as "The document was changed after this signature (N bytes added: ...)" with
 * the objects concerned. Appended bytes that change no object (whitespace, an empty revision) are
 * not a change. Not considered: DocMDP/FieldMDP permissions (a certification signature allowing no
 * change is treated like an approval signature), and how a viewer would render unchanged objects
 * differently (e.g. appearances regenerated because of /NeedAppearances).
 */
export const changesAfter = async (
  pdf: Uint8Array,
  context: PDFContext,
  form: SignatureForm,
  coveredEnds: ReadonlyArray<number>
): Promise<ReadonlyMap<number, string>> => {
  const ends = [...new Set(coveredEnds.filter((end) => end < pdf.length))]
    .filter((end) => !pdf.subarray(end).every(isWhitespace))
    .sort((a, b) => a - b)
  const result = new Map<number, string>()
  if (ends.length === 0) return result
  const roles = finalRoles(context, form)
  const current = new Map<string, Snapshot>()
  for (const [ref, object] of context.enumerateIndirectObjects()) current.set(ref.tag, snapshot(object))
  for (const [index, end] of ends.entries()) {
    const added = pdf.length - end
    if (index >= MAX_REVISIONS) {
      result.set(
        end,
        `The document was changed after this signature (${added} bytes added; not analysed: too many revisions)`
      )
      continue
    }
    let changes: ReadonlyArray<string>
    try {
      const earlier = await parsePdf(pdf.subarray(0, end))
      changes = compareRevisions(revisionSnapshot(earlier), context, current, roles)
    } catch (error) {
      changes = [`a revision that could not be compared (${messageOf(error)})`]
    }
    if (changes.length === 0) continue
    const listed = changes.slice(0, MAX_LISTED_CHANGES).join(", ")
    const more = changes.length > MAX_LISTED_CHANGES ? ` and ${changes.length - MAX_LISTED_CHANGES} more` : ""
    result.set(end, `The document was changed after this signature (${added} bytes added: ${listed}${more})`)
  }
  return result
}

/** An object as compared between revisions: its text, and a digest of its stream data if any. */
interface Snapshot {
  readonly text: string
  readonly data: string | null
}

const digestHex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const snapshot = (object: PDFObject): Snapshot => {
  if (object instanceof PDFRawStream) return { text: object.dict.toString(), data: digestHex(object.contents) }
  if (object instanceof PDFInvalidObject) {
    const bytes = new Uint8Array(object.sizeInBytes())
    object.copyBytesInto(bytes, 0)
    return { text: "(invalid)", data: digestHex(bytes) }
  }
  return { text: object.toString(), data: null }
}

interface RevisionSnapshot {
  readonly objects: ReadonlyMap<string, Snapshot>
  /** Every reference made by the revision's objects. */
  readonly referenced: ReadonlySet<string>
  readonly root: string | null
  readonly encrypt: string | null
}

const revisionSnapshot = (context: PDFContext): RevisionSnapshot => {
  const objects = new Map<string, Snapshot>()
  const referenced = new Set<string>()
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    objects.set(ref.tag, snapshot(object))
    forEachChild(object, (child) => {
      if (child instanceof PDFRef) referenced.add(child.tag)
    })
  }
  const { Root, Encrypt } = context.trailerInfo
  return { objects, referenced, root: Root ? Root.toString() : null, encrypt: Encrypt ? Encrypt.toString() : null }
}

/** An object of an earlier revision, parsed back from its text (stream data left out). */
const reparse = (text: string): PDFObject | undefined => {
  try {
    return PDFObjectParser.forBytes(Buffer.from(text, "latin1"), PDFContext.create()).parseObject()
  } catch {
    return undefined
  }
}

/** The keys whose values differ between two versions of a dictionary. */
const changedKeys = (before: PDFDict | undefined, after: PDFDict | undefined): ReadonlyArray<string> => {
  const old = new Map((before?.entries() ?? []).map(([k, v]) => [k.decodeText(), v.toString()] as const))
  const now = new Map((after?.entries() ?? []).map(([k, v]) => [k.decodeText(), v.toString()] as const))
  const keys = new Set<string>()
  for (const [k, v] of now) if (old.get(k) !== v) keys.add(k)
  for (const k of old.keys()) if (!now.has(k)) keys.add(k)
  return [...keys]
}

const FORM_KEYS = new Set(["SigFlags", "DR", "DA"])
const CATALOG_KEYS = new Set(["DSS", "Metadata", "Extensions"])
const SIGNING_KEYS = new Set(["V", "AP", "AS", "MK", "F", "Lock", "SV", "DA", "P"])

/** What changed from an earlier revision to the final document, other than signing (see `changesAfter`). */
const compareRevisions = (
  earlier: RevisionSnapshot,
  context: PDFContext,
  current: ReadonlyMap<string, Snapshot>,
  roles: ObjectRoles
): ReadonlyArray<string> => {
  const changes: Array<string> = []
  if ((context.trailerInfo.Root?.toString() ?? null) !== earlier.root) changes.push("a new document catalog")
  if ((context.trailerInfo.Encrypt?.toString() ?? null) !== earlier.encrypt) changes.push("the encryption")

  /** A value as it was in the earlier revision, a reference resolved. */
  const before = (value: PDFObject | undefined): PDFObject | undefined => {
    if (!(value instanceof PDFRef)) return value
    const prior = earlier.objects.get(value.tag)
    return prior ? reparse(prior.text) : undefined
  }
  const itemsBefore = (value: PDFObject | undefined): ReadonlyArray<string> => {
    const array = before(value)
    return array instanceof PDFArray ? array.asArray().map((item) => item.toString()) : []
  }
  const isSignatureNode = (item: PDFObject) =>
    roles.signatureNodeObjects.has(item) || (item instanceof PDFRef && roles.signatureNodes.has(item.tag))
  /** Whether an array (entry) only gained signature fields or widgets from its earlier version. */
  const onlyGainedSignatures = (old: PDFObject | undefined, now: PDFObject | undefined): boolean => {
    const remaining = new Map<string, number>()
    for (const item of itemsBefore(old)) remaining.set(item, (remaining.get(item) ?? 0) + 1)
    const array = context.lookup(now)
    for (const item of array instanceof PDFArray ? array.asArray() : []) {
      const key = item.toString()
      const count = remaining.get(key) ?? 0
      if (count > 0) remaining.set(key, count - 1)
      else if (!isSignatureNode(item)) return false
    }
    return [...remaining.values()].every((count) => count === 0)
  }
  const wasUnsigned = (field: SignatureField): boolean => {
    const tag = tagOf(field.ref ?? field.widgets[0])
    if (!tag) return false
    const prior = earlier.objects.get(tag)
    return prior === undefined || asDict(reparse(prior.text))?.has(N.V) === false
  }
  const formChanged = (old: PDFDict | undefined, now: PDFDict | undefined): boolean =>
    changedKeys(old, now).some((
      key
    ) => (key === "Fields" ? !onlyGainedSignatures(old?.get(N.Fields), now?.get(N.Fields)) : !FORM_KEYS.has(key)))
  const listKeys = (keys: ReadonlyArray<string>) => keys.map((k) => `/${k}`).join(", ")

  for (const [tag, now] of current) {
    const prior = earlier.objects.get(tag)
    if (prior && prior.text === now.text && prior.data === now.data) continue
    const objectNumber = tag.split(" ")[0] ?? "?"
    if (!prior) {
      if (earlier.referenced.has(tag)) {
        changes.push(`object ${objectNumber} (referred to by the signed revision, defined later)`)
      }
      continue
    }
    const inContent = roles.content.has(tag)
    const object = context.lookup(refOfTag(tag))
    const dict = asDict(object instanceof PDFRawStream ? object.dict : object)
    const old = asDict(reparse(prior.text))

    if (tag === roles.catalog) {
      const keys = changedKeys(old, dict).filter((key) =>
        key === "AcroForm"
          ? formChanged(asDict(before(old?.get(N.AcroForm))), asDict(context.lookup(dict?.get(N.AcroForm))))
          : !CATALOG_KEYS.has(key)
      )
      if (keys.length > 0) changes.push(`the document catalog (${listKeys(keys)})`)
    } else if (tag === roles.acroForm) {
      if (formChanged(old, dict)) changes.push("the form (/AcroForm)")
    } else if (tag === roles.fieldsArray) {
      if (!onlyGainedSignatures(refOfTag(tag), refOfTag(tag))) changes.push("the form's fields")
    } else if (roles.pages.has(tag)) {
      const keys = changedKeys(old, dict).filter((key) =>
        key !== "Annots" || !onlyGainedSignatures(old?.get(N.Annots), dict?.get(N.Annots))
      )
      if (keys.length > 0) changes.push(`page ${roles.pages.get(tag)} (${listKeys(keys)})`)
    } else if (roles.annotsArrays.has(tag)) {
      if (!onlyGainedSignatures(refOfTag(tag), refOfTag(tag))) {
        changes.push(`the annotations of page ${roles.annotsArrays.get(tag)}`)
      }
    } else if (roles.signatureNodes.has(tag)) {
      const field = roles.signatureNodes.get(tag) ?? null
      const signing = field !== null && wasUnsigned(field)
      const keys = changedKeys(old, dict).filter((key) =>
        key === "Kids"
          ? !onlyGainedSignatures(old?.get(N.Kids), dict?.get(N.Kids))
          : !(signing && SIGNING_KEYS.has(key))
      )
      if (keys.length > 0) {
        changes.push(field ? `the signature field "${field.name}"` : describeObject(objectNumber, object))
      }
    } else if (roles.pageContents.has(tag)) {
      changes.push(`the content of page ${roles.pageContents.get(tag)}`)
    } else if (roles.signatureValues.has(tag)) {
      changes.push(`the signature dictionary of "${roles.signatureValues.get(tag)!.name}"`)
    } else {
      // Metadata, validation data, appearances of newly signed fields: allowed unless the pages show them.
      const appearanceOf = roles.appearances.get(tag)
      const allowed = !inContent &&
        (roles.metadata.has(tag) || (appearanceOf !== undefined && wasUnsigned(appearanceOf)))
      if (!allowed) changes.push(describeObject(objectNumber, object))
    }
  }
  return changes
}

const describeObject = (objectNumber: string, object: PDFObject | undefined): string => {
  const dict = asDict(object instanceof PDFRawStream ? object.dict : object)
  const type = dict?.lookup(N.Type)
  const subtype = dict?.lookup(N.Subtype)
  const kind = [type, subtype].flatMap((name) => (name instanceof PDFName ? [name.toString()] : [])).join(" ")
  const what = object instanceof PDFRawStream ? (kind ? `${kind} stream` : "stream") : kind
  return what ? `object ${objectNumber} (${what})` : `object ${objectNumber}`
}
