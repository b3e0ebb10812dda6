/**
 * Comparisons (spec: Comparisons, Difference result): image comparisons as orders whose result is
 * a document, and the word-level text difference. See docs/comparisons.md.
 */
import colorString from "color-string"
import { ParseResult, Schema } from "effect"
import { Rect } from "./Content.ts"
import { DocumentIdParam, DocumentIdRef, ReportAllErrors } from "./Document.ts"
import { DocumentIdInBody, OrderIdRef, OrderState } from "./Orders.ts"

/** 0-255 RGB. */
export type Rgb = readonly [number, number, number]

/**
 * A CSS colour to RGB (color-string: "#RRGGBB", "#RGB", rgb() in any of its CSS forms, the 148 CSS
 * names, case-insensitive); a hex colour may leave out its "#". Undefined when it is not a colour,
 * or is not opaque (a comparison paints with it: a transparent one would be a guess).
 */
export const parseColor = (value: string): Rgb | undefined => {
  const text = value.trim()
  const rgba = colorString.get.rgb(/^([0-9a-f]{3}|[0-9a-f]{6})$/i.test(text) ? `#${text}` : text)
  return rgba === null || rgba[3] !== 1 ? undefined : [rgba[0]!, rgba[1]!, rgba[2]!]
}

const hexOf = (rgb: Rgb) => `#${rgb.map((c) => c.toString(16).padStart(2, "0").toUpperCase()).join("")}`

/** A colour as CSS writes it, decoded to the spec's hex colour (#RRGGBB) the orders show. */
export const HexColor = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (value, _, ast) => {
    const rgb = parseColor(value)
    return rgb === undefined
      ? ParseResult.fail(
        new ParseResult.Type(
          ast,
          value,
          `'${value}' is not a colour: write #RRGGBB, #RGB, rgb(r,g,b) or a CSS colour name`
        )
      )
      : ParseResult.succeed(hexOf(rgb))
  },
  encode: ParseResult.succeed
})

export class ComparisonRequest extends Schema.Class<ComparisonRequest>("ComparisonRequest")({
  leftDocumentId: DocumentIdInBody,
  rightDocumentId: DocumentIdInBody,
  /** Colour distance, in percent, under which two pixels count as the same (default: COMPARISON_DEFAULT_FUZZ). */
  fuzz: Schema.optional(
    Schema.Int.pipe(Schema.between(0, 100, { message: () => "fuzz is a percentage from 0 to 100" }))
  ),
  /** Colour of the differences and of the unchanged content: #RRGGBB, #RGB, rgb(r,g,b) or a CSS colour name. */
  highlightColor: Schema.optional(HexColor),
  lowlightColor: Schema.optional(HexColor)
}, ReportAllErrors) {}

export class ComparisonOrderCreated extends Schema.Class<ComparisonOrderCreated>("ComparisonOrderCreated")({
  comparisonOrderId: OrderIdRef
}) {}

export class ComparisonOrder extends Schema.Class<ComparisonOrder>("ComparisonOrder")({
  comparisonOrderId: OrderIdRef,
  leftDocumentId: DocumentIdRef,
  rightDocumentId: DocumentIdRef,
  /** The result document (one page per compared page), once PROCESSED. */
  targetDocumentId: Schema.NullOr(DocumentIdRef),
  currentState: OrderState,
  fuzz: Schema.Int,
  highlightColor: Schema.String,
  lowlightColor: Schema.String,
  queuedDate: Schema.String,
  processedDate: Schema.NullOr(Schema.String),
  processingTime: Schema.NullOr(Schema.Int),
  errorMessage: Schema.NullOr(Schema.String)
}) {}

export const DifferenceParams = Schema.Struct({
  leftDocumentId: DocumentIdParam,
  rightDocumentId: DocumentIdParam
})

export class TextSide extends Schema.Class<TextSide>("TextSide")({
  text: Schema.String,
  pageNumber: Schema.Int,
  position: Rect
}) {}

export class TextFragment extends Schema.Class<TextFragment>("TextFragment")({
  text: Schema.String,
  type: Schema.Literal("DELETED", "INSERTED"),
  pageNumber: Schema.Int,
  endOfLine: Schema.Boolean
}) {}

export class TextChange extends Schema.Class<TextChange>("TextChange")({
  changeType: Schema.Literal("MODIFIED", "DELETED", "INSERTED"),
  left: Schema.NullOr(TextSide),
  right: Schema.NullOr(TextSide),
  fragments: Schema.Array(TextFragment)
}) {}

export class DifferenceResult extends Schema.Class<DifferenceResult>("DifferenceResult")({
  leftDocumentId: DocumentIdRef,
  rightDocumentId: DocumentIdRef,
  textChanges: Schema.Array(TextChange)
}) {}
