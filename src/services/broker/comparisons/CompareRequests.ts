/**
 * The comparisons the engine does. Handled in CompareWorker.ts.
 */
import { Schema } from "effect"
import { TextChange } from "../../../schemas/broker/Comparisons.ts"
import { PdfFailure, PdfSourceSchema } from "../engine/PdfRequest.ts"

/**
 * Compares two PDFs page by page as images (page i with page i; a page on one side only is all
 * difference) and writes a PDF of the difference images to `outPath`.
 */
export class Compare extends Schema.TaggedRequest<Compare>()("Compare", {
  failure: PdfFailure,
  success: Schema.Void,
  payload: {
    left: PdfSourceSchema,
    right: PdfSourceSchema,
    width: Schema.Int,
    fuzz: Schema.Number,
    highlight: Schema.Tuple(Schema.Int, Schema.Int, Schema.Int),
    lowlight: Schema.Tuple(Schema.Int, Schema.Int, Schema.Int),
    maxPixels: Schema.Int,
    outPath: Schema.String
  }
}) {}

/** The word-level difference of two PDFs' text, every page of each. */
export class DiffText extends Schema.TaggedRequest<DiffText>()("DiffText", {
  failure: PdfFailure,
  success: Schema.Array(TextChange),
  payload: { left: PdfSourceSchema, right: PdfSourceSchema }
}) {}
