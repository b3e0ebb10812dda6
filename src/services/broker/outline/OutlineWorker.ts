/**
 * Inside a PDF worker thread: bookmarks and named destinations (OutlineRequests.ts), each resolved
 * to its page and, for a destination with a top, its position in the displayed page. Read with
 * pdf.js, not PDFium: measured both ways, through the broker PDFium was level or slower, since the
 * upload's analysis has already parsed the document in pdf.js (docs/page-images.md, "Outline and
 * destinations").
 */
import type { WorkerRunner } from "@effect/platform"
import { Effect } from "effect"
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js"
import { Bookmark, NamedDestination } from "../../../schemas/broker/Content.ts"
import { attempt } from "../engine/PdfRequest.ts"
import { open } from "../engine/WorkerDocuments.ts"
import type { ReadDestinations, ReadOutline } from "./OutlineRequests.ts"

interface OutlineNode {
  readonly title: string
  readonly dest: string | ReadonlyArray<unknown> | null
  readonly url: string | null
  readonly newWindow?: boolean | undefined
  readonly count?: number | undefined
  readonly items: ReadonlyArray<OutlineNode>
}

/** A destination's 0-based page and, for XYZ/FitH targets, its top in displayed points. */
const resolveDest = async (doc: PDFDocumentProxy, dest: string | ReadonlyArray<unknown> | null) => {
  try {
    const explicit = typeof dest === "string" ? await doc.getDestination(dest) : dest
    if (!explicit || explicit.length === 0) return undefined
    const ref = explicit[0]
    const pageIndex = typeof ref === "number"
      ? ref
      : await doc.getPageIndex(ref as Parameters<PDFDocumentProxy["getPageIndex"]>[0])
    const kind = (explicit[1] as { name?: string } | undefined)?.name
    const y = kind === "XYZ" ? explicit[3] : kind === "FitH" || kind === "FitBH" ? explicit[2] : null
    let top = 0
    if (typeof y === "number") {
      const page = await doc.getPage(pageIndex + 1)
      top = Math.max(0, page.getViewport({ scale: 1 }).convertToViewportPoint(0, y)[1]!)
    }
    return { page: pageIndex, top: Math.round(top * 100) / 100 }
  } catch {
    return undefined
  }
}

const outlineToBookmarks = async (
  doc: PDFDocumentProxy,
  items: ReadonlyArray<OutlineNode>
): Promise<Array<Bookmark>> => {
  const result: Array<Bookmark> = []
  for (const item of items) {
    const target = await resolveDest(doc, item.dest)
    result.push({
      title: item.title,
      page: target?.page ?? -1,
      textPosition: target?.top ?? 0,
      nodeOpen: (item.count ?? 0) > 0,
      children: await outlineToBookmarks(doc, item.items),
      namedDestination: typeof item.dest === "string" ? item.dest : null,
      fileName: item.url ?? null,
      shouldOpenInNewWindow: item.newWindow ?? false
    })
  }
  return result
}

export const outlineHandlers: WorkerRunner.SerializedRunner.Handlers<ReadOutline | ReadDestinations> = {
  ReadOutline: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      return yield* attempt("Reading the outline", async () =>
        outlineToBookmarks(doc, ((await doc.getOutline()) ?? []) as unknown as ReadonlyArray<OutlineNode>))
    }),

  ReadDestinations: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      return yield* attempt("Reading named destinations", async () => {
        const destinations = await doc.getDestinations()
        const result: Array<NamedDestination> = []
        for (const name of Object.keys(destinations).sort()) {
          const target = await resolveDest(doc, destinations[name] as ReadonlyArray<unknown>)
          if (target) result.push(new NamedDestination({ name, page: target.page }))
        }
        return result
      })
    })
}
