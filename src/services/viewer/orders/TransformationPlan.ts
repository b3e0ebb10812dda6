/**
 * What a transformation of the browser viewer takes from its parts (docs/viewer.md "The browser
 * viewer's JSON routes"): the result's pages, and how the annotations of the parts' documents go
 * with them. Annotations read from the PDF file (`origin: "file"`) are left to the pages, which
 * carry them already.
 */
import { Annotation } from "../../../schemas/broker/Annotations.ts"
import type { Rect } from "../../../schemas/broker/Content.ts"
import type { ViewerAnnotation } from "../../../schemas/viewer/ViewerAnnotation.ts"
import { toBroker } from "../annotations/AnnotationStores.ts"

/** A part of the result: a document (broker ID) and its page ranges, none for every page. */
export interface PlannedPart {
  readonly documentId: string
  readonly pages?: ReadonlyArray<{ readonly from: number; readonly to: number }> | undefined
}

/** A page of the result: the document it comes from and its 0-based page there. */
export interface SourcePage {
  readonly documentId: string
  readonly page: number
}

/** The result's pages in order: each part's ranges in the order listed, both ends included. */
export const resultPages = (
  parts: ReadonlyArray<PlannedPart>,
  pageCounts: ReadonlyMap<string, number>
): ReadonlyArray<SourcePage> =>
  parts.flatMap(({ documentId, pages }) =>
    (pages !== undefined && pages.length > 0 ? pages : [{ from: 0, to: pageCounts.get(documentId)! - 1 }]).flatMap((
      span
    ) => Array.from({ length: span.to - span.from + 1 }, (_, k) => ({ documentId, page: span.from + k })))
  )

const isRedaction = (a: ViewerAnnotation) => a.type === "Redact" || a.type === "RedactText"

/** What a redaction mark covers: its marked pieces (RedactText), else its rectangle. */
const areasOf = (mark: ViewerAnnotation): ReadonlyArray<Rect> =>
  mark.type === "RedactText" && mark.quadPoints !== undefined && mark.quadPoints.length > 0
    ? mark.quadPoints
    : [mark.position]

const overlap = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h

/** The annotation without its ID (the result names its annotations itself), as the broker takes it. */
const unnamed = ({ id: _, ...annotation }: ViewerAnnotation, documentId?: string) => toBroker(annotation, documentId)

export interface AnnotationPlan {
  /** For the transformation request, each naming its source document: written into the result, redactions applied. */
  readonly written: ReadonlyArray<Annotation>
  /** Redaction marks to keep as marks: stored on the result once it exists, each on its result page. */
  readonly marks: ReadonlyArray<Annotation>
}

/**
 * How the annotations of each source document (`annotationsOf`, by broker ID) go into a result
 * made of `pages`. With `redact`, the redaction marks (the file's own too) are applied for real and
 * an annotation overlapping one on its page is left out: a note over redacted text could tell what
 * it hid. Without, the marks stay marks: a transformation would apply them, so they are kept apart
 * to be stored on the result, on every page made from theirs.
 */
export const planAnnotations = (
  annotationsOf: ReadonlyMap<string, ReadonlyArray<ViewerAnnotation>>,
  pages: ReadonlyArray<SourcePage>,
  redact: boolean
): AnnotationPlan => {
  const written: Array<Annotation> = []
  const marks: Array<Annotation> = []
  for (const [documentId, annotations] of annotationsOf) {
    const redactions = annotations.filter(isRedaction)
    const redacted = (a: ViewerAnnotation) =>
      redactions.some((mark) => mark.page === a.page && areasOf(mark).some((area) => overlap(area, a.position)))
    for (const a of annotations) {
      if (isRedaction(a) && redact) {
        written.push(unnamed(a, documentId))
      } else if (isRedaction(a) && a.origin !== "file") {
        pages.forEach((p, page) => {
          if (p.documentId === documentId && p.page === a.page) marks.push(new Annotation({ ...unnamed(a), page }))
        })
      } else if (!isRedaction(a) && a.origin !== "file" && !(redact && redacted(a))) {
        written.push(unnamed(a, documentId))
      }
    }
  }
  return { written, marks }
}
