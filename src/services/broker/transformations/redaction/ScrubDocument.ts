/**
 * The second pass, after MuPDF (MupdfPass.ts): removes what MuPDF 1.21 keeps under the regions (line
 * art, shadings, replacement text, annotations), draws the fill boxes and drops unreferenced objects
 * (the unredacted originals). Pure CPU work with no platform service, so it can run on a worker thread.
 */
import { Effect } from "effect"
import { PDFBool, type PDFContext, PDFDict, PDFDocument, PDFName, type PDFPageLeaf, type PDFRef } from "pdf-lib"
import { dropUnreferenced, removeAnnotations, stripStructureText } from "./Cleanup.ts"
import { concat, latin1, num, point } from "./ContentBytes.ts"
import type { Box } from "./Geometry.ts"
import { flateStream, pageContent, pageList } from "./PageContent.ts"
import { type Fill, RedactionFailed, type RedactionRegion } from "./RedactionRequest.ts"
import { Resources } from "./Resources.ts"
import { scrubContent } from "./Scrubber.ts"

/** The PDF MuPDF wrote, loaded, with the regions scrubbed on every page that has one. */
export const scrubDocument = (
  pdf: Uint8Array,
  regions: ReadonlyArray<RedactionRegion>,
  fill: Fill
): Effect.Effect<PDFDocument, RedactionFailed> =>
  Effect.gen(function*() {
    const doc = yield* Effect.tryPromise({
      try: () => PDFDocument.load(pdf, { updateMetadata: false }),
      catch: (error) => new RedactionFailed({ message: `The redacted PDF cannot be read back: ${String(error)}` })
    })
    if (doc.catalog.get(PDFName.of("NeedsRendering")) === PDFBool.True) {
      return yield* new RedactionFailed({
        message:
          "The PDF is a dynamic XFA form: its pages are drawn from the form's data, which regions on pages cannot redact"
      })
    }
    const pages = yield* pageList(doc)
    const byPage = new Map<number, Array<Box>>()
    for (const { page, rect } of regions) byPage.set(page, [...(byPage.get(page) ?? []), rect])
    const affectedContent = new Map<PDFRef, Set<number>>()
    // One page per step, so a timeout or an interruption can stop the work between pages.
    yield* Effect.forEach(byPage, ([index, boxes]) =>
      Effect.try({
        try: () => {
          const page = pages[index]!
          affectedContent.set(page.ref, scrubPage(doc.context, page.node, boxes, fill))
          removeAnnotations(doc, page.node, boxes)
        },
        catch: (error) =>
          new RedactionFailed({
            message: `Page ${index + 1} cannot be redacted: ${error instanceof Error ? error.message : String(error)}`
          })
      }), { discard: true })
    const structTree = doc.catalog.lookupMaybe(PDFName.of("StructTreeRoot"), PDFDict)
    if (structTree !== undefined && [...affectedContent.values()].some((ids) => ids.size > 0)) {
      stripStructureText(doc.context, structTree, affectedContent)
    }
    // XFA data repeats field values outside the pages; MuPDF and pdf.js show the AcroForm anyway.
    doc.catalog.lookupMaybe(PDFName.of("AcroForm"), PDFDict)?.delete(PDFName.of("XFA"))
    dropUnreferenced(doc.context)
    return doc
  })

/** Rewrites a page's content into one stream; returns the marked-content IDs whose replacement text must go. */
const scrubPage = (ctx: PDFContext, page: PDFPageLeaf, regions: ReadonlyArray<Box>, fill: Fill): Set<number> => {
  const resources = new Resources(ctx, page.Resources())
  const result = scrubContent(ctx, regions, pageContent(page), resources)
  // The page's own content is wrapped so that the boxes are drawn in the page's default space.
  const boxes = fill === null
    ? ""
    : `q ${fill.map(num).join(" ")} rg ${
      regions.map(([x1, y1, x2, y2]) => `${point([x1, y1])} ${num(x2 - x1)} ${num(y2 - y1)} re`).join(" ")
    } f Q\n`
  const content = concat([latin1("q\n"), result.bytes, latin1(`\n${"Q\n".repeat(result.openStates + 1)}${boxes}`)])
  page.set(PDFName.of("Contents"), ctx.register(flateStream(PDFDict.withContext(ctx), content)))
  const modified = resources.modified()
  if (modified !== undefined) page.set(PDFName.of("Resources"), modified)
  // Thumbnails and application data (Illustrator keeps the whole original artwork there) show what was removed.
  page.delete(PDFName.of("Thumb"))
  page.delete(PDFName.of("PieceInfo"))
  return result.affectedMcids
}
