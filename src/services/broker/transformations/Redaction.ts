/**
 * Redaction that removes content from the file, not a box drawn over it. Two passes:
 *
 * 1. MuPDF (`mutool run`, redaction/MupdfPass.ts) removes the glyphs under each region and replaces
 *    the covered pixels of images (and of their soft masks), copying forms and images other pages
 *    still use.
 * 2. redaction/ScrubDocument.ts goes over the redacted pages' content streams (and the forms they
 *    draw): MuPDF 1.21 keeps line art and shadings, so painted paths are cut at the regions (fills
 *    exactly, strokes where the stroke would reach in), shadings are dropped or clipped out, and
 *    replacement text (/ActualText, /Alt, /E) of marked content touching a region is deleted, in the
 *    content and in the structure tree. Annotations over a region go (a removed widget takes its field
 *    value along), the fill boxes are drawn, and every object nothing refers to any more (the
 *    unredacted originals) is dropped.
 *
 * Regions are in PDF user space of the unrotated page; the mutool script maps them to MuPDF's page
 * space (top left of the crop box, rotated, y down) with the page's own transform.
 */
import { Duration, Effect } from "effect"
import { mupdfPass } from "./redaction/MupdfPass.ts"
import {
  type Fill,
  RedactionFailed,
  type RedactionRegion,
  type RedactionSettings
} from "./redaction/RedactionRequest.ts"
import { scrubDocument } from "./redaction/ScrubDocument.ts"

export { RedactionFailed, type RedactionRegion, type RedactionSettings } from "./redaction/RedactionRequest.ts"

/** The PDF with every region's content removed for real. Pages without regions are left as they are. */
export const redact = Effect.fn("Redaction.redact")(function*(
  pdf: Uint8Array,
  regions: ReadonlyArray<RedactionRegion>,
  settings: RedactionSettings = {}
) {
  if (regions.length === 0) {
    yield* validate(regions, fillOf(settings))
    return pdf
  }
  const doc = yield* redactedDocument(pdf, regions, settings)
  return yield* Effect.tryPromise({
    try: () => doc.save({ addDefaultPage: false, updateFieldAppearances: false }),
    catch: (error) => new RedactionFailed({ message: `The redacted PDF cannot be written: ${String(error)}` })
  })
})

const fillOf = (settings: RedactionSettings): Fill => (settings.fill === undefined ? [0, 0, 0] : settings.fill)

/**
 * As `redact`, the result left loaded: for a caller that takes pages from it (a transformation),
 * which would otherwise parse again what was just written.
 */
export const redactedDocument = Effect.fn("Redaction.redactedDocument")(function*(
  pdf: Uint8Array,
  regions: ReadonlyArray<RedactionRegion>,
  settings: RedactionSettings = {}
) {
  const fill = fillOf(settings)
  yield* validate(regions, fill)
  const timeout = Duration.millis(settings.timeoutMs ?? 120_000)
  return yield* mupdfPass(pdf, regions).pipe(
    Effect.flatMap((redacted) => scrubDocument(redacted, regions, fill)),
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () =>
        new RedactionFailed({ message: `The redaction took longer than ${Duration.format(timeout)} and was stopped` })
    })
  )
})

const validate = (regions: ReadonlyArray<RedactionRegion>, fill: Fill) =>
  Effect.gen(function*() {
    if (fill !== null && !fill.every((c) => Number.isFinite(c) && c >= 0 && c <= 1)) {
      return yield* new RedactionFailed({
        message: `The fill colour must be three numbers from 0 to 1, not [${fill.join(", ")}]`
      })
    }
    for (const { page, rect } of regions) {
      if (!Number.isInteger(page) || page < 0) {
        return yield* new RedactionFailed({ message: `A region's page must be a page index from 0, not ${page}` })
      }
      const [x1, y1, x2, y2] = rect
      if ((rect as ReadonlyArray<number>).length !== 4 || !rect.every(Number.isFinite) || x1 > x2 || y1 > y2) {
        return yield* new RedactionFailed({
          message: `A region on page ${page + 1} must be [x1, y1, x2, y2] with x1 <= x2 and y1 <= y2, not [${
            rect.join(", ")
          }]`
        })
      }
    }
  })
