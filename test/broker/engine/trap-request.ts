/**
 * A request no broker has, for tests of the engine (trap-worker.ts): PDFium is made to trap.
 */
import { Schema } from "effect"
import { PdfFailure } from "../../../src/services/broker/engine/PdfRequest.ts"

export class TrapPdfium extends Schema.TaggedRequest<TrapPdfium>()("TrapPdfium", {
  failure: PdfFailure,
  success: Schema.Void,
  payload: {}
}) {}
