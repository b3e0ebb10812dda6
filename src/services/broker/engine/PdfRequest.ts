/**
 * What every request to the PDF engine shares: the PDF it is about (its content hash, the workers'
 * cache key, and a local file with its bytes), the two ways PDF work fails, and a step of that work
 * failing as one of them (`attempt`). Each feature defines its own requests
 * (`Schema.TaggedRequest`) with these fields and failures, beside its worker handlers.
 */
import { Effect, Schema } from "effect"
import { FilterCode } from "../../../schemas/broker/PageImage.ts"

/** A PDF as the engine sees it: its content hash (cache key) and a local file with its bytes. */
export interface PdfSource {
  readonly hash: string
  readonly path: string
}

/** The fields that name a PDF in a request. */
export const PdfSourceFields = {
  hash: Schema.String,
  path: Schema.String
}

export const PdfSourceSchema = Schema.Struct(PdfSourceFields)

/** Why a PDF could not be opened: the caller maps these to statuses. */
export class PdfOpenFailed extends Schema.TaggedError<PdfOpenFailed>()("PdfOpenFailed", {
  reason: Schema.Literal("password", "damaged"),
  message: Schema.String
}) {}

/** A page operation failed on an opened PDF (bad page number is checked before; this is the engine failing). */
export class PdfOperationFailed extends Schema.TaggedError<PdfOperationFailed>()("PdfOperationFailed", {
  message: Schema.String
}) {}

/** The failure of every PDF request. */
export const PdfFailure = Schema.Union(PdfOpenFailed, PdfOperationFailed)

/** How a page is drawn: width in pixels, extra rotation, filters, and the most pixels allowed. */
export const RenderSettingsFields = {
  width: Schema.Int,
  rotation: Schema.Int,
  filters: Schema.Array(Schema.Struct({ code: FilterCode, value: Schema.Int })),
  maxPixels: Schema.Int
}

export const RenderSettings = Schema.Struct(RenderSettingsFields)
export type RenderSettings = typeof RenderSettings.Type

/** A step of PDF work that threw, as PdfOperationFailed saying which step (`<what> failed: <why>`). */
export const stepFailed = (what: string, error: unknown) =>
  new PdfOperationFailed({ message: `${what} failed: ${error instanceof Error ? error.message : String(error)}` })

/** Runs one step of PDF work; a failure says which step (`stepFailed`). */
export const attempt = <A>(what: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (error) => stepFailed(what, error) })
