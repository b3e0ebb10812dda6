/**
 * One signature field checked: its signed byte range (SignedRange.ts), its signature value against
 * those bytes (SignatureValue.ts), and its signer's certificate against the trust store
 * (CertificateTrust.ts) at the signing time — the signed signingTime attribute, else the
 * timestamp's time, else /M, else now. That time is the signer's claim, not a trusted timestamp:
 * timestamp tokens in unsigned attributes are not verified.
 */
import { fromPdfDate, nameOf, textOf } from "../engine/PdfObjects.ts"
import type { Certificate } from "./Certificates.ts"
import { evaluateTrust } from "./CertificateTrust.ts"
import { N, type SignatureField } from "./SignatureFields.ts"
import { messageOf, SignatureProblem } from "./SignatureProblem.ts"
import { checkCms, checkPkcs1, type SignatureEvidence } from "./SignatureValue.ts"
import { contentsEntry, type SignedRange, signedRange } from "./SignedRange.ts"

export interface FieldCheck {
  readonly field: SignatureField
  readonly signed: boolean
  readonly signer: string | null
  readonly date: string | null
  readonly reason: string | null
  readonly location: string | null
  /** Why the signed bytes cannot be trusted to be what was signed; null when they verify. */
  readonly integrityError: string | null
  readonly unknownCertificate: boolean
  /** A problem with the certificates other than "not issued by a trusted certificate". */
  readonly certificateProblem: string | null
  /** Where the signed bytes end, when the byte range is sound. */
  readonly coveredEnd: number | null
}

export const unsignedCheck = (field: SignatureField): FieldCheck => ({
  field,
  signed: false,
  signer: null,
  date: null,
  reason: null,
  location: null,
  integrityError: null,
  unknownCertificate: false,
  certificateProblem: null,
  coveredEnd: null
})

/** `digests` holds the digests of signed ranges already computed, shared by the document's signatures. */
export const checkField = (
  pdf: Uint8Array,
  field: SignatureField,
  anchors: ReadonlyArray<Certificate>,
  digests: Map<string, Buffer>
): FieldCheck => {
  const signature = field.value
  if (!signature) return unsignedCheck(field)
  const claimed = textOf(signature.lookup(N.M))
  const claimedIso = claimed === undefined ? undefined : fromPdfDate(claimed)
  const claimedDate = claimedIso === undefined ? null : new Date(claimedIso)
  const base = {
    field,
    signed: true,
    reason: textOf(signature.lookup(N.Reason)) ?? null,
    location: textOf(signature.lookup(N.Location)) ?? null
  }
  let integrityError: string | null = null
  let range: SignedRange | null = null
  try {
    range = signedRange(pdf, signature)
  } catch (error) {
    integrityError = error instanceof SignatureProblem
      ? error.message
      : `The signed byte range could not be read: ${messageOf(error)}`
  }
  const subFilter = nameOf(signature.lookup(N.SubFilter)) ?? null
  let evidence: SignatureEvidence = { signerCertificate: undefined, certificates: [], signingTime: null }
  try {
    const value = range?.contents ?? contentsEntry(signature)
    const outcome = subFilter === "adbe.x509.rsa_sha1"
      ? checkPkcs1(pdf, range, value, signature)
      : checkCms(pdf, range, value, subFilter, digests)
    evidence = outcome.evidence
    integrityError ??= outcome.error
  } catch (error) {
    integrityError ??= error instanceof SignatureProblem
      ? error.message
      : `The signature could not be checked: ${messageOf(error)}`
  }
  const signingTime = evidence.signingTime ?? claimedDate
  const signer = evidence.signerCertificate
  const trust = signer
    ? evaluateTrust(signer, evidence.certificates, anchors, signingTime ?? new Date())
    : { trusted: false, problem: null }
  return {
    ...base,
    signer: signer?.commonName ?? textOf(signature.lookup(N.Name)) ?? null,
    date: signingTime ? signingTime.toISOString() : null,
    integrityError,
    unknownCertificate: !trust.trusted,
    certificateProblem: trust.problem,
    coveredEnd: integrityError === null && range ? range.end : null
  }
}
