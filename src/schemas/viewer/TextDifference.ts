/**
 * GET difference (docs/viewer.md "The browser viewer's JSON routes"): the broker's word-level text
 * difference of two documents, each side of each change boxed line by line in pageContent's space
 * (points on the page as displayed, from its top left corner, y downwards), so that a browser can
 * highlight the changed words side by side.
 */
import { Schema, Struct } from "effect"
import { TextChange, TextSide } from "../broker/Comparisons.ts"
import { Rect } from "../broker/Content.ts"

export class ComparedDocument extends Schema.Class<ComparedDocument>("ComparedDocument")({
  /** The viewer ID as the request gave it. */
  uuid: Schema.String,
  title: Schema.NullOr(Schema.String),
  pageCount: Schema.Int
}) {}

/** One side of a change: its words, the page they start on (0-based), one box per line of them. */
export class ChangedText extends Schema.Class<ChangedText>("ChangedText")({
  ...Struct.pick(TextSide.fields, "text", "pageNumber"),
  rects: Schema.Array(Rect)
}) {}

export class TextChangeView extends Schema.Class<TextChangeView>("TextChangeView")({
  type: TextChange.fields.changeType,
  /** The left's deleted or replaced words; null when the change deletes nothing. */
  left: Schema.NullOr(ChangedText),
  /** The right's inserted or replacing words; null when the change inserts nothing. */
  right: Schema.NullOr(ChangedText)
}) {}

export class TextDifference extends Schema.Class<TextDifference>("TextDifference")({
  left: ComparedDocument,
  right: ComparedDocument,
  /** In the broker's order: the left's reading order. */
  changes: Schema.Array(TextChangeView)
}) {}
