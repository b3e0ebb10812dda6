/**
 * The parts of a composite document as one PDF, put together by the engine (not on the event
 * loop: a mail archive's parts can run to thousands of pages). Handled in MergeWorker.ts.
 */
import { Schema } from "effect"
import { PdfFailure, PdfSourceSchema } from "../engine/PdfRequest.ts"

/** Every page of every source, in order, written to `outPath`. */
export class MergePdfs extends Schema.TaggedRequest<MergePdfs>()("MergePdfs", {
  failure: PdfFailure,
  success: Schema.Void,
  payload: { sources: Schema.Array(PdfSourceSchema), outPath: Schema.String }
}) {}
