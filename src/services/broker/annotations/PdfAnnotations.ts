/**
 * Annotations written into PDF files with pdf-lib, from the shared model (PdfAnnotation.ts);
 * reading them back is PdfAnnotationReader.ts. Written annotations always carry their own
 * appearance stream (AppearanceStreams.ts), so that no viewer has to synthesise one; "flatten"
 * draws those same appearances into the page content instead of adding annotation objects.
 */
import {
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  type PDFPage,
  PDFRef,
  PDFString,
  StandardFontEmbedder,
  StandardFonts
} from "pdf-lib"
import { nameFor, toPdfDate } from "../engine/PdfObjects.ts"
import {
  type Appearance,
  APPEARANCE_FONT_NAMES,
  type AppearanceContext,
  type AppearanceFontKind,
  emptyAppearance,
  normalAppearance,
  redactOverlayAppearance
} from "./AppearanceStreams.ts"
import type { AppearanceFont } from "./AppearanceText.ts"
import { pageGeometries, type PageGeometry, rectToDisplayed, rectToUser } from "./PageSpace.ts"
import {
  AnnotationFlag,
  isPdfAnnotationSubtype,
  normaliseRect,
  normaliseRotation,
  type PdfAnnotation,
  type PdfRect
} from "./PdfAnnotation.ts"

/** /F bit 6 (PDF 32000-1, table 165): not shown on screen nor printed. */
const NO_VIEW = 1 << 5
/** The flags Acrobat gives pop-ups: print, no zoom, no rotate. */
const POPUP_FLAGS = AnnotationFlag.print | (1 << 3) | (1 << 4)

const key = (name: string) => PDFName.of(name)

export interface AnnotationWriteWarning {
  /** The annotation's name (/NM). */
  readonly name: string
  readonly message: string
}

const text = (value: string) => PDFHexString.fromText(value)

/** A number as a content-stream operand: never in exponent notation. */
const operand = (v: number): string => {
  if (!Number.isFinite(v)) return "0"
  const s = String(v)
  return s.includes("e") ? v.toFixed(12).replace(/\.?0+$/, "") : s
}

const date = (iso: string) => PDFString.of(toPdfDate(iso))

interface EmbeddedFont {
  readonly ref: PDFRef
  readonly font: AppearanceFont
}

interface Writer {
  readonly pdf: PDFDocument
  readonly font: (kind: AppearanceFontKind) => EmbeddedFont
  readonly geometry: (pageIndex: number) => PageGeometry
}

/**
 * A standard font's dictionary, registered at once (PDFDocument.embedStandardFont would only write
 * it on save, too late for a caller that copies pages first), and its metrics and WinAnsi encoding.
 */
const embedStandardFont = (pdf: PDFDocument, name: StandardFonts): EmbeddedFont => {
  const embedder = StandardFontEmbedder.for(name as unknown as Parameters<typeof StandardFontEmbedder.for>[0])
  return {
    ref: embedder.embedIntoContext(pdf.context),
    font: {
      getCharacterSet: () => embedder.encoding.supportedCodePoints,
      widthOfTextAtSize: (text, size) => embedder.widthOfTextAtSize(text, size),
      encodeText: (text) => embedder.encodeText(text)
    }
  }
}

const formXObject = (w: Writer, appearance: Appearance): PDFRef => {
  const resources = w.pdf.context.obj({})
  if (appearance.fonts.length > 0) {
    const fonts = w.pdf.context.obj({})
    for (const kind of new Set(appearance.fonts)) fonts.set(key(APPEARANCE_FONT_NAMES[kind]), w.font(kind).ref)
    resources.set(key("Font"), fonts)
  }
  const gs = appearance.graphicsState
  if (gs) {
    const state = w.pdf.context.obj({ Type: "ExtGState" })
    if (gs.opacity !== undefined) {
      state.set(key("CA"), PDFNumber.of(gs.opacity))
      state.set(key("ca"), PDFNumber.of(gs.opacity))
    }
    if (gs.multiply) state.set(key("BM"), key("Multiply"))
    resources.set(key("ExtGState"), w.pdf.context.obj({ GS0: state }))
  }
  const stream = w.pdf.context.flateStream(appearance.content, {
    Type: "XObject",
    Subtype: "Form",
    FormType: 1,
    BBox: [...appearance.bbox],
    Matrix: [1, 0, 0, 1, 0, 0],
    Resources: resources
  })
  return w.pdf.context.register(stream)
}

