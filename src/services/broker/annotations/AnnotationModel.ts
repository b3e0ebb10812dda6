/**
 * The API's Annotation (displayed page space, 0–255 colours, spec field names) and PdfAnnotation
 * (PDF user space, what files hold) are one annotation seen two ways; these functions turn one into
 * the other with the page's geometry, losing nothing either keeps.
 */
import { Annotation, AnnotationFlags, AnnotationReply, Color, Point } from "../../../schemas/broker/Annotations.ts"
import { Rect } from "../../../schemas/broker/Content.ts"
import { DocumentIdRef } from "../../../schemas/broker/Document.ts"
import { type PageGeometry, rectToDisplayed, rectToUser, toDisplayed, toUser } from "./PageSpace.ts"
import { AnnotationFlag, type PdfAnnotation, type PdfColor, type PdfPoint } from "./PdfAnnotation.ts"

const toPdfColor = (
  c: Color | undefined
): PdfColor | undefined => (c === undefined ? undefined : [c.r / 255, c.g / 255, c.b / 255])

const fromPdfColor = (c: PdfColor | undefined): Color | undefined =>
  c === undefined ? undefined : new Color({ r: byte(c[0]), g: byte(c[1]), b: byte(c[2]) })

const byte = (v: number) => Math.max(0, Math.min(255, Math.round(v * 255)))

const flagsToPdf = (f: AnnotationFlags | undefined): number =>
  f === undefined
    ? AnnotationFlag.print
    : (f.hidden ? AnnotationFlag.hidden : 0) | (f.print ? AnnotationFlag.print : 0) |
      (f.readonly ? AnnotationFlag.readOnly : 0) | (f.locked ? AnnotationFlag.locked : 0)

const flagsFromPdf = (flags: number | undefined): AnnotationFlags => {
  const f = flags ?? AnnotationFlag.print
  return new AnnotationFlags({
    hidden: (f & AnnotationFlag.hidden) !== 0,
    readonly: (f & AnnotationFlag.readOnly) !== 0,
    locked: (f & AnnotationFlag.locked) !== 0,
    print: (f & AnnotationFlag.print) !== 0
  })
}

/**
 * A displayed box as a PDF quadrilateral: its upper left, upper right, lower left and lower right
 * corners as shown (the order Acrobat writes), each in user space.
 */
const quadOf = (g: PageGeometry, r: Rect): Array<number> =>
  [toUser(g, [r.x, r.y]), toUser(g, [r.x + r.w, r.y]), toUser(g, [r.x, r.y + r.h]), toUser(g, [r.x + r.w, r.y + r.h])]
    .flat()

const rectOfQuad = (g: PageGeometry, quad: ReadonlyArray<number>): Rect => {
  const corners: Array<PdfPoint> = []
  for (let i = 0; i + 1 < quad.length; i += 2) corners.push(toDisplayed(g, [quad[i]!, quad[i + 1]!]))
  const xs = corners.map((p) => p[0])
  const ys = corners.map((p) => p[1])
  const x = Math.min(...xs)
  const y = Math.min(...ys)
  return new Rect({ x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y })
}

const pointOf = (g: PageGeometry, p: PdfPoint) => {
  const [x, y] = toDisplayed(g, p)
  return new Point({ x, y })
}

const defined = <T extends object>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>
  }

/** Text markup and text redaction mark pieces of lines: without quad points, their box is the one piece. */
const MARKUP: ReadonlySet<string> = new Set(["Highlight", "Underline", "StrikeOut", "Squiggly", "RedactText"])

/** The annotation's quad points, its position standing for them on a markup annotation that gives none. */
export const quadPointsOf = (a: Annotation): ReadonlyArray<Rect> | undefined =>
  a.quadPoints ?? (MARKUP.has(a.type) ? [new Rect(a.position)] : undefined)

/** The API's annotation (its ID assigned) as PDF files hold it. */
export const toPdfAnnotation = (a: Annotation, id: string, g: PageGeometry): PdfAnnotation =>
  defined({
    subtype: a.type === "RedactText" ? "Redact" as const : a.type,
    page: a.page,
    name: id,
    rect: rectToUser(g, a.position),
    color: toPdfColor(a.color),
    interiorColor: toPdfColor(a.interiorColor),
    opacity: a.opacity,
    author: a.creator,
    subject: a.subject,
    contents: a.contents,
    modified: a.date,
    created: a.creationDate,
    flags: flagsToPdf(a.flags),
    lineWidth: a.lineWidth,
    quadPoints: quadPointsOf(a)?.flatMap((r) => quadOf(g, r)),
    inkList: a.inkList?.map((stroke) => stroke.map((p) => toUser(g, [p.x, p.y]))),
    vertices: a.points?.map((p) => toUser(g, [p.x, p.y])),
    lineEndings: a.lineEndings,
    iconName: a.stampName,
    fontSize: a.fontSize,
    fontColor: toPdfColor(a.fontColor),
    overlayText: a.redactReason,
    state: a.status,
    replies: a.replies?.map((r, i) =>
      defined({ name: r.id ?? `${id}-reply-${i + 1}`, author: r.creator, contents: r.contents, modified: r.date })
    )
  })

/** A PDF's (or FDF's, XFDF's) annotation as the API shows it. */
export const fromPdfAnnotation = (
  p: PdfAnnotation,
  g: PageGeometry,
  documentId: string,
  origin: "store" | "file"
): Annotation => {
  const quads: Array<Rect> = []
  for (let i = 0; i + 7 < (p.quadPoints?.length ?? 0); i += 8) quads.push(rectOfQuad(g, p.quadPoints!.slice(i, i + 8)))
  const displayed = rectToDisplayed(g, p.rect)
  return new Annotation(defined({
    id: new DocumentIdRef({ id: p.name }),
    type: p.subtype === "Redact" ? (quads.length > 0 ? "RedactText" as const : "Redact" as const) : p.subtype,
    page: p.page,
    position: new Rect(displayed),
    color: fromPdfColor(p.color),
    opacity: p.opacity,
    creator: p.author,
    subject: p.subject,
    date: p.modified,
    creationDate: p.created,
    documentId: new DocumentIdRef({ id: documentId }),
    flags: flagsFromPdf(p.flags),
    contents: p.contents,
    replies: p.replies?.map((r) =>
      new AnnotationReply(defined({ id: r.name, creator: r.author, date: r.modified, contents: r.contents }))
    ),
    status: p.state,
    quadPoints: quads.length > 0 ? quads : undefined,
    points: p.vertices?.map((v) => pointOf(g, v)),
    lineEndings: p.lineEndings,
    inkList: p.inkList?.map((stroke) => stroke.map((v) => pointOf(g, v))),
    interiorColor: fromPdfColor(p.interiorColor),
    lineWidth: p.lineWidth,
    fontSize: p.fontSize,
    fontColor: fromPdfColor(p.fontColor),
    stampName: p.iconName,
    redactReason: p.overlayText,
    origin
  }))
}
