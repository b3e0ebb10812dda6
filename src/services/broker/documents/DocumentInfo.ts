/**
 * What the broker tells of a document: its metadata, and its layout (the pages of a document, the
 * tree of parts of a composite one).
 */
import { Effect, Option } from "effect"
import {
  type DocumentContainer,
  DocumentIdRef,
  DocumentMetadata,
  DocumentPageLayout,
  DocumentReference,
  LAYOUT_TYPE_PREFIX,
  PageDimensions
} from "../../../schemas/broker/Document.ts"
import type { PartEntry } from "../composite/Parts.ts"
import { isConvertible } from "../conversion/Converter.ts"
import { Orders } from "../orders/Orders.ts"
import { type ContainerTarget, DocumentResolver } from "./DocumentResolver.ts"
import { HoldingProvider } from "./HoldingProvider.ts"

/** The children of a container as the layout lists them: folders expanded in place, everything else a stub. */
const childrenOf = (
  target: ContainerTarget,
  entries: ReadonlyArray<PartEntry>
): Array<DocumentReference | DocumentContainer> =>
  entries.map((entry) => {
    const documentId = `${target.numbering}/${entry.index}`
    return entry.kind === "folder"
      ? {
        type: `${LAYOUT_TYPE_PREFIX}DocumentContainer`,
        documentId,
        documentTitle: entry.name,
        mimeType: null,
        children: childrenOf(target, entry.children)
      }
      : new DocumentReference({
        type: `${LAYOUT_TYPE_PREFIX}DocumentReference`,
        documentId,
        documentTitle: entry.name,
        // A provider's file is not typed until it is fetched.
        mimeType: entry.kind === "file" ? entry.mimeType : null
      })
  })

export class DocumentInfo extends Effect.Service<DocumentInfo>()("docstack/DocumentInfo", {
  effect: Effect.gen(function*() {
    const resolver = yield* DocumentResolver
    const orders = yield* Orders
    const holding = yield* HoldingProvider

    const conversionOrderIds = (documentId: string) =>
      orders.forDocument("conversion", documentId).pipe(
        Effect.map((list) =>
          Object.fromEntries(list.map((order): [string, { id: string }] => [order.format ?? "pdf", { id: order.id }]))
        )
      )

    /**
     * `provider`: the provider that holds the document opened through POST /registry/documents or
     * /registry/folders, and its parts (`<id>/<i>`), whose annotations are the provider's (the
     * annotation proxy, AnnotationProxy.ts, takes the root's record as well); none for an upload.
     */
    const providerEntry = (documentId: string) =>
      holding.of(documentId.split("/")[0]!).pipe(
        Effect.map(Option.match({ onNone: () => ({}), onSome: (provider) => ({ provider }) }))
      )

    return {
      metadata: Effect.fn("DocumentInfo.metadata")(function*(documentId: string) {
        const target = yield* resolver.resolve(documentId)
        const conversions = yield* conversionOrderIds(documentId)
        const provider = yield* providerEntry(documentId)
        if (target.kind === "container") {
          return new DocumentMetadata({
            documentId: new DocumentIdRef({ id: target.id }),
            mimeType: target.mimeType ?? "inode/directory",
            format: target.file ? target.format : "folder",
            renderedMimeType: "application/pdf",
            renderedFormat: "pdf",
            conversionOrderIds: conversions,
            documentTitle: target.title,
            documentMetadata: JSON.stringify({
              parts: String(target.entries.length),
              ...(target.file?.sourceSize ? { fileSize: String(target.file.sourceSize) } : {}),
              ...provider
            }),
            urlParameters: []
          })
        }
        const { doc, detected } = target
        const pages = doc.renditionPages ?? doc.registeredPages
        const rendered = doc.renditionHash || isConvertible(detected)
        return new DocumentMetadata({
          documentId: new DocumentIdRef({ id: doc.id }),
          mimeType: doc.mimeType,
          format: doc.format,
          renderedMimeType: rendered ? "application/pdf" : doc.mimeType,
          renderedFormat: rendered ? "pdf" : doc.format,
          conversionOrderIds: conversions,
          documentTitle: doc.title,
          documentMetadata: JSON.stringify({
            ...doc.renditionInfo,
            ...(pages ? { pageCount: String(pages.length) } : {}),
            ...(doc.sourceSize !== null ? { fileSize: String(doc.sourceSize) } : {}),
            ...provider
          }),
          urlParameters: []
        })
      }),

      layout: Effect.fn("DocumentInfo.layout")(function*(documentId: string) {
        const target = yield* resolver.resolve(documentId)
        if (target.kind === "container") {
          return {
            type: `${LAYOUT_TYPE_PREFIX}DocumentContainer`,
            documentId: target.id,
            documentTitle: target.title,
            mimeType: target.mimeType,
            children: childrenOf(target, target.entries)
          } satisfies DocumentContainer
        }
        const doc = yield* resolver.readyTarget(documentId, target)
        const pages = yield* resolver.pagesOf(doc)
        // Made without validating again (`true`): the page records were decoded from the database,
        // and checking hundreds of pages field by field cost more than the rest of the request.
        return new DocumentPageLayout({
          type: `${LAYOUT_TYPE_PREFIX}DocumentPageLayout`,
          documentId: doc.id,
          documentTitle: doc.title,
          mimeType: doc.mimeType,
          pageDimensionsList: pages.map((p) => new PageDimensions({ ...p, pageLayers: null }, true))
        }, true)
      })
    }
  }),
  dependencies: [DocumentResolver.Default, Orders.Default]
}) {}
