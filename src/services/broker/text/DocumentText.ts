/**
 * A document's text as the broker serves it: a page's text with positions (kept in the derived
 * cache, and read ahead for a page just drawn: see `readAhead`), and search in a page, across the
 * document, or for the pages that contain a text.
 */
import { Effect, Option } from "effect"
import {
  DocumentSearchResult,
  PagesContainingText,
  PageSearchResult,
  type SearchOptions
} from "../../../schemas/broker/Content.ts"
import { DocumentIdRef, InvalidRequest } from "../../../schemas/broker/Document.ts"
import { DerivedCache } from "../../common/DerivedCache.ts"
import { makeMemoryCache } from "../../common/MemoryCache.ts"
import { DocumentResolver, processingFailed } from "../documents/DocumentResolver.ts"
import { PAGE_TEXT_ENGINE } from "../engine/PageEngine.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import type { PdfSource } from "../engine/PdfRequest.ts"
import type { DocumentRecord } from "../registry/DocumentRegistry.ts"
import { ExtractText, SearchPages } from "./TextRequests.ts"
import { compilePattern, InvalidSearchPattern } from "./TextSearch.ts"

const utf8 = new TextEncoder()
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/** A kept array of runs as written (a rename puts whole files in place; anything else is computed again). */
const isRunArray = (bytes: Uint8Array) =>
  bytes.length >= 2 && bytes[0] === OPEN_BRACKET && bytes[bytes.length - 1] === CLOSE_BRACKET

/** The PageText answer around the JSON of its runs, as the schema encodes it, without decoding them. */
const pageTextBody = (page: number, runs: Uint8Array) => {
  const head = utf8.encode(`{"pageNumber":${page},"positionTextList":`)
  const tail = utf8.encode(`,"imageHyperlinkPositionList":[]}`)
  const body = new Uint8Array(head.length + runs.length + tail.length)
  body.set(head, 0)
  body.set(runs, head.length)
  body.set(tail, head.length + runs.length)
  return body
}

export class DocumentText extends Effect.Service<DocumentText>()("docstack/DocumentText", {
  scoped: Effect.gen(function*() {
    const resolver = yield* DocumentResolver
    const derived = yield* DerivedCache
    const engine = yield* PdfEngine

    /**
     * The JSON of a page's runs, from the derived cache or read by the engine and kept there. Nothing
     * is kept in memory: the cache only shares a reading, so that a request that comes while the
     * page is being read ahead waits for that reading instead of starting its own.
     */
    const runs = yield* makeMemoryCache({
      capacity: 0,
      weigh: (json: Uint8Array) => json.byteLength,
      lookup: (key: string) => {
        const { page, ...pdf } = JSON.parse(key) as PdfSource & { readonly page: number }
        const name = `t${page}_${PAGE_TEXT_ENGINE}.json`
        return derived.get(pdf.hash, name).pipe(
          Effect.map(Option.filter(isRunArray)),
          Effect.flatMap(Option.match({
            onSome: Effect.succeed,
            onNone: () =>
              engine.run(new ExtractText({ ...pdf, page })).pipe(
                Effect.map((json) => utf8.encode(json)),
                Effect.tap((json) => derived.put(pdf.hash, name, json))
              )
          }))
        )
      }
    })
    const runsOf = (pdf: PdfSource, page: number) => runs.get(JSON.stringify({ hash: pdf.hash, path: pdf.path, page }))

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
      /**
       * A page's text positions: the JSON body of a PageText. The runs are kept in the derived cache
       * as the worker wrote them (the JSON of an array of TextPosition) and answered as they are,
       * neither decoded nor encoded again on the way out.
       */
      pageText: Effect.fn("DocumentText.pageText")(function*(documentId: string, page: number) {
        const doc = yield* resolver.ready(documentId)
        yield* resolver.checkPage(doc, page)
        const pdf = yield* resolver.pdfOf(doc)
        return pageTextBody(page, yield* runsOf(pdf, page).pipe(Effect.mapError(processingFailed(doc.id))))
      }),

      /**
       * Reads a page's text positions into the derived cache, unless kept there already. PageImages
       * calls it for a page it has just drawn when the engine has nothing else to do: the viewer
       * asks for a page's text once its image has come, and then finds it read.
       */
      readAhead: (pdf: PdfSource, page: number) => Effect.ignore(runsOf(pdf, page)),

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
