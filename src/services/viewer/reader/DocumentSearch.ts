/**
 * search: the broker's search over a range of pages, as hits with one box per line
 * (docs/viewer.md "The browser viewer's JSON routes"). A browser asks in chunks of pages, so that
 * hits show while later pages are still searched; VIEWER_SEARCH_MAX_PAGES bounds one chunk.
 */
import { Config, Effect } from "effect"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import { type SearchParams, ViewerSearchResult } from "../../../schemas/viewer/Reader.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"
import { pagedDocumentOf } from "../documents/PageCount.ts"
import { searchHits } from "./SearchHits.ts"

export const searchMaxPagesConfig = Config.integer("VIEWER_SEARCH_MAX_PAGES").pipe(
  Config.withDefault(500),
  Config.validate({ message: "VIEWER_SEARCH_MAX_PAGES must be at least 1", validation: (n) => n >= 1 })
)

export class DocumentSearch extends Effect.Service<DocumentSearch>()("docstack/viewer/DocumentSearch", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess
    const maxPages = yield* searchMaxPagesConfig

    /** The pages to search, checked against the document's `pageCount` before the broker searches. */
    const rangeOf = (params: SearchParams, pageCount: number) => {
      const last = pageCount - 1
      const toPage = Math.min(params.toPage ?? last, last)
      const invalid = (message: string) => Effect.fail(new InvalidRequest({ message }))
      if (params.fromPage > last) {
        return invalid(`fromPage ${params.fromPage} is past the last page: the document has pages 0 to ${last}`)
      }
      if (toPage < params.fromPage) return invalid(`toPage ${toPage} is before fromPage ${params.fromPage}`)
      if (toPage - params.fromPage + 1 > maxPages) {
        return invalid(
          `One search covers at most ${maxPages} pages (VIEWER_SEARCH_MAX_PAGES): ask for pages ${params.fromPage} to ${
            params.fromPage + maxPages - 1
          }, then the next ones`
        )
      }
      return Effect.succeed({ fromPage: params.fromPage, toPage })
    }

    return {
      search: Effect.fn("DocumentSearch.search")((params: SearchParams) =>
        access.onDocument(params.uuid, (client, documentId) =>
          Effect.gen(function*() {
            const { pageCount } = yield* pagedDocumentOf(client, documentId, params.uuid, "Search")
            const range = yield* rangeOf(params, pageCount)
            const found = yield* client.documents.searchDocument({
              path: { documentId },
              urlParams: {
                searchText: params.searchText,
                caseSensitive: params.caseSensitive,
                accentSensitive: params.accentSensitive,
                regex: params.regex,
                ...range
              }
            })
            return new ViewerSearchResult({
              searchText: params.searchText,
              ...range,
              pageCount,
              hits: searchHits(params, found.pagesResults)
            })
          }))
      )
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