/** /F bit 5: the viewer keeps the annotation upright itself (PDF 32000-1, 12.5.3). */
const NO_ROTATE = 1 << 4

/**
 * The rotation an appearance turns its text against. A page's /Rotate turns annotations with the
 * page, so upright text is drawn turned back; but a viewer keeps a NoRotate annotation upright
 * itself, and notes (Text) count as NoRotate whatever their flags (12.5.6.4; Acrobat, pdf.js and
 * poppler do so), so their objects are drawn unturned. Drawn into the page (flatten), everything is
 * turned back.
 */
const appearanceContext = (
  w: Writer,
  page: PDFPage,
  a: PdfAnnotation,
  mode: "objects" | "flatten"
): AppearanceContext => {
  const noRotate = a.subtype === "Text" || ((a.flags ?? AnnotationFlag.print) & NO_ROTATE) !== 0
  return {
    rotation: mode === "objects" && noRotate ? 0 : normaliseRotation(page.getRotation().angle),
    font: (kind) => w.font(kind).font
  }
}

const stateModel = (state: string) => (state === "Marked" || state === "Unmarked" ? "Marked" : "Review")

/** Where a note's pop-up opens: right of the note as the page is shown, inside the page. */
const popupRect = (writer: Writer, pageIndex: number, rect: PdfRect): PdfRect => {
  const g = writer.geometry(pageIndex)
  const note = rectToDisplayed(g, rect)
  const w = Math.min(200, g.width)
  const h = Math.min(120, g.height)
  const x = Math.max(0, Math.min(note.x + note.w + 4, g.width - w))
  const y = Math.max(0, Math.min(note.y, g.height - h))
  return rectToUser(g, { x, y, w, h })
}

/** The annotation's dictionary; `rect` is its /Rect, the box of its appearance. */
const annotationDict = (w: Writer, page: PDFPage, a: PdfAnnotation, rect: PdfRect): PDFDict => {
  const ctx = w.pdf.context
  const d = ctx.obj({ Type: "Annot", Subtype: a.subtype })
  d.set(key("Rect"), ctx.obj([...rect]))
  d.set(key("P"), page.ref)
  d.set(key("NM"), text(a.name))
  d.set(key("F"), PDFNumber.of(a.flags ?? AnnotationFlag.print))
  if (a.color) d.set(key("C"), ctx.obj([...a.color]))
  if (a.interiorColor) d.set(key("IC"), ctx.obj([...a.interiorColor]))
  if (a.opacity !== undefined) d.set(key("CA"), PDFNumber.of(a.opacity))
  if (a.author !== undefined) d.set(key("T"), text(a.author))
  if (a.subject !== undefined) d.set(key("Subj"), text(a.subject))
  if (a.contents !== undefined) d.set(key("Contents"), text(a.contents))
  if (a.modified !== undefined) d.set(key("M"), date(a.modified))
  if (a.created !== undefined) d.set(key("CreationDate"), date(a.created))
  if (a.lineWidth !== undefined) d.set(key("BS"), ctx.obj({ Type: "Border", W: a.lineWidth, S: "S" }))
  if (a.quadPoints) d.set(key("QuadPoints"), ctx.obj([...a.quadPoints]))
  if (a.inkList) d.set(key("InkList"), ctx.obj(a.inkList.map((s) => s.flatMap((p) => [...p]))))
  if (a.vertices) {
    d.set(
      key(a.subtype === "Line" ? "L" : "Vertices"),
      ctx.obj(a.vertices.slice(0, a.subtype === "Line" ? 2 : undefined).flatMap((p) => [...p]))
    )
  }
  if (a.lineEndings) d.set(key("LE"), ctx.obj([...a.lineEndings]))
  if (a.iconName !== undefined) d.set(key("Name"), nameFor(a.iconName))
  // /DA is required for FreeText, and for Redact with /OverlayText. An unknown size is written as
  // 0 (auto) and an unknown colour not at all, so that reading gives back what was written.
  if (
    a.subtype === "FreeText" || a.fontSize !== undefined || a.fontColor !== undefined || a.overlayText !== undefined
  ) {
    const color = a.fontColor ? ` ${a.fontColor.map(operand).join(" ")} rg` : ""
    d.set(key("DA"), PDFString.of(`/${APPEARANCE_FONT_NAMES.regular} ${operand(a.fontSize ?? 0)} Tf${color}`))
  }
  if (a.overlayText !== undefined) d.set(key("OverlayText"), text(a.overlayText))
  if (a.state !== undefined) {
    d.set(key("State"), text(a.state))
    d.set(key("StateModel"), text(stateModel(a.state)))
  }
  const rotation = normaliseRotation(page.getRotation().angle)
  // The direction of the text, for viewers that regenerate a FreeText (pdf.js and Acrobat do).
  if (a.subtype === "FreeText" && rotation !== 0) d.set(key("Rotate"), PDFNumber.of(rotation))
  return d
}

