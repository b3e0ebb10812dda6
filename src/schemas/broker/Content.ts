/**
 * What a document contains: text positions, search results, bookmarks, destinations, signatures.
 */
import { Schema } from "effect"
import { DocumentIdRef } from "./Document.ts"

export class Rect extends Schema.Class<Rect>("Rect")({
  x: Schema.Number,
  y: Schema.Number,
  w: Schema.Number,
  h: Schema.Number
}) {}

export class TextPosition extends Schema.Class<TextPosition>("TextPosition")({
  pageNumber: Schema.Int,
  position: Rect,
  text: Schema.String,
  individualWidths: Schema.Array(Schema.Number),
  fontSize: Schema.Number,
  font: Schema.String,
  clickableDestination: Schema.NullOr(Schema.Unknown),
  paragraphId: Schema.Int,
  rightToLeftText: Schema.Boolean,
  rotation: Schema.Int
}) {}

export class PageText extends Schema.Class<PageText>("PageText")({
  pageNumber: Schema.Int,
  positionTextList: Schema.Array(TextPosition),
  imageHyperlinkPositionList: Schema.Array(Schema.Unknown)
}) {}

/** Search options shared by the three search endpoints. */
export const SearchOptions = Schema.Struct({
  searchText: Schema.String.pipe(Schema.minLength(1, { message: () => "searchText is required" })),
  caseSensitive: Schema.optionalWith(Schema.BooleanFromString, { default: () => false }),
  accentSensitive: Schema.optionalWith(Schema.BooleanFromString, { default: () => false }),
  regex: Schema.optionalWith(Schema.BooleanFromString, { default: () => false })
})
export type SearchOptions = typeof SearchOptions.Type

export const DocumentSearchParams = Schema.Struct({
  ...SearchOptions.fields,
  fromPage: Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative()),
  toPage: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative()))
})

export class PositionText extends Schema.Class<PositionText>("PositionText")({
  pageNumber: Schema.Int,
  position: Rect,
  text: Schema.String
}) {}

export class TextRange extends Schema.Class<TextRange>("TextRange")({
  firstCharacter: Schema.Int,
  lastCharacter: Schema.Int
}) {}

export class PageSearchHit extends Schema.Class<PageSearchHit>("PageSearchHit")({
  positionText: PositionText,
  textRangeList: Schema.Array(TextRange)
}) {}

export class PageSearchResult extends Schema.Class<PageSearchResult>("PageSearchResult")({
  searchResults: Schema.Array(PageSearchHit)
}) {}

export class DocumentSearchResult extends Schema.Class<DocumentSearchResult>("DocumentSearchResult")({
  documentId: DocumentIdRef,
  searchText: Schema.String,
  searchStatus: Schema.Literal("COMPLETED"),
  lastPageSearched: Schema.Int,
  pagesResults: Schema.Record({
    key: Schema.String,
    value: Schema.Array(Schema.Struct({ positionText: PositionText }))
  })
}) {}

export class PagesContainingText extends Schema.Class<PagesContainingText>("PagesContainingText")({
  uuid: DocumentIdRef,
  searchText: Schema.String,
  pageList: Schema.Array(Schema.Int)
}) {}

export interface Bookmark {
  readonly title: string
  readonly page: number
  readonly textPosition: number
  readonly nodeOpen: boolean
  readonly children: ReadonlyArray<Bookmark>
  readonly namedDestination: string | null
  readonly fileName: string | null
  readonly shouldOpenInNewWindow: boolean
}

export const Bookmark: Schema.Schema<Bookmark> = Schema.Struct({
  title: Schema.String,
  page: Schema.Int,
  textPosition: Schema.Number,
  nodeOpen: Schema.Boolean,
  children: Schema.Array(Schema.suspend((): Schema.Schema<Bookmark> => Bookmark)),
  namedDestination: Schema.NullOr(Schema.String),
  fileName: Schema.NullOr(Schema.String),
  shouldOpenInNewWindow: Schema.Boolean
}).annotations({ identifier: "Bookmark" })

export class Bookmarks extends Schema.Class<Bookmarks>("Bookmarks")({
  bookmarks: Schema.Array(Bookmark)
}) {}

export class NamedDestination extends Schema.Class<NamedDestination>("NamedDestination")({
  name: Schema.String,
  page: Schema.Int
}) {}

export class Destinations extends Schema.Class<Destinations>("Destinations")({
  documentId: DocumentIdRef,
  namedDestinations: Schema.Array(NamedDestination)
}) {}

export class SignatureInfo extends Schema.Class<SignatureInfo>("SignatureInfo")({
  name: Schema.String,
  signer: Schema.NullOr(Schema.String),
  date: Schema.NullOr(Schema.String),
  reason: Schema.NullOr(Schema.String),
  location: Schema.NullOr(Schema.String),
  wrongIntegrity: Schema.Boolean,
  unknownCertificate: Schema.Boolean,
  signatureException: Schema.NullOr(Schema.String)
}) {}

export class Signatures extends Schema.Class<Signatures>("Signatures")({
  signatures: Schema.Array(SignatureInfo),
  wronglySigned: Schema.Boolean,
  integrity: Schema.Boolean
}) {}
