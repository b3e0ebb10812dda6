/**
 * A document's text as the broker serves it: a page's text with positions (kept in the derived
 * cache), and search in a page, across the document, or for the pages that contain a text.
 */
import { Effect, Schema } from "effect"
import {
  DocumentSearchResult,
  PagesContainingText,
  PageSearchResult,
  PageText,
  type SearchOptions,
  TextPosition
} from "../../../schemas/broker/Content.ts"
import { DocumentIdRef, InvalidRequest } from "../../../schemas/broker/Document.ts"
import { DerivedCache } from "../../common/DerivedCache.ts"
import { DocumentResolver, processingFailed } from "../documents/DocumentResolver.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import type { DocumentRecord } from "../registry/DocumentRegistry.ts"
import { compilePattern, InvalidSearchPattern } from "./Text.ts"
import { ExtractText, SearchPages } from "./TextRequests.ts"

export class DocumentText extends Effect.Service<DocumentText>()("docstack/DocumentText", {
  effect: Effect.gen(function*() {
    const resolver = yield* DocumentResolver
    const derived = yield* DerivedCache
    const engine = yield* PdfEngine

    /** Hits on `fromPage` to `toPage`; a pattern that does not compile is a 400 before any page is read. */
    const search = (doc: DocumentRecord, fromPage: number, toPage: number, options: SearchOptions) =>
      Effect.gen(function*() {
        yield* Effect.try({
          try: () => compilePattern(options),
          catch: (error) =>
            new InvalidRequest({ message: error instanceof InvalidSearchPattern ? error.message : String(error) })
        })
        const pdf = yield* resolver.pdfOf(doc)
        return yield* engine.run(new SearchPages({ ...pdf, fromPage, toPage, options })).pipe(
          Effect.mapError(processingFailed(doc.id))
        )
      })

    return {
      pageText: Effect.fn("DocumentText.pageText")(function*(documentId: string, page: number) {
        const doc = yield* resolver.ready(documentId)
        yield* resolver.checkPage(doc, page)
        const pdf = yield* resolver.pdfOf(doc)
        const runs = yield* derived.json(
          pdf.hash,
          `t${page}.json`,
          Schema.Array(TextPosition),
          engine.run(new ExtractText({ ...pdf, page })).pipe(Effect.mapError(processingFailed(doc.id)))
        )
        return new PageText({ pageNumber: page, positionTextList: runs, imageHyperlinkPositionList: [] })
      }),

      searchPage: Effect.fn("DocumentText.searchPage")(
        function*(documentId: string, page: number, options: SearchOptions) {
          const doc = yield* resolver.ready(documentId)
          yield* resolver.checkPage(doc, page)
          const results = yield* search(doc, page, page, options)
          return new PageSearchResult({ searchResults: results[0]?.hits ?? [] })
        }
      ),

      searchDocument: Effect.fn("DocumentText.searchDocument")(
        function*(documentId: string, fromPage: number, toPage: number | undefined, options: SearchOptions) {
          const doc = yield* resolver.ready(documentId)
          const pages = yield* resolver.pagesOf(doc)
          const last = Math.min(toPage ?? pages.length - 1, pages.length - 1)
          if (fromPage > last) {
            return yield* new InvalidRequest({
              message: `fromPage ${fromPage} is after the last page searched (${last}); pages run from 0 to ${
                pages.length - 1
              }`
            })
          }
          const results = yield* search(doc, fromPage, last, options)
          return new DocumentSearchResult({
            documentId: new DocumentIdRef({ id: doc.id }),
            searchText: options.searchText,
            searchStatus: "COMPLETED",
            lastPageSearched: last,
            pagesResults: Object.fromEntries(
              results.map((r) => [String(r.page), r.matches.map((positionText) => ({ positionText }))])
            )
          })
        }
      ),

      pagesContaining: Effect.fn("DocumentText.pagesContaining")(function*(documentId: string, options: SearchOptions) {
        const doc = yield* resolver.ready(documentId)
        const pages = yield* resolver.pagesOf(doc)
        const results = yield* search(doc, 0, pages.length - 1, options)
        return new PagesContainingText({
          uuid: new DocumentIdRef({ id: doc.id }),
          searchText: options.searchText,
          pageList: results.map((r) => r.page)
        })
      })
    }
  }),
  dependencies: [DocumentResolver.Default, DerivedCache.Default, PdfEngine.Default]
}) {}
