/**
 * How an answer about a document cites it: the model is asked to mark each page it uses as
 * `[p. N]`; the answer's citations are those pages with the passages the document tools gave from
 * them (their text and box on the page). An answer that marks no page cites every page the tools
 * read for it.
 */
import type { Citation } from "../../../schemas/gateway/Tools.ts"
import type { DocumentSource } from "./GatewayTool.ts"

/** The system message of a conversation about a document. */
export const DOCUMENT_INSTRUCTIONS =
  "This conversation is about a document, which the document_* tools read. Base your answers on what they return, " +
  "and cite each page you use as [p. N] (pages are numbered from 1)."

/** The pages an answer marks: `[p. 3]`, `[p. 3, 5]`, `[pp. 3-4]`, `[page 3]`. */
export const citedPages = (answer: string): Set<number> => {
  const pages = new Set<number>()
  for (const [, list] of answer.matchAll(/\[(?:pp?\.|pages?)\s*([\d\s,–-]+)\]/gi)) {
    for (const piece of list!.split(",")) {
      const [from, to] = piece.split(/[–-]/).map((n) => Number.parseInt(n.trim(), 10))
      if (from === undefined || Number.isNaN(from)) continue
      const last = to === undefined || Number.isNaN(to) ? from : Math.min(to, from + 1000)
      for (let page = from; page <= last; page++) pages.add(page)
    }
  }
  return pages
}

/** The citations of `answer`, from what the tools returned; pages in the order the tools first gave them. */
export const citationsOf = (answer: string, sources: ReadonlyArray<DocumentSource>): Array<Citation> => {
  const marked = citedPages(answer)
  const byPage = new Map<
    string,
    { documentId: string; pageNumber: number; passages: Array<Citation["passages"][number]> }
  >()
  for (const source of sources) {
    if (marked.size > 0 && !marked.has(source.pageNumber)) continue
    const key = `${source.documentId}\u0000${source.pageNumber}`
    const citation = byPage.get(key) ?? { documentId: source.documentId, pageNumber: source.pageNumber, passages: [] }
    byPage.set(key, citation)
    const passage = source.passage
    if (
      passage !== undefined &&
      !citation.passages.some((p) =>
        p.text === passage.text && p.position.x === passage.position.x && p.position.y === passage.position.y
      )
    ) citation.passages.push(passage)
  }
  return [...byPage.values()]
}
