/**
 * The digital signatures of a PDF, verified (GET /documents/{id}/signatures). A pure function over
 * the file's bytes and a trust store, meant to run inside the PDF worker thread: no Effect, no I/O,
 * and in particular no network (see CertificateTrust.ts).
 *
 * Per signature field (SignatureFields.ts), checked by SignatureFieldCheck.ts:
 * - integrity (`wrongIntegrity`): the signed byte range (SignedRange.ts) and the signature value
 *   over it (SignatureValue.ts, SignatureAlgorithms.ts);
 * - trust (`unknownCertificate`): a chain from the signer's certificate to the trust store
 *   (CertificateTrust.ts);
 * - changes after signing: see ChangesAfterSigning.ts for what counts as a harmless later revision.
 *
 * Document level: `wronglySigned` = some signature has `wrongIntegrity`; `integrity` = no signature
 * has `wrongIntegrity` and no signature saw its document changed afterwards by anything but
 * signature-related revisions (so the last signature, or later signature-only revisions, cover the
 * whole file). A document without signature fields has integrity.
 *
 * A field without /V is listed as not signed; a /V leading nowhere is a damaged signature. Damaged
 * files: when pdf-lib cannot parse the whole file, the objects up to the last complete one are
 * read; a signed file whose form cannot be followed gets its signature dictionaries reported
 * without a field name (or, none found, one entry saying the signatures could not be read) — never
 * "unsigned with integrity". Nothing throws: every failure becomes a report.
 *
 * Bounded work: at most MAX_VERIFIED signatures are examined, each within the bounds of its own
 * checks. Beyond the caller's bytes, memory goes to pdf-lib's parse (which copies stream data) —
 * one parse of the file, plus one at a time of an earlier revision when something was appended
 * after a signature.
 */
import type { PDFContext } from "pdf-lib"
import { trustAnchors, type TrustStore } from "./CertificateTrust.ts"
import { changesAfter } from "./ChangesAfterSigning.ts"
import { checkField, type FieldCheck, unsignedCheck } from "./SignatureFieldCheck.ts"
import { looseSignatures, parsePdf, signatureFields } from "./SignatureFields.ts"
import { messageOf } from "./SignatureProblem.ts"

/** Signatures verified per document; the others are reported as not checked. */
const MAX_VERIFIED = 100

export interface SignatureFieldReport {
  name: string
  signer: string | null
  /** ISO 8601. */
  date: string | null
  reason: string | null
  location: string | null
  wrongIntegrity: boolean
  unknownCertificate: boolean
  signatureException: string | null
}

export interface VerifiedSignatures {
  readonly signatures: ReadonlyArray<SignatureFieldReport>
  readonly wronglySigned: boolean
  readonly integrity: boolean
}

export const verifySignatures = async (pdf: Uint8Array, trust: TrustStore): Promise<VerifiedSignatures> => {
  let context: PDFContext
  let damage: unknown = null
  try {
    context = await parsePdf(pdf)
  } catch (error) {
    // A damaged tail (a truncated file, say): read the objects up to the last complete one.
    damage = error
    const lastObject = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).lastIndexOf("endobj")
    try {
      if (lastObject < 0) throw error
      context = await parsePdf(pdf.subarray(0, lastObject + "endobj".length))
    } catch {
      return unreadable(pdf, error)
    }
  }
  try {
    const form = signatureFields(context)
    // A signed file whose form cannot be followed (damaged, truncated): the signature dictionaries
    // found among its objects are reported without a field, or the file as unreadable.
    const signed = form.fields.some((field) => field.value !== undefined || field.valueRef !== undefined)
    const loose = signed ? [] : looseSignatures(context).slice(0, MAX_VERIFIED)
    const fields = [...form.fields, ...loose]
    if (!signed && loose.length === 0 && damage !== null) return unreadable(pdf, damage)
    if (fields.length === 0) return { signatures: [], wronglySigned: false, integrity: true }
    const anchors = trustAnchors(trust)
    const digests = new Map<string, Buffer>()
    let verified = 0
    const checks = fields.map((field): FieldCheck => {
      if (!field.value) {
        return field.valueRef
          ? {
            ...unsignedCheck(field),
            signed: true,
            unknownCertificate: true,
            integrityError: "The signature dictionary is missing or damaged"
          }
          : unsignedCheck(field)
      }
      if (verified++ < MAX_VERIFIED) return checkField(pdf, field, anchors, digests)
      return {
        ...unsignedCheck(field),
        signed: true,
        unknownCertificate: true,
        integrityError: `Not checked: the document has more than ${MAX_VERIFIED} signatures`
      }
    })
    const changes = await changesAfter(
      pdf,
      context,
      form,
      checks.flatMap((check) => (check.coveredEnd === null ? [] : [check.coveredEnd]))
    )
    const signatures = checks.map((check): SignatureFieldReport => {
      const change = check.coveredEnd === null ? undefined : changes.get(check.coveredEnd)
      const loose = check.field.loose ? "The signature is not attached to a field of the document's form" : null
      const problems = [loose, check.integrityError, check.certificateProblem, change ?? null].filter((
        p
      ): p is string => p !== null)
      return {
        name: check.field.name,
        signer: check.signer,
        date: check.date,
        reason: check.reason,
        location: check.location,
        wrongIntegrity: check.signed && check.integrityError !== null,
        unknownCertificate: check.signed && check.unknownCertificate,
        signatureException: check.signed
          ? (problems.length > 0 ? problems.join("; ") : null)
          : "The field is not signed"
      }
    })
    const wronglySigned = signatures.some((s) => s.wrongIntegrity)
    const changedAfterSigning = checks.some((check) =>
      check.coveredEnd !== null && changes.get(check.coveredEnd) !== undefined
    )
    return { signatures, wronglySigned, integrity: !wronglySigned && !changedAfterSigning && loose.length === 0 }
  } catch (error) {
    return unreadable(pdf, error)
  }
}

/** A file pdf-lib cannot parse at all: signed (and so not verifiable) if it mentions a /ByteRange. */
const unreadable = (pdf: Uint8Array, error: unknown): VerifiedSignatures => {
  if (Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).indexOf("/ByteRange") < 0) {
    return { signatures: [], wronglySigned: false, integrity: true }
  }
  return {
    signatures: [{
      name: "",
      signer: null,
      date: null,
      reason: null,
      location: null,
      wrongIntegrity: true,
      unknownCertificate: true,
      signatureException: `The PDF could not be read, so its signatures could not be checked: ${messageOf(error)}`
    }],
    wronglySigned: true,
    integrity: false
  }
}
