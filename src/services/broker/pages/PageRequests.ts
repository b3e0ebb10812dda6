/**
 * A page image drawn by the engine. Handled in PageWorker.ts.
 */
import { Schema } from "effect"
import { PdfFailure, PdfSourceFields, RenderSettingsFields } from "../engine/PdfRequest.ts"

export class RenderPage extends Schema.TaggedRequest<RenderPage>()("RenderPage", {
  failure: PdfFailure,
  success: Schema.Uint8ArrayFromSelf,
  payload: { ...PdfSourceFields, page: Schema.Int, ...RenderSettingsFields }
}) {}
