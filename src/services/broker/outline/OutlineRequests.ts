/**
 * A document's bookmarks and named destinations, read by the engine. Handled in OutlineWorker.ts.
 */
import { Schema } from "effect"
import { Bookmark, NamedDestination } from "../../../schemas/broker/Content.ts"
import { PdfFailure, PdfSourceFields } from "../engine/PdfRequest.ts"

export class ReadOutline extends Schema.TaggedRequest<ReadOutline>()("ReadOutline", {
  failure: PdfFailure,
  success: Schema.Array(Bookmark),
  payload: PdfSourceFields
}) {}

export class ReadDestinations extends Schema.TaggedRequest<ReadDestinations>()("ReadDestinations", {
  failure: PdfFailure,
  success: Schema.Array(NamedDestination),
  payload: PdfSourceFields
}) {}
