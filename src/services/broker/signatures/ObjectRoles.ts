/**
 * What each indirect object of a signed document is (the catalog, the form, a page, its content or
 * annotations, a signature field, its value or appearance, metadata, ...), for deciding whether a
 * change made after a signature is part of signing (ChangesAfterSigning.ts).
 */
import { PDFArray, type PDFContext, PDFDict, PDFName, type PDFObject, PDFRawStream, PDFRef } from "pdf-lib"
import { asDict, N, type SignatureField, type SignatureForm } from "./SignatureFields.ts"

const MAX_PAGES = 100_000

export interface ObjectRoles {
  readonly catalog: string | null
  readonly acroForm: string | null
  readonly fieldsArray: string | null
  readonly pages: ReadonlyMap<string, number>
  /** Content streams (and arrays of them), with their page number. */
  readonly pageContents: ReadonlyMap<string, number>
  readonly annotsArrays: ReadonlyMap<string, number>
  /** Signature fields and their widgets, by reference; null for parents holding signature fields only. */
  readonly signatureNodes: ReadonlyMap<string, SignatureField | null>
  readonly signatureNodeObjects: ReadonlySet<PDFObject>
  readonly signatureValues: ReadonlyMap<string, SignatureField>
  readonly appearances: ReadonlyMap<string, SignatureField>
  /** Information dictionary, XMP metadata, validation data. */
  readonly metadata: ReadonlySet<string>
  /** Objects reachable from the pages other than through signature widgets. */
  readonly content: ReadonlySet<string>
}

export const tagOf = (object: PDFObject | undefined): string | null => (object instanceof PDFRef ? object.tag : null)

export const refOfTag = (tag: string): PDFRef => {
  const [objectNumber, generation] = tag.split(" ")
  return PDFRef.of(Number(objectNumber), Number(generation))
}

/** Calls `visit` for every value inside an object (direct values recursively; references not followed). */
export const forEachChild = (
  object: PDFObject,
  visit: (child: PDFObject, key: PDFName | null) => void,
  depth = 0
): void => {
  if (depth > 64) return
  const dict = object instanceof PDFRawStream ? object.dict : object
  if (dict instanceof PDFDict) {
    for (const [key, value] of dict.entries()) {
      visit(value, key)
      forEachChild(value, visit, depth + 1)
    }
  } else if (dict instanceof PDFArray) {
    for (const item of dict.asArray()) {
      visit(item, null)
      forEachChild(item, visit, depth + 1)
    }
  }
}

/** Objects reachable from `starts` (indirect ones, by tag), not entering `skip` nor following the `ignore` keys. */
const reachable = (
  context: PDFContext,
  starts: ReadonlyArray<PDFObject>,
  skip: (tag: string) => boolean,
  ignore: ReadonlySet<PDFName>
): Set<string> => {
  const seen = new Set<string>()
  const stack = [...starts]
  while (stack.length > 0) {
    const entry = stack.pop()!
    if (entry instanceof PDFRef) {
      if (seen.has(entry.tag) || skip(entry.tag)) continue
      seen.add(entry.tag)
    }
    const object = context.lookup(entry)
    if (object === undefined) continue
    forEachChild(object, (child, key) => {
      if (child instanceof PDFRef && (key === null || !ignore.has(key))) stack.push(child)
    })
  }
  return seen
}

/** What each indirect object of the final document is, for the objects the rules care about. */
export const finalRoles = (context: PDFContext, form: SignatureForm): ObjectRoles => {
  const pages = new Map<string, number>()
  const pageContents = new Map<string, number>()
  const annotsArrays = new Map<string, number>()
  const seenNodes = new Set<PDFDict>()
  const walkPages = (entry: PDFObject | undefined, depth: number) => {
    const node = asDict(context.lookup(entry))
    if (!node || seenNodes.has(node) || depth > 64 || pages.size >= MAX_PAGES) return
    seenNodes.add(node)
    const kids = node.lookup(N.Kids)
    if (kids instanceof PDFArray && node.lookup(N.Type) !== N.Page) {
      for (const kid of kids.asArray()) walkPages(kid, depth + 1)
      return
    }
    const tag = tagOf(entry)
    if (tag) pages.set(tag, pages.size + 1)
    const annots = tagOf(node.get(N.Annots))
    if (annots) annotsArrays.set(annots, pages.size)
    const contents = node.get(N.Contents)
    const streams = context.lookup(contents)
    for (const stream of [contents, ...(streams instanceof PDFArray ? streams.asArray() : [])]) {
      const streamTag = tagOf(stream)
      if (streamTag && !pageContents.has(streamTag)) pageContents.set(streamTag, pages.size)
    }
  }
  walkPages(form.catalog?.get(N.Pages), 0)

  const signatureNodes = new Map<string, SignatureField | null>()
  const signatureValues = new Map<string, SignatureField>()
  const appearances = new Map<string, SignatureField>()
  for (const node of form.signatureNodes) {
    const tag = tagOf(node)
    if (tag) signatureNodes.set(tag, null)
  }
  for (const field of form.fields) {
    if (field.ref) signatureNodes.set(field.ref.tag, field)
    if (field.valueRef) signatureValues.set(field.valueRef.tag, field)
    for (const widget of field.widgets) {
      const tag = tagOf(widget)
      if (tag) signatureNodes.set(tag, field)
      const ap = asDict(context.lookup(widget))?.lookup(N.AP)
      for (const [, entry] of ap instanceof PDFDict ? ap.entries() : []) {
        const states = context.lookup(entry)
        const streams = states instanceof PDFDict && !(entry instanceof PDFRef)
          ? states.entries().map(([, v]) => v)
          : [entry]
        for (const stream of streams) {
          const streamTag = tagOf(stream)
          if (streamTag) appearances.set(streamTag, field)
        }
      }
    }
  }

  const metadataStarts = [context.trailerInfo.Info, form.catalog?.get(N.Metadata), form.catalog?.get(N.DSS)].filter((
    o
  ): o is PDFObject => o !== undefined)
  const metadata = reachable(context, metadataStarts, () => false, new Set())
  const content = reachable(
    context,
    [...pages.keys()].map(refOfTag),
    (tag) => signatureNodes.has(tag),
    new Set([PDFName.of("Parent"), PDFName.of("P")])
  )

  return {
    catalog: tagOf(context.trailerInfo.Root),
    acroForm: tagOf(form.catalog?.get(N.AcroForm)),
    fieldsArray: tagOf(form.acroForm?.get(N.Fields)),
    pages,
    pageContents,
    annotsArrays,
    signatureNodes,
    signatureNodeObjects: form.signatureNodes,
    signatureValues,
    appearances,
    metadata,
    content
  }
}
