/**
 * A document's page count from the broker's metadata (a small answer), read from its layout only
 * when the metadata has none: a 20,000-page layout is over a megabyte, too much to fetch for every
 * chunk of a search.
 */
import { Effect, Option, Schema } from "effect"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"

const PageCountField = Schema.parseJson(Schema.Struct({ pageCount: Schema.NumberFromString }))

/** The count the broker's metadata JSON gives once the document has its pages (a PDF, a converted file). */
export const pageCountIn = (documentMetadata: string): Option.Option<number> =>
  Option.map(Schema.decodeUnknownOption(PageCountField)(documentMetadata), (fields) => fields.pageCount)

/**
 * The document's metadata and its number of pages, None for a composite document (its layout lists
 * parts). Without a count in the metadata (a file not converted yet) the layout is asked, which
 * waits for the conversion.
 */
export const countedMetadataOf = (client: BrokerClient, documentId: string) =>
  client.documents.metadata({ path: { documentId } }).pipe(
    Effect.flatMap((metadata) =>
      Option.match(pageCountIn(metadata.documentMetadata), {
        onSome: (count) => Effect.succeed({ metadata, pageCount: Option.some(count) }),
        onNone: () =>
          Effect.map(
            client.documents.layout({ path: { documentId } }),
            (layout) => ({
              metadata,
              pageCount: "children" in layout ? Option.none() : Option.some(layout.pageDimensionsList.length)
            })
          )
      })
    )
  )

/**
 * The metadata and page count of a document that has pages of its own; a composite document is a
 * 400 asking to `verb` (Search, Compare…) its parts instead.
 */
export const pagedDocumentOf = (client: BrokerClient, documentId: string, viewerId: string, verb: string) =>
  Effect.flatMap(countedMetadataOf(client, documentId), ({ metadata, pageCount }) =>
    Option.match(pageCount, {
      onSome: (count) => Effect.succeed({ metadata, pageCount: count }),
      onNone: () =>
        Effect.fail(
          new InvalidRequest({
            message:
              `'${viewerId}' is a composite document (an email, an archive or a folder): it has no pages of its own. ${verb} its parts, listed in its layout`
          })
        )
    }))
