/**
 * What the second pass removes besides content: annotations over a region (a removed widget takes
 * its form field along), replacement text in the structure tree for marked content that touched a
 * region, and every object nothing refers to any more (the unredacted originals).
 */
import {
  PDFArray,
  type PDFContext,
  PDFDict,
  type PDFDocument,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFRef,
  PDFStream
} from "pdf-lib"
import { numbersOf } from "../../engine/PdfObjects.ts"
import { type Box, boxOf, overlaps } from "./Geometry.ts"
import { REPLACEMENT_TEXT_KEYS } from "./Scrubber.ts"

/** Annotations over a region and all Redact annotations leave the page; widgets take their form field along. */
export const removeAnnotations = (doc: PDFDocument, page: PDFDict, regions: ReadonlyArray<Box>) => {
  const ctx = doc.context
  const annots = page.lookupMaybe(PDFName.of("Annots"), PDFArray)
  if (annots === undefined) return
  const entries = annots.asArray().map((item) => {
    const dict = ctx.lookup(item)
    return { item, dict: dict instanceof PDFDict ? dict : undefined }
  })
  const removed = new Set<PDFObject>()
  for (const { item, dict } of entries) {
    if (dict === undefined) continue
    const rect = numbersOf(dict.lookupMaybe(PDFName.of("Rect"), PDFArray), ctx)
    const box = rect?.length === 4 ? boxOf([[rect[0]!, rect[1]!], [rect[2]!, rect[3]!]]) : undefined
    const subtype = dict.lookupMaybe(PDFName.of("Subtype"), PDFName)?.asString()
    if (subtype === "/Redact" || (box !== undefined && regions.some((r) => overlaps(box, r)))) removed.add(item)
  }
  for (const { item, dict } of entries) {
    const parent = dict?.get(PDFName.of("Parent"))
    if (
      parent !== undefined && removed.has(parent) &&
      dict?.lookupMaybe(PDFName.of("Subtype"), PDFName)?.asString() === "/Popup"
    ) removed.add(item)
  }
  if (removed.size === 0) return
  const kept = entries.filter(({ item }) => !removed.has(item))
  for (const { dict } of kept) {
    const popup = dict?.get(PDFName.of("Popup"))
    if (popup !== undefined && removed.has(popup)) dict!.delete(PDFName.of("Popup"))
  }
  if (kept.length > 0) page.set(PDFName.of("Annots"), ctx.obj(kept.map(({ item }) => item)))
  else page.delete(PDFName.of("Annots"))
  const acroForm = doc.catalog.lookupMaybe(PDFName.of("AcroForm"), PDFDict)
  for (const { item, dict } of entries) {
    if (!removed.has(item) || !(item instanceof PDFRef)) continue
    const widget = dict?.lookupMaybe(PDFName.of("Subtype"), PDFName)?.asString() === "/Widget"
    if (widget && acroForm !== undefined) removeField(ctx, acroForm, item)
    // The structure tree may still point at it (OBJR); a reference to a deleted object reads as null.
    ctx.delete(item)
  }
}

/** Takes a widget out of the field tree; a field left without widgets goes too, value and all. */
const removeField = (ctx: PDFContext, acroForm: PDFDict, ref: PDFRef) => {
  const node = ctx.lookup(ref)
  if (!(node instanceof PDFDict)) return
  const parentRef = node.get(PDFName.of("Parent"))
  const parent = parentRef instanceof PDFRef ? ctx.lookup(parentRef) : undefined
  const owner = parent instanceof PDFDict ? parent : acroForm
  const key = parent instanceof PDFDict ? "Kids" : "Fields"
  const siblings = owner.lookupMaybe(PDFName.of(key), PDFArray)
  if (siblings !== undefined) {
    const rest = siblings.asArray().filter((kid) => kid !== ref)
    owner.set(PDFName.of(key), ctx.obj(rest))
    if (rest.length === 0 && parentRef instanceof PDFRef) removeField(ctx, acroForm, parentRef)
  }
  const order = acroForm.lookupMaybe(PDFName.of("CO"), PDFArray)
  if (order !== undefined) acroForm.set(PDFName.of("CO"), ctx.obj(order.asArray().filter((f) => f !== ref)))
}

/**
 * Structure elements whose marked content touched a region lose /ActualText, /Alt and /E (an image
 * description or the spelled-out text of what was removed); enclosing elements too.
 */
export const stripStructureText = (
  ctx: PDFContext,
  root: PDFDict,
  affected: ReadonlyMap<PDFRef, ReadonlySet<number>>
) => {
  const seen = new Set<PDFObject>()
  const visit = (node: PDFObject | undefined, page: PDFObject | undefined): boolean => {
    const dict = node instanceof PDFRef ? ctx.lookup(node) : node
    if (
      node === undefined || seen.has(node) ||
      !(dict instanceof PDFDict || dict instanceof PDFArray || dict instanceof PDFNumber)
    ) return false
    if (node instanceof PDFRef) seen.add(node)
    if (dict instanceof PDFNumber) return page instanceof PDFRef && affected.get(page)?.has(dict.asNumber()) === true
    if (dict instanceof PDFArray) return dict.asArray().map((kid) => visit(kid, page)).some(Boolean)
    const pg = dict.get(PDFName.of("Pg")) ?? page
    const type = dict.lookupMaybe(PDFName.of("Type"), PDFName)?.asString()
    if (type === "/MCR") return visit(dict.get(PDFName.of("MCID")), pg)
    if (type === "/OBJR") return false
    const hit = visit(dict.get(PDFName.of("K")), pg)
    if (hit) { for (const key of REPLACEMENT_TEXT_KEYS) dict.delete(PDFName.of(key)) }
    return hit
  }
  visit(root.get(PDFName.of("K")), undefined)
}

/** Deletes every object the trailer cannot reach: the originals MuPDF and this pass replaced. */
export const dropUnreferenced = (ctx: PDFContext) => {
  const reached = new Set<PDFRef>()
  const pending: Array<PDFObject> = [ctx.trailerInfo.Root, ctx.trailerInfo.Info].filter((o): o is PDFObject =>
    o !== undefined
  )
  while (pending.length > 0) {
    const object = pending.pop()!
    if (object instanceof PDFRef) {
      if (reached.has(object)) continue
      reached.add(object)
      const target = ctx.lookup(object)
      if (target !== undefined) pending.push(target)
    } else if (object instanceof PDFDict) pending.push(...object.values())
    else if (object instanceof PDFArray) pending.push(...object.asArray())
    else if (object instanceof PDFStream) pending.push(object.dict)
  }
  for (const [ref] of ctx.enumerateIndirectObjects()) if (!reached.has(ref)) ctx.delete(ref)
}
