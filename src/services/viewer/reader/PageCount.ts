/**
 * A document's page count from the broker's metadata (a small answer), read from its layout only
 * when the metadata has none: a 20,000-page layout is over a megabyte, too much to fetch for every
 * chunk of a search.
 */
import { Effect, Option, Schema } from "effect"
import type { BrokerClient } from "../targets/BrokerClients.ts"

const PageCountField = Schema.parseJson(Schema.Struct({ pageCount: Schema.NumberFromString }))

/** The count the broker's metadata JSON gives once the document has its pages (a PDF, a converted file). */
export const pageCountIn = (documentMetadata: string): Option.Option<number> =>
  Option.map(Schema.decodeUnknownOption(PageCountField)(documentMetadata), (fields) => fields.pageCount)

/**
 * The number of pages, or None for a composite document (its layout lists parts). Without a count
 * in the metadata (a file not converted yet) the layout is asked, which waits for the conversion.
 */
export const pageCountOf = (client: BrokerClient, documentId: string) =>
  client.documents.metadata({ path: { documentId } }).pipe(
    Effect.flatMap((metadata) =>
      Option.match(pageCountIn(metadata.documentMetadata), {
        onSome: (count) => Effect.succeedSome(count),
        onNone: () =>
          Effect.map(
            client.documents.layout({ path: { documentId } }),
            (layout) => "children" in layout ? Option.none() : Option.some(layout.pageDimensionsList.length)
          )
      })
    )
  )
