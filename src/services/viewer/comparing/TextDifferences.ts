/**
 * GET difference (docs/viewer.md "The browser viewer's JSON routes"): the broker's word-level text
 * difference of two documents, each side of each change boxed line by line, so that a browser
 * showing both side by side can highlight exactly the changed words. The broker gives a change's
 * text and the union of its boxes on its first page; the words come from that page's text
 * positions, as for the comparison PDF (PageWords.ts), asked only for the pages with changes.
 */
import { Effect } from "effect"
import type { TextSide } from "../../../schemas/broker/Comparisons.ts"
import {
  ChangedText,
  ComparedDocument,
  TextChangeView,
  TextDifference
} from "../../../schemas/viewer/TextDifference.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"
import { pagedDocumentOf } from "../documents/PageCount.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"
import { changedWords, lines, union, type Word, wordsOf } from "./PageWords.ts"

/** How many pages' text positions are asked for at once. */
const PAGE_CONCURRENCY = 4

/** The words of each page of `documentId` that a change stands on. */
const wordsOfPages = (client: BrokerClient, documentId: string, sides: ReadonlyArray<TextSide | null>) =>
  Effect.map(
    Effect.forEach(
      new Set(sides.flatMap((side) => (side === null || side.text.trim() === "" ? [] : [side.pageNumber]))),
      (page) =>
        Effect.map(
          client.documents.pageTextPositions({ path: { documentId, page } }),
          (text) => [page, wordsOf(text.positionTextList)] as const
        ),
      { concurrency: PAGE_CONCURRENCY }
    ),
    (pages) => new Map<number, ReadonlyArray<Word>>(pages)
  )

/** One side of a change as the browser draws it; null when it holds no words. */
const sideOf = (side: TextSide | null, words: ReadonlyMap<number, ReadonlyArray<Word>>) =>
  side === null || side.text.trim() === ""
    ? null
    : new ChangedText({
      text: side.text,
      pageNumber: side.pageNumber,
      rects: lines(changedWords(words.get(side.pageNumber) ?? [], side.text, side.position)).map((line) =>
        union(line.map((word) => word.box))
      )
    })

export class TextDifferences extends Effect.Service<TextDifferences>()("docstack/viewer/TextDifferences", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess

    const comparedOf = (client: BrokerClient, documentId: string, viewerId: string) =>
      Effect.map(
        pagedDocumentOf(client, documentId, viewerId, "Compare"),
        ({ metadata, pageCount }) => new ComparedDocument({ uuid: viewerId, title: metadata.documentTitle, pageCount })
      )

    return {
      /** The changes from `left` to `right`, on the left document's broker. */
      difference: Effect.fn("TextDifferences.difference")((left: string, right: string) =>
        Effect.flatMap(
          access.brokerId(right),
          (rightId) =>
            access.onDocument(left, (client, leftId) =>
              Effect.gen(function*() {
                const [leftDocument, rightDocument] = yield* Effect.all([
                  comparedOf(client, leftId, left),
                  comparedOf(client, rightId, right)
                ], { concurrency: 2 })
                const { textChanges } = yield* client.comparisons.difference({
                  urlParams: { leftDocumentId: leftId, rightDocumentId: rightId }
                }).pipe(
                  // Declared for the comparisons' group as a whole (its orders); the difference has none.
                  Effect.catchTag("OrderNotFound", (error) => Effect.die(error))
                )
                const [leftWords, rightWords] = yield* Effect.all([
                  wordsOfPages(client, leftId, textChanges.map((change) => change.left)),
                  wordsOfPages(client, rightId, textChanges.map((change) => change.right))
                ], { concurrency: 2 })
                return new TextDifference({
                  left: leftDocument,
                  right: rightDocument,
                  changes: textChanges.map((change) =>
                    new TextChangeView({
                      type: change.changeType,
                      left: sideOf(change.left, leftWords),
                      right: sideOf(change.right, rightWords)
                    })
                  )
                })
              }))
        )
      )
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
