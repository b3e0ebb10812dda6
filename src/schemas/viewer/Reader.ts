/**
 * The browser viewer's JSON routes beside the contract's servlets (docs/viewer.md "The browser
 * viewer's JSON routes"): search over a range of pages, the outline, and the document's state.
 * Every position is in the space of pageContent's positions: points (1/72 inch) on the page as
 * displayed (its rotation applied), from its top left corner, y downwards.
 */
import { Schema } from "effect"
import { Rect, SearchOptions } from "../broker/Content.ts"
import { OrderState } from "../broker/Orders.ts"
import { UuidParams } from "./Servlets.ts"

/** A 0-based page number parameter. */
const PageNumberParam = (name: string) =>
  Schema.String.pipe(
    Schema.pattern(/^\d{1,9}$/, { message: () => `${name} must be a 0-based page number written in decimal digits` }),
    Schema.compose(Schema.NumberFromString)
  )

/** `search`: the broker's search options, on pages `fromPage` to `toPage` (0-based, inclusive; default the last). */
export const SearchParams = Schema.Struct({
  ...UuidParams.fields,
  ...SearchOptions.fields,
  fromPage: PageNumberParam("fromPage"),
  toPage: Schema.optional(PageNumberParam("toPage"))
})
export type SearchParams = typeof SearchParams.Type

/** One match: its page, the text it matched, one box per line it covers. */
export class ViewerSearchHit extends Schema.Class<ViewerSearchHit>("ViewerSearchHit")({
  /** 0-based. */
  pageNumber: Schema.Int,
  text: Schema.String,
  rects: Schema.Array(Rect)
}) {}

export class ViewerSearchResult extends Schema.Class<ViewerSearchResult>("ViewerSearchResult")({
  searchText: Schema.String,
  fromPage: Schema.Int,
  /** The last page searched: `toPage` as asked, or the document's last page when it asked past it. */
  toPage: Schema.Int,
  /** The document's pages, so that a browser searching in chunks knows when it is done. */
  pageCount: Schema.Int,
  /** In page order, then in reading order on the page. */
  hits: Schema.Array(ViewerSearchHit)
}) {}

export interface ViewerBookmark {
  readonly title: string
  /** 0-based; null for an entry that goes to no page of the document (a link to a web address, a broken destination). */
  readonly pageNumber: number | null
  /** Where on the page the entry goes, from the page's top; null exactly when pageNumber is. */
  readonly top: number | null
  /** The PDF shows the entry's children at first. */
  readonly open: boolean
  readonly children: ReadonlyArray<ViewerBookmark>
}

export const ViewerBookmark: Schema.Schema<ViewerBookmark> = Schema.Struct({
  title: Schema.String,
  pageNumber: Schema.NullOr(Schema.Int),
  top: Schema.NullOr(Schema.Number),
  open: Schema.Boolean,
  children: Schema.Array(Schema.suspend((): Schema.Schema<ViewerBookmark> => ViewerBookmark))
}).annotations({ identifier: "ViewerBookmark" })

export class ViewerBookmarks extends Schema.Class<ViewerBookmarks>("ViewerBookmarks")({
  bookmarks: Schema.Array(ViewerBookmark)
}) {}

/** The document's latest conversion order, as the broker reports it (times in milliseconds). */
export class ConversionProgress extends Schema.Class<ConversionProgress>("ConversionProgress")({
  currentState: OrderState,
  /** Time spent waiting before processing started (so far, while QUEUED). */
  queuedTime: Schema.optional(Schema.Int),
  /** Time from the start of processing to its end (so far, while PROCESSING); absent while QUEUED. */
  processingTime: Schema.optional(Schema.Int),
  errorMessage: Schema.NullOr(Schema.String)
}) {}

export const DocumentReadiness = Schema.Literal("ready", "converting", "failed")

/** Why a document failed, for programs: only what a browser can explain better than the message. */
export const FailureReason = Schema.Literal("password")
export type FailureReason = typeof FailureReason.Type

export class DocumentState extends Schema.Class<DocumentState>("DocumentState")({
  state: DocumentReadiness,
  conversion: Schema.NullOr(ConversionProgress),
  /** Why it failed, in words (the broker's); null unless failed. */
  message: Schema.NullOr(Schema.String),
  /** `password`: the file is protected by a password. Null otherwise. */
  reason: Schema.NullOr(FailureReason)
}) {}