const writeObjects = (w: Writer, page: PDFPage, a: PdfAnnotation): Appearance => {
  const ctx = w.pdf.context
  const appearance = normalAppearance(a, appearanceContext(w, page, a, "objects"))
  // A viewer fits the appearance's box into /Rect: they are one, grown past the annotation's
  // rectangle where the drawing reaches further (line endings), as Acrobat writes them.
  const d = annotationDict(w, page, a, appearance.bbox)
  const ap = ctx.obj({ N: formXObject(w, appearance) })
  d.set(key("AP"), ap)
  if (a.subtype === "Redact") {
    d.set(key("RO"), formXObject(w, redactOverlayAppearance(a, appearanceContext(w, page, a, "objects"))))
  }
  const ref = ctx.register(d)
  addAnnot(page, ref)
  if (a.subtype === "Text") {
    const popup = ctx.obj({ Type: "Annot", Subtype: "Popup", Open: false })
    popup.set(key("Rect"), ctx.obj([...popupRect(w, a.page, a.rect)]))
    popup.set(key("P"), page.ref)
    popup.set(key("Parent"), ref)
    popup.set(key("F"), PDFNumber.of(POPUP_FLAGS))
    const popupRef = ctx.register(popup)
    d.set(key("Popup"), popupRef)
    d.set(key("Open"), ctx.obj(false))
    addAnnot(page, popupRef)
  }
  for (const reply of a.replies ?? []) {
    const r = ctx.obj({ Type: "Annot", Subtype: "Text" })
    r.set(key("Rect"), ctx.obj([...normaliseRect(a.rect)]))
    r.set(key("P"), page.ref)
    r.set(key("NM"), text(reply.name))
    r.set(key("F"), PDFNumber.of(AnnotationFlag.print))
    r.set(key("IRT"), ref)
    if (a.color) r.set(key("C"), ctx.obj([...a.color]))
    if (reply.author !== undefined) r.set(key("T"), text(reply.author))
    r.set(key("Contents"), text(reply.contents))
    if (reply.modified !== undefined) r.set(key("M"), date(reply.modified))
    if (reply.created !== undefined) r.set(key("CreationDate"), date(reply.created))
    // An empty appearance: the parent already shows where the thread is; no viewer draws a second icon.
    r.set(key("AP"), ctx.obj({ N: formXObject(w, emptyAppearance(a.rect)) }))
    addAnnot(page, ctx.register(r))
  }
  return appearance
}

/** Appends to the page's /Annots (kept where it is, also when it is an indirect array) without touching the page's content. */
const addAnnot = (page: PDFPage, ref: PDFRef) => {
  const annots = page.node.lookup(key("Annots"))
  if (annots instanceof PDFArray) annots.push(ref)
  else page.node.set(key("Annots"), page.doc.context.obj([ref]))
}

/**
 * Removes from every page the annotations of the types the broker keeps (replies included) and
 * their pop-ups: before the document's annotations, as the broker lists them, are written back in
 * their place (its own ones edited or deleted by users included), so that none is there twice.
 */
