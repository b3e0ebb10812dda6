/**
 * printServlet and printPage: HTML pages of a document's page images for the browser to print
 * (docs/viewer.md "Printing"). The page count and sizes come from the broker's layout; the images
 * themselves are fetched by the browser from imageServlet (or cropImageServlet for a turned page).
 */
import { Effect } from "effect"
import { type DocumentPageLayout, InvalidRequest } from "../../../schemas/broker/Document.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"
import { previewHtml, printPagesHtml, type PrintSheet } from "./PrintHtml.ts"
import { parsePageList, parsePrintDesc, parsePrintStyle, type PrintImage } from "./PrintRequest.ts"

/**
 * The relative URL of a page's image: imageServlet, or for an extra turn cropImageServlet with a
 * rectangle larger than any drawing (the broker clips it to the whole page).
 */
const imageUrl = (viewerId: string, page: number, image: PrintImage) => {
  const query = new URLSearchParams({ uuid: viewerId, pagePosition: String(page) })
  if (image.rotation === 0) {
    query.set("desc", String(image.width))
    return `imageServlet?${query}`
  }
  query.set("locale", "en")
  query.set("desc", `width=${image.width};x=0;y=0;w=999999;h=999999;rotation=${image.rotation}`)
  return `cropImageServlet?${query}`
}

const sheetsOf = (viewerId: string, layout: DocumentPageLayout, pages: ReadonlyArray<number>, image: PrintImage) =>
  pages.map((page): PrintSheet => {
    const { height, rotation, width } = layout.pageDimensionsList[page]!
    const turned = (rotation + image.rotation) % 180 !== 0
    const ratio = turned ? width / height : height / width
    return {
      page,
      src: imageUrl(viewerId, page, image),
      width: image.width,
      height: Math.max(1, Math.round(image.width * ratio))
    }
  })

export class Printing extends Effect.Service<Printing>()("docstack/viewer/Printing", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess

    /** The document's page layout; a container has no pages of its own to print. */
    const pagesLayout = (viewerId: string) =>
      access.onDocument(viewerId, (client, documentId) => client.documents.layout({ path: { documentId } })).pipe(
        Effect.flatMap((layout) =>
          "children" in layout
            ? Effect.fail(
              new InvalidRequest({
                message:
                  "The document is a container (a folder, an email or an archive): print each of its parts by its own ID"
              })
            )
            : Effect.succeed(layout)
        )
      )

    const titleOf = (layout: DocumentPageLayout) => layout.documentTitle ?? "Document"

    return {
      preview: Effect.fn("Printing.preview")(function*(
        viewerId: string,
        desc: string,
        pages: string,
        imagePrintStyle: string | undefined
      ) {
        const image = yield* parsePrintDesc(desc)
        const style = yield* parsePrintStyle(imagePrintStyle)
        const layout = yield* pagesLayout(viewerId)
        const count = layout.pageDimensionsList.length
        const chosen = yield* parsePageList("pages", pages, count)
        return previewHtml(titleOf(layout), count, sheetsOf(viewerId, layout, chosen, image), style)
      }),

      /** `nbPages` is the page count the caller believes the document has: a mismatch is a 400, not a wrong print. */
      printPages: Effect.fn("Printing.printPages")(function*(
        viewerId: string,
        nbPages: number,
        renditionWidth: number,
        browserWidth: number,
        page: string
      ) {
        const layout = yield* pagesLayout(viewerId)
        const count = layout.pageDimensionsList.length
        if (nbPages !== count) {
          return yield* new InvalidRequest({
            message: `nbPages is ${nbPages} but the document has ${count} page${count === 1 ? "" : "s"}`
          })
        }
        const chosen = yield* parsePageList("page", page, count)
        return printPagesHtml(
          titleOf(layout),
          sheetsOf(viewerId, layout, chosen, { width: renditionWidth, rotation: 0 }),
          browserWidth
        )
      })
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
