/**
 * documentLayout, flatDocumentLayout and pageContent: the broker's answers with the viewer's
 * document IDs in place of the broker's (docs/viewer.md "Document structure").
 */
import { Effect } from "effect"
import {
  type DocumentContainer,
  DocumentIdRef,
  type DocumentLayout,
  type DocumentReference
} from "../../../schemas/broker/Document.ts"
import {
  type ViewerContainer,
  ViewerDocumentReference,
  ViewerPageContent,
  ViewerPageLayout,
  ViewerTextPosition
} from "../../../schemas/viewer/Servlets.ts"
import { DocumentAccess, pageMustExist } from "../documents/DocumentAccess.ts"

/** How many parts' layouts a flat layout asks for at once. */
const PART_CONCURRENCY = 4

export class DocumentStructure extends Effect.Service<DocumentStructure>()("docstack/viewer/DocumentStructure", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess
    const { ids } = access

    const entryOf = (document: DocumentLayout | DocumentReference) => ({
      documentId: new DocumentIdRef({ id: ids.encode(document.documentId) }),
      documentTitle: document.documentTitle,
      mimeType: document.mimeType
    })
    const containerOf = (container: DocumentContainer): ViewerContainer => ({
      type: container.type,
      ...entryOf(container),
      children: container.children.map((child) =>
        "children" in child
          ? containerOf(child)
          : new ViewerDocumentReference({ type: child.type, ...entryOf(child) })
      )
    })
    /** The layout in the viewer contract's shape (`documentId: {id}`), with the viewer's IDs, parts' too. */
    const withViewerIds = (layout: DocumentLayout): ViewerPageLayout | ViewerContainer =>
      "children" in layout
        ? containerOf(layout)
        : new ViewerPageLayout({ type: layout.type, ...entryOf(layout), pageDimensionsList: layout.pageDimensionsList })

    const brokerLayout = (brokerId: string) =>
      access.onBrokerDocument(brokerId, (client) => client.documents.layout({ path: { documentId: brokerId } }))

    /**
     * Every page of a document in order, parts depth-first: the leaf document's broker ID, the
     * page's index in it, its rotation and its width over height as shown.
     */
    const pagesOf = (
      brokerId: string
    ): Effect.Effect<
      ReadonlyArray<{ documentId: string; page: number; rotation: number; aspect: number }>,
      Effect.Effect.Error<ReturnType<typeof brokerLayout>>
    > =>
      Effect.flatMap(brokerLayout(brokerId), (layout) =>
        "children" in layout
          ? Effect.map(
            Effect.forEach(layout.children, (child) => pagesOf(child.documentId), { concurrency: PART_CONCURRENCY }),
            (parts) => parts.flat()
          )
          : Effect.succeed(
            layout.pageDimensionsList.map((page, index) => {
              const turned = page.rotation % 180 !== 0
              const aspect = turned ? page.height / page.width : page.width / page.height
              return { documentId: layout.documentId, page: index, rotation: page.rotation, aspect }
            })
          ))

    return {
      layout: (viewerId: string) =>
        Effect.flatMap(
          access.brokerId(viewerId),
          (brokerId) => Effect.map(brokerLayout(brokerId), (layout) => ({ brokerId, layout: withViewerIds(layout) }))
        ),

      /** `<document ID>/<page>|<rotation>|<width/height>` per page (docs/viewer.md "Flat layout"). */
      flatLayout: (viewerId: string) =>
        Effect.flatMap(
          access.brokerId(viewerId),
          (brokerId) =>
            Effect.map(pagesOf(brokerId), (pages) =>
              pages.map((p) =>
                `${ids.encode(p.documentId)}/${p.page}|${p.rotation}|${Number(p.aspect.toFixed(6))}`
              ))
        ),

      pageContent: (viewerId: string, page: number) =>
        access.onDocument(viewerId, (client, documentId) =>
          Effect.map(
            client.documents.pageTextPositions({ path: { documentId, page } }),
            (text) =>
              new ViewerPageContent({
                pageNumber: text.pageNumber,
                positionTextList: text.positionTextList.map((run) =>
                  new ViewerTextPosition({
                    pageNumber: run.pageNumber,
                    position: run.position,
                    text: run.text,
                    individualWidths: run.individualWidths,
                    fontSize: run.fontSize,
                    font: run.font,
                    paragraphId: run.paragraphId,
                    rightToLeftText: run.rightToLeftText,
                    startTime: 0,
                    rotation: run.rotation
                  })
                ),
                imageHyperlinkPositionList: text.imageHyperlinkPositionList
              })
          )).pipe(pageMustExist(viewerId))
    }
  }),
  dependencies: [DocumentAccess.Default]
}) {}
