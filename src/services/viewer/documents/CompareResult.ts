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
import { DocumentIdRef, InvalidRequest } from "../../../schemas/broker/Document.ts"
import {
  TransformationDetail,
  TransformationElement,
  TransformationRequest
} from "../../../schemas/broker/Transformations.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"
import { DocumentAccess } from "./DocumentAccess.ts"
import { downloadedFile } from "./DownloadedFile.ts"
import { transform } from "./TransformationOrders.ts"

/** Text both documents have. */
export const COMMON_COLOR = new Color({ r: 0, g: 200, b: 0 })
/** Text one document has and the other does not (deleted on the left, inserted on the right). */
export const CHANGED_COLOR = new Color({ r: 255, g: 0, b: 0 })

/** How many pages' text positions are asked for at once. */
const PAGE_CONCURRENCY = 4

interface Box {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}

/** A word on a page: its text, its box, and the run (line) it belongs to. */
interface Word {
  readonly text: string
  readonly box: Box
  readonly run: number
}

/**
 * The words of a page's text runs, each cut from its run's box by the character widths (a run
 * turned or without one width per character stays one piece).
 */
export const wordsOf = (runs: ReadonlyArray<TextPosition>): ReadonlyArray<Word> =>
  runs.flatMap((run, index) => {
    const chars = Array.from(run.text)
    const p = run.position
    if (run.rotation !== 0 || run.rightToLeftText || run.individualWidths.length !== chars.length) {
      return run.text.trim() === "" ? [] : [{ text: run.text.trim(), box: p, run: index }]
    }
    const words: Array<Word> = []
    let x = p.x
    let start = -1
    let startX = 0
    chars.forEach((char, k) => {
      const blank = /\s/.test(char)
      if (!blank && start < 0) {
        start = k
        startX = x
      }
      x += run.individualWidths[k]!
      if (start >= 0 && (blank || k === chars.length - 1)) {
        const end = blank ? k : k + 1
        const right = blank ? x - run.individualWidths[k]! : x
        words.push({
          text: chars.slice(start, end).join(""),
          box: { x: startX, y: p.y, w: right - startX, h: p.h },
          run: index
        })
        start = -1
      }
    })
    return words
  })

const centreInside = (word: Box, area: Box) => {
  const cx = word.x + word.w / 2
  const cy = word.y + word.h / 2
  return cx >= area.x - 0.5 && cx <= area.x + area.w + 0.5 && cy >= area.y - 0.5 && cy <= area.y + area.h + 0.5
}

/**
 * The words of one side of a change: those whose centre lies in the change's box, narrowed to the
 * run of them that spells the change's text when the box (the union over several lines) holds
 * more.
 */
export const changedWords = (words: ReadonlyArray<Word>, text: string, area: Box): ReadonlyArray<Word> => {
  const inside = words.filter((word) => centreInside(word.box, area))
  const wanted = text.split(/\s+/).filter((w) => w !== "")
  for (let from = 0; inside.length > wanted.length && from + wanted.length <= inside.length; from++) {
    if (wanted.every((w, k) => inside[from + k]!.text === w)) return inside.slice(from, from + wanted.length)
  }
  return inside
}

const union = (boxes: ReadonlyArray<Box>): Rect => {
  const x0 = Math.min(...boxes.map((b) => b.x))
  const y0 = Math.min(...boxes.map((b) => b.y))
  const x1 = Math.max(...boxes.map((b) => b.x + b.w))
  const y1 = Math.max(...boxes.map((b) => b.y + b.h))
  return new Rect({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 })
}

/** One highlight per line (run) of `words`, in `color`, on `page` of `documentId`. */
const highlights = (documentId: string, page: number, words: ReadonlyArray<Word>, color: Color) => {
  const byRun = new Map<number, Array<Word>>()
  for (const word of words) byRun.set(word.run, [...(byRun.get(word.run) ?? []), word])
  return [...byRun.values()].map((line) =>
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
}

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
    const pagesOf = (client: BrokerClient, documentId: string) =>
      Effect.gen(function*() {
        const layout = yield* client.documents.layout({ path: { documentId } })
        if (!("pageDimensionsList" in layout)) {
          return yield* new InvalidRequest({
            message: `${documentId} is a composite document (an email or archive): compare its parts`
          })
        }
        const pages = yield* Effect.forEach(
          layout.pageDimensionsList,
          (_, page) =>
            Effect.map(client.documents.pageTextPositions({ path: { documentId, page } }), (t) => t.positionTextList),
          { concurrency: PAGE_CONCURRENCY }
        )
        return { title: layout.documentTitle ?? documentId, pages }
      })

    const build = (client: BrokerClient, left: string, right: string) =>
      Effect.gen(function*() {
        const difference = yield* client.comparisons.difference({
          urlParams: { leftDocumentId: left, rightDocumentId: right }
        }).pipe(
          // Declared for the comparisons' group as a whole (its orders); the difference has none.
          Effect.catchTag("OrderNotFound", (error) => Effect.die(error))
        )
        const [leftDoc, rightDoc] = yield* Effect.all([pagesOf(client, left), pagesOf(client, right)], {
          concurrency: 2
        })
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
          (rightId) => access.onDocument(left, (client, leftId) => build(client, leftId, rightId))
        )
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
