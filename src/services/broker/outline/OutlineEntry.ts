/**
 * Bookmarks (the PDF outline) of documents a transformation builds: the sources' bookmarks that
 * point at pages the result takes, moved to where those pages landed. Outline.ts writes them. Apart
 * from it, so that the requests that carry them (TransformRequests.ts) load no pdf-lib: a worker
 * thread loads it only for the first request that needs it (engine/FeatureHandlers.ts).
 */
import { Schema } from "effect"
import type { Bookmark } from "../../../schemas/broker/Content.ts"

export interface OutlineEntry {
  readonly title: string
  /** 0-based page of the result. */
  readonly page: number
  /** Where the page opens: y in PDF user space; absent, the whole page is shown (/Fit). */
  readonly top?: number | undefined
  readonly open: boolean
  readonly children: ReadonlyArray<OutlineEntry>
}

export const OutlineEntry: Schema.Schema<OutlineEntry> = Schema.Struct({
  title: Schema.String,
  page: Schema.Int,
  top: Schema.optional(Schema.Number),
  open: Schema.Boolean,
  children: Schema.Array(Schema.suspend((): Schema.Schema<OutlineEntry> => OutlineEntry))
})

/**
 * The bookmarks of a source moved onto a result: `pageOf` gives the result page of a source page
 * (undefined: not taken), `topOf` the user-space y of a bookmark's displayed position on its source
 * page. A bookmark whose page is not taken goes; its children that are taken move up in its place.
 */
export const moveBookmarks = (
  bookmarks: ReadonlyArray<Bookmark>,
  pageOf: (sourcePage: number) => number | undefined,
  topOf: (bookmark: Bookmark) => number | undefined
): Array<OutlineEntry> =>
  bookmarks.flatMap((bookmark) => {
    const children = moveBookmarks(bookmark.children, pageOf, topOf)
    const page = bookmark.page >= 0 ? pageOf(bookmark.page) : undefined
    return page === undefined
      ? children
      : [{ title: bookmark.title, page, top: topOf(bookmark), open: bookmark.nodeOpen, children }]
  })