export const dropKeptAnnotations = (pdf: PDFDocument) => {
  for (const page of pdf.getPages()) {
    const annots = page.node.lookupMaybe(key("Annots"), PDFArray)
    if (annots === undefined) continue
    const entries = annots.asArray().map((ref) => ({ ref, dict: pdf.context.lookupMaybe(ref, PDFDict) }))
    const kept = (dict: PDFDict | undefined) => {
      const subtype = dict?.lookupMaybe(key("Subtype"), PDFName)?.decodeText()
      return subtype !== undefined && isPdfAnnotationSubtype(subtype)
    }
    const dropped = new Set(entries.filter((e) => kept(e.dict)).map((e) => e.ref.toString()))
    const isDroppedPopup = (dict: PDFDict | undefined) =>
      dict?.lookupMaybe(key("Subtype"), PDFName)?.decodeText() === "Popup" &&
      dropped.has(String(dict.get(key("Parent"))))
    const remaining = entries.filter((e) => !dropped.has(e.ref.toString()) && !isDroppedPopup(e.dict)).map((e) => e.ref)
    if (remaining.length === entries.length) continue
    if (remaining.length === 0) page.node.delete(key("Annots"))
    else page.node.set(key("Annots"), pdf.context.obj(remaining))
  }
}

/**
 * Writes the annotations into the loaded PDF. "objects" adds annotation dictionaries, each with an
 * appearance stream (/AP /N), replies as Text annotations with /IRT and a /Popup for notes;
 * "flatten" draws the same appearances into the page content as form XObjects and adds no
 * annotation objects (hidden ones are not drawn; a Redact becomes an opaque black box — drawing
 * over text does not remove it). Existing annotations of the file are kept.
 *
 * Returns what could not be drawn as asked: characters Helvetica cannot show (replaced in the
 * drawing by their base letter or "?"; the annotation's /Contents keeps them), pages that do not
 * exist.
 */
export const writeAnnotations = (
  pdf: PDFDocument,
  annotations: ReadonlyArray<PdfAnnotation>,
  mode: "objects" | "flatten"
): ReadonlyArray<AnnotationWriteWarning> => {
  const fonts = new Map<AppearanceFontKind, EmbeddedFont>()
  let geometries: ReadonlyArray<PageGeometry> | undefined
  const w: Writer = {
    pdf,
    geometry: (pageIndex) => (geometries ??= pageGeometries(pdf))[pageIndex]!,
    font: (kind) => {
      let font = fonts.get(kind)
      if (!font) {
        font = embedStandardFont(pdf, kind === "bold" ? StandardFonts.HelveticaBold : StandardFonts.Helvetica)
        fonts.set(kind, font)
      }
      return font
    }
  }
  const pages = pdf.getPages()
  const warnings: Array<AnnotationWriteWarning> = []
  const drawings = new Map<PDFPage, { readonly hadAnnots: boolean; readonly ops: Array<string> }>()
  for (const a of annotations) {
    const page = pages[a.page]
    if (!page) {
      warnings.push({ name: a.name, message: `page ${a.page} does not exist (the document has ${pages.length})` })
      continue
    }
    let appearance: Appearance
    if (mode === "objects") {
      appearance = writeObjects(w, page, a)
    } else {
      const flags = a.flags ?? AnnotationFlag.print
      if ((flags & (AnnotationFlag.hidden | NO_VIEW)) !== 0) continue
      appearance = normalAppearance(a, appearanceContext(w, page, a, "flatten"), true)
      if (appearance.content === "") continue
      const drawing = drawings.get(page) ?? { hadAnnots: page.node.get(key("Annots")) !== undefined, ops: [] }
      drawings.set(page, drawing)
      // newXObject() normalises the page: its content is wrapped in q … Q, so the drawing starts from the default CTM.
      const name = page.node.newXObject("Annot", formXObject(w, appearance))
      drawing.ops.push(`q ${name.asString()} Do Q`)
    }
    const replaced = [...new Set(appearance.replaced)]
    if (replaced.length > 0) {
      warnings.push({
        name: a.name,
        message: `Helvetica cannot show ${
          replaced.map((c) => JSON.stringify(c)).join(", ")
        }: drawn as a base letter or "?"`
      })
    }
  }
  for (const [page, { hadAnnots, ops }] of drawings) {
    page.node.addContentStream(pdf.context.register(pdf.context.flateStream(ops.join("\n"))))
    // Normalising gave the page an empty /Annots; flattening adds none.
    const annots = page.node.Annots()
    if (!hadAnnots && annots && annots.size() === 0) page.node.delete(key("Annots"))
  }
  return warnings
}
