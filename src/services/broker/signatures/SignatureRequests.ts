/**
 * The signatures of a PDF, verified by the engine against the trust store. Handled in SignatureWorker.ts.
 */
import { Config, Schema } from "effect"
import { Signatures } from "../../../schemas/broker/Content.ts"
import { PdfFailure, PdfSourceFields } from "../engine/PdfRequest.ts"

export class VerifySignatures extends Schema.TaggedRequest<VerifySignatures>()("VerifySignatures", {
  failure: PdfFailure,
  success: Signatures,
  payload: PdfSourceFields
}) {}

/** What the worker threads need to verify: PEM files (or directories of them) whose certificates signatures are trusted to chain to. */
export const signatureWorkerSettings = Config.all({
  trustStore: Config.array(Config.string(), "SIGNATURE_TRUST_STORE").pipe(
    Config.withDefault(["/etc/ssl/certs/ca-certificates.crt"])
  )
})
