/**
 * downloadServlet/mergedWithCompareResult (docs/viewer.md "Comparison result"): one PDF with the
 * pages of both documents, the text they share highlighted green and the text that differs red.
 * Built from broker calls only: the broker's word-level text difference says what changed and
 * where, the pages' text positions where every word is, and a transformation order merges both
 * documents' pages with those highlights, downloaded with them drawn into the pages.
 */
import { Effect } from "effect"
import { Annotation, Annotations, Color } from "../../../schemas/broker/Annotations.ts"
import type { TextChange } from "../../../schemas/broker/Comparisons.ts"
import { Rect, type TextPosition } from "../../../schemas/broker/Content.ts"
import { DocumentIdRef } from "../../../schemas/broker/Document.ts"
import {
  TransformationDetail,
  TransformationElement,
  TransformationRequest
} from "../../../schemas/broker/Transformations.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"
import { downloadedFile } from "../documents/DownloadedFile.ts"
import { pagedDocumentOf } from "../documents/PageCount.ts"
import { transform } from "../documents/TransformationOrders.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"
import { type Box, changedWords, lines, union, type Word, wordsOf } from "./PageWords.ts"

/** Text both documents have. */
export const COMMON_COLOR = new Color({ r: 0, g: 200, b: 0 })
/** Text one document has and the other does not (deleted on the left, inserted on the right). */
export const CHANGED_COLOR = new Color({ r: 255, g: 0, b: 0 })

/** A document by its broker ID and by its viewer ID. */
type Named = readonly [brokerId: string, viewerId: string]

/** How many pages' text positions are asked for at once. */
const PAGE_CONCURRENCY = 4

/** One highlight per line (run) of `words`, in `color`, on `page` of `documentId`. */
const highlights = (documentId: string, page: number, words: ReadonlyArray<Word>, color: Color) =>
  lines(words).map((line) =>
    new Annotation({
      type: "Highlight",
      page,
      position: union(line.map((w) => w.box)),
      quadPoints: line.map((w) => new Rect(w.box)),
      color,
      documentId: new DocumentIdRef({ id: documentId }),
      subject: color === COMMON_COLOR ? "Common text" : "Changed text"
    })
  )

/**
 * The highlights of one side: red over each change's words on their page, green over every other
 * word of every page.
 */
export const sideHighlights = (
  documentId: string,
  pages: ReadonlyArray<ReadonlyArray<TextPosition>>,
  changes: ReadonlyArray<{ readonly text: string; readonly pageNumber: number; readonly position: Box }>
) =>
  pages.flatMap((runs, page) => {
    const words = wordsOf(runs)
    const changed = new Set(
      changes.filter((c) => c.pageNumber === page && c.text !== "").flatMap((c) =>
        changedWords(words, c.text, c.position)
      )
    )
    return [
      ...highlights(documentId, page, words.filter((w) => changed.has(w)), CHANGED_COLOR),
      ...highlights(documentId, page, words.filter((w) => !changed.has(w)), COMMON_COLOR)
    ]
  })

export class CompareResult extends Effect.Service<CompareResult>()("docstack/viewer/CompareResult", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess

    /** A document's title and the text positions of each of its pages. */
    const pagesOf = (client: BrokerClient, documentId: string, viewerId: string) =>
      Effect.gen(function*() {
        const { metadata, pageCount } = yield* pagedDocumentOf(client, documentId, viewerId, "Compare")
        const pages = yield* Effect.forEach(
          Array.from({ length: pageCount }, (_, page) => page),
          (page) =>
            Effect.map(client.documents.pageTextPositions({ path: { documentId, page } }), (t) => t.positionTextList),
          { concurrency: PAGE_CONCURRENCY }
        )
        return { title: metadata.documentTitle ?? viewerId, pages }
      })

    const build = (client: BrokerClient, [left, leftViewerId]: Named, [right, rightViewerId]: Named) =>
      Effect.gen(function*() {
        const [leftDoc, rightDoc] = yield* Effect.all(
          [pagesOf(client, left, leftViewerId), pagesOf(client, right, rightViewerId)],
          { concurrency: 2 }
        )
        const difference = yield* client.comparisons.difference({
          urlParams: { leftDocumentId: left, rightDocumentId: right }
        }).pipe(
          // Declared for the comparisons' group as a whole (its orders); the difference has none.
          Effect.catchTag("OrderNotFound", (error) => Effect.die(error))
        )
        const sides = (pick: (change: TextChange) => TextChange["left"]) =>
          difference.textChanges.flatMap((change) => {
            const side = pick(change)
            return side === null ? [] : [side]
          })
        const title = `Comparison of ${leftDoc.title} and ${rightDoc.title}`.slice(0, 1000)
        const resultId = yield* transform(
          client,
          new TransformationRequest({
            format: "pdf",
            transformationDetails: [
              new TransformationDetail({
                documentTitle: title,
                transformationElements: [
                  new TransformationElement({ documentId: left, documentTitle: leftDoc.title }),
                  new TransformationElement({ documentId: right, documentTitle: rightDoc.title })
                ]
              })
            ],
            annotations: new Annotations({
              annotations: [
                ...sideHighlights(left, leftDoc.pages, sides((c) => c.left)),
                ...sideHighlights(right, rightDoc.pages, sides((c) => c.right))
              ]
            })
          })
        )
        const [bytes, response] = yield* client.documents.file({
          path: { documentId: resultId },
          urlParams: { format: "pdf", annotations: "flatten" },
          withResponse: true
        }).pipe(
          // The merged document was only a means: the answer is the file.
          Effect.ensuring(client.documents.remove({ path: { documentId: resultId } }).pipe(Effect.ignore))
        )
        return downloadedFile(bytes, response)
      })

    return {
      /** Both documents' pages, left's then right's, highlighted: the PDF, named after the comparison. */
      compare: (left: string, right: string) =>
        Effect.flatMap(
          access.brokerId(right),
          (rightId) => access.onDocument(left, (client, leftId) => build(client, [leftId, left], [rightId, right]))
        )
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
