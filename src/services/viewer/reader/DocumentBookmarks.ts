/**
 * bookmarks: the document's outline as a browser scrolls to it (docs/viewer.md "The browser
 * viewer's JSON routes"). The broker resolves each entry's destination (named or explicit) to a
 * 0-based page, -1 for none, and its `textPosition` to the destination's top in points from the
 * displayed page's top (0 for a destination showing the whole page): the space of pageContent.
 */
import { Effect } from "effect"
import type { Bookmark } from "../../../schemas/broker/Content.ts"
import { type ViewerBookmark, ViewerBookmarks } from "../../../schemas/viewer/Reader.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"

const toViewerBookmark = (bookmark: Bookmark): ViewerBookmark => {
  const onPage = bookmark.page >= 0
  return {
    title: bookmark.title,
    pageNumber: onPage ? bookmark.page : null,
    top: onPage ? bookmark.textPosition : null,
    open: bookmark.nodeOpen,
    children: bookmark.children.map(toViewerBookmark)
  }
}

export class DocumentBookmarks extends Effect.Service<DocumentBookmarks>()("docstack/viewer/DocumentBookmarks", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess
    return {
      /** The outline; an empty list for a document without one. */
      bookmarks: Effect.fn("DocumentBookmarks.bookmarks")((viewerId: string) =>
        access.onDocument(viewerId, (client, documentId) =>
          Effect.map(
            client.documents.bookmarks({ path: { documentId } }),
            (outline) => new ViewerBookmarks({ bookmarks: outline.bookmarks.map(toViewerBookmark) })
          ))
      )
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
