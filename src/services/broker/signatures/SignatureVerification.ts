/**
 * The digital signatures of a PDF, verified (GET /documents/{id}/signatures). A pure function over
 * the file's bytes and a trust store, meant to run inside the PDF worker thread: no Effect, no I/O,
 * and in particular no network — revocation (OCSP, CRL) is not checked and missing issuers are not
 * fetched through the certificates' AIA URLs; a chain is built only from the certificates embedded
 * in the signature and those of the trust store.
 *
 * Per signature field (found through the AcroForm field tree, kids included):
 * - integrity (`wrongIntegrity`): the /ByteRange must be two ranges starting at byte 0 whose gap is
 *   exactly the /Contents hex string (with or without its `<` `>` delimiters inside the signed
 *   bytes — both occur in the wild and both leave only the signature value unsigned); the digest of
 *   the two ranges must match the CMS `messageDigest` attribute and the CMS signature must verify
 *   with the signer certificate's public key. Formats: adbe.pkcs7.detached, ETSI.CAdES.detached,
 *   adbe.pkcs7.sha1 (SHA-1 digest as encapsulated content), ETSI.RFC3161 document timestamps, and
 *   adbe.x509.rsa_sha1 (bare PKCS#1 signature with the certificates in /Cert). Algorithms: RSA
 *   PKCS#1 v1.5, RSA-PSS (MGF1 with the same hash), ECDSA, DSA, Ed25519/Ed448 (with signed
 *   attributes); digests SHA-1, SHA-2 and SHA-3 (MD5 is refused).
 * - trust (`unknownCertificate`): true unless a path of valid signatures leads from the signer's
 *   certificate to a certificate of the trust store (the signer's own certificate may be that
 *   trusted certificate). Intermediates must be CAs (basicConstraints) allowed to sign certificates
 *   (keyUsage, when present); every certificate on the path must be valid at the signing time —
 *   the signed signingTime attribute, else the timestamp's time, else /M, else now. That time is
 *   the signer's claim, not a trusted timestamp: timestamp tokens in unsigned attributes are not
 *   verified.
 * - changes after signing: see `changesAfter` below for what counts as a harmless later revision.
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
 * Bounded work: the signature value is read in place (at most MAX_SIGNATURE_BYTES decoded, ASN.1
 * parsing capped at MAX_ASN1_NODES), the ranges are hashed as views of the caller's bytes (no
 * copy), each distinct digest is computed once, at most MAX_VERIFIED signatures and MAX_REVISIONS
 * earlier revisions are examined. Beyond the caller's bytes, memory goes to pdf-lib's parse (which
 * copies stream data) — one parse of the file, plus one at a time of an earlier revision when
 * something was appended after a signature.
 */
import * as asn1js from "asn1js"
import { constants, createHash, createVerify, type KeyObject, publicDecrypt, verify as verifyOneShot, X509Certificate } from "node:crypto"
import {
  PDFArray,
  PDFContext,
  PDFDict,
  PDFHexString,
  PDFInvalidObject,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFObjectParser,
  PDFParser,
  PDFRawStream,
  PDFRef,
  PDFString
} from "pdf-lib"
import * as pkijs from "pkijs"
import { fromPdfDate, nameOf as pdfNameOf, textOf as pdfTextOf } from "../engine/PdfObjects.ts"

export interface TrustStore {
  /** Trusted certificates (DER): roots, or any certificate the caller decides to trust directly. */
  readonly certificates: ReadonlyArray<Uint8Array>
}

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

/** The largest signature value read (decoded /Contents): room for embedded CRLs and OCSP responses. */
const MAX_SIGNATURE_BYTES = 4 * 1024 * 1024
/** Signatures verified per document; the others are reported as not checked. */
const MAX_VERIFIED = 100
/** Earlier revisions parsed to find what changed after a signature. */
const MAX_REVISIONS = 16
const MAX_FIELDS = 10_000
const MAX_FIELD_DEPTH = 32
const MAX_CHAIN_LENGTH = 10
const MAX_PAGES = 100_000
/** ASN.1 elements read from a signature value (a large embedded CRL has a few per revoked certificate). */
const MAX_ASN1_NODES = 250_000
const MAX_LISTED_CHANGES = 6

/** An expected failure, whose message is shown to the user as is. */
class Problem extends Error {}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

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
    const loose = signed ? [] : looseSignatures(context)
    const fields = [...form.fields, ...loose]
    if (!signed && loose.length === 0 && damage !== null) return unreadable(pdf, damage)
    if (fields.length === 0) return { signatures: [], wronglySigned: false, integrity: true }
    const anchors = trustAnchors(trust)
    const digests = new Map<string, Buffer>()
    let verified = 0
    const checks = fields.map((field): FieldCheck => {
      if (!field.value) {
        return field.valueRef
          ? { ...unsignedCheck(field), signed: true, unknownCertificate: true, integrityError: "The signature dictionary is missing or damaged" }
          : unsignedCheck(field)
      }
      if (verified++ < MAX_VERIFIED) return checkField(pdf, field, anchors, digests)
      return { ...unsignedCheck(field), signed: true, unknownCertificate: true, integrityError: `Not checked: the document has more than ${MAX_VERIFIED} signatures` }
    })
    const changes = await changesAfter(pdf, context, form, checks)
    const signatures = checks.map((check): SignatureFieldReport => {
      const change = check.coveredEnd === null ? undefined : changes.get(check.coveredEnd)
      const loose = check.field.loose ? "The signature is not attached to a field of the document's form" : null
      const problems = [loose, check.integrityError, check.certificateProblem, change ?? null].filter((p): p is string => p !== null)
      return {
        name: check.field.name,
        signer: check.signer,
        date: check.date,
        reason: check.reason,
        location: check.location,
        wrongIntegrity: check.signed && check.integrityError !== null,
        unknownCertificate: check.signed && check.unknownCertificate,
        signatureException: check.signed ? (problems.length > 0 ? problems.join("; ") : null) : "The field is not signed"
      }
    })
    const wronglySigned = signatures.some((s) => s.wrongIntegrity)
    const changedAfterSigning = checks.some((check) => check.coveredEnd !== null && changes.get(check.coveredEnd) !== undefined)
    return { signatures, wronglySigned, integrity: !wronglySigned && !changedAfterSigning && loose.length === 0 }
  } catch (error) {
    return unreadable(pdf, error)
  }
}

const parsePdf = (pdf: Uint8Array): Promise<PDFContext> => PDFParser.forBytesWithOptions(pdf, Infinity, false).parseDocument()

/** The trust store's certificates, parsed once per store (a system bundle holds about 150). */
const parsedStores = new WeakMap<ReadonlyArray<Uint8Array>, ReadonlyArray<Certificate>>()

const trustAnchors = (trust: TrustStore): ReadonlyArray<Certificate> => {
  let anchors = parsedStores.get(trust.certificates)
  if (!anchors) {
    anchors = trust.certificates.flatMap((der) => {
      const cert = certificateFromDer(der)
      return cert ? [cert] : []
    })
    parsedStores.set(trust.certificates, anchors)
  }
  return anchors
}

/**
 * Certificates (DER) from PEM text — a bundle such as /etc/ssl/certs/ca-certificates.crt holds
 * many — or from DER bytes (one certificate, or several concatenated). Blocks that are not
 * certificates (keys, CRLs) are skipped.
 */
export const certificatesFromPem = (pem: string | Uint8Array): ReadonlyArray<Uint8Array> => {
  if (typeof pem !== "string") {
    if (pem[0] === 0x30) return splitDer(pem)
    pem = Buffer.from(pem.buffer, pem.byteOffset, pem.byteLength).toString("latin1")
  }
  const found: Array<Uint8Array> = []
  const block = /-----BEGIN (X509 |TRUSTED )?CERTIFICATE-----([^-]*)-----END \1?CERTIFICATE-----/g
  for (const match of pem.matchAll(block)) {
    const der = Buffer.from((match[2] ?? "").replace(/\s+/g, ""), "base64")
    // A TRUSTED CERTIFICATE (OpenSSL) is the certificate followed by trust settings: keep the first.
    const first = splitDer(new Uint8Array(der.buffer, der.byteOffset, der.byteLength))[0]
    if (first) found.push(first)
  }
  return found
}

const splitDer = (bytes: Uint8Array): Array<Uint8Array> => {
  const out: Array<Uint8Array> = []
  let offset = 0
  while (offset < bytes.length && bytes[offset] === 0x30) {
    const length = derLength(bytes.subarray(offset))
    if (length === null) break
    out.push(new Uint8Array(bytes.subarray(offset, offset + length)))
    offset += length
  }
  return out
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

// ---------------------------------------------------------------------------------------------
// The field tree
// ---------------------------------------------------------------------------------------------

const N = {
  AcroForm: PDFName.of("AcroForm"),
  Fields: PDFName.of("Fields"),
  Kids: PDFName.of("Kids"),
  T: PDFName.of("T"),
  FT: PDFName.of("FT"),
  V: PDFName.of("V"),
  Sig: PDFName.of("Sig"),
  AP: PDFName.of("AP"),
  Type: PDFName.of("Type"),
  SubFilter: PDFName.of("SubFilter"),
  ByteRange: PDFName.of("ByteRange"),
  Contents: PDFName.of("Contents"),
  Cert: PDFName.of("Cert"),
  M: PDFName.of("M"),
  Name: PDFName.of("Name"),
  Reason: PDFName.of("Reason"),
  Location: PDFName.of("Location"),
  Pages: PDFName.of("Pages"),
  Page: PDFName.of("Page"),
  Annots: PDFName.of("Annots"),
  Metadata: PDFName.of("Metadata"),
  DSS: PDFName.of("DSS"),
  Subtype: PDFName.of("Subtype")
} as const

interface SignatureField {
  /** Fully qualified: the partial names (/T) from the root down, joined with dots. */
  readonly name: string
  readonly node: PDFDict
  readonly ref: PDFRef | undefined
  /** The signature dictionary (/V, possibly inherited). */
  readonly value: PDFDict | undefined
  /** The reference to it: set while `value` is not when the reference leads nowhere (a damaged file). */
  readonly valueRef: PDFRef | undefined
  /** The field's widgets: itself when merged, else its kids. */
  readonly widgets: ReadonlyArray<PDFObject>
  /** A signature dictionary found among the objects, outside the form. */
  readonly loose: boolean
}

interface SignatureForm {
  readonly fields: ReadonlyArray<SignatureField>
  readonly catalog: PDFDict | undefined
  readonly acroForm: PDFDict | undefined
  /** Field nodes whose subtree holds signature fields only (the terminals, their parents, their widgets). */
  readonly signatureNodes: ReadonlySet<PDFObject>
}

const signatureFields = (context: PDFContext): SignatureForm => {
  const catalog = asDict(context.lookup(context.trailerInfo.Root))
  const acroForm = asDict(catalog?.lookup(N.AcroForm))
  const roots = acroForm?.lookup(N.Fields)
  const fields: Array<SignatureField> = []
  const signatureNodes = new Set<PDFObject>()
  if (!(roots instanceof PDFArray)) return { fields, catalog, acroForm, signatureNodes }
  const seen = new Set<PDFDict>()

  /** Visits a field node; true when its subtree holds signature fields only. */
  const visit = (entry: PDFObject, parentName: string | null, inheritedType: PDFObject | undefined, inheritedValue: PDFObject | undefined, depth: number): boolean => {
    const node = asDict(context.lookup(entry))
    if (!node || seen.has(node) || depth > MAX_FIELD_DEPTH || fields.length >= MAX_FIELDS) return false
    seen.add(node)
    const partial = textOf(node.lookup(N.T))
    const name = partial === null ? parentName : parentName === null ? partial : `${parentName}.${partial}`
    const type = node.lookup(N.FT) ?? inheritedType
    const value = node.get(N.V) ?? inheritedValue
    const kids = node.lookup(N.Kids)
    const kidEntries = kids instanceof PDFArray ? kids.asArray() : []
    const childFields = kidEntries.filter((kid) => asDict(context.lookup(kid))?.has(N.T) === true)
    let onlySignatures: boolean
    if (childFields.length > 0) {
      onlySignatures = true
      for (const kid of childFields) onlySignatures = visit(kid, name, type, value, depth + 1) && onlySignatures
    } else {
      onlySignatures = type === N.Sig
      if (onlySignatures) {
        const signature = context.lookup(value)
        fields.push({
          name: name ?? "",
          node,
          ref: entry instanceof PDFRef ? entry : undefined,
          value: asDict(signature),
          valueRef: value instanceof PDFRef ? value : undefined,
          widgets: kidEntries.length > 0 ? kidEntries : [entry],
          loose: false
        })
        for (const widget of kidEntries) signatureNodes.add(widget)
      }
    }
    if (onlySignatures) signatureNodes.add(entry)
    return onlySignatures
  }
  for (const root of roots.asArray()) visit(root, null, undefined, undefined, 0)
  return { fields, catalog, acroForm, signatureNodes }
}

/** Signature dictionaries (a /ByteRange and /Contents) among the indirect objects. */
const looseSignatures = (context: PDFContext): ReadonlyArray<SignatureField> =>
  context.enumerateIndirectObjects().flatMap(([ref, object]) =>
    object instanceof PDFDict && object.has(N.ByteRange) && object.has(N.Contents)
      ? [{ name: "", node: object, ref: undefined, value: object, valueRef: ref, widgets: [], loose: true }]
      : []
  ).slice(0, MAX_VERIFIED)

// ---------------------------------------------------------------------------------------------
// One signature
// ---------------------------------------------------------------------------------------------

interface FieldCheck {
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

const unsignedCheck = (field: SignatureField): FieldCheck => ({
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

/** What the signature value says, whatever the format. */
interface SignatureEvidence {
  readonly signerCertificate: Certificate | undefined
  readonly certificates: ReadonlyArray<Certificate>
  readonly signingTime: Date | null
}

const checkField = (pdf: Uint8Array, field: SignatureField, anchors: ReadonlyArray<Certificate>, digests: Map<string, Buffer>): FieldCheck => {
  const signature = field.value
  if (!signature) return unsignedCheck(field)
  const claimed = textOf(signature.lookup(N.M))
  const claimedIso = claimed === null ? undefined : fromPdfDate(claimed)
  const claimedDate = claimedIso === undefined ? null : new Date(claimedIso)
  const nameEntry = textOf(signature.lookup(N.Name))
  const base = {
    field,
    signed: true,
    reason: textOf(signature.lookup(N.Reason)),
    location: textOf(signature.lookup(N.Location))
  }
  let integrityError: string | null = null
  let range: SignedRange | null = null
  try {
    range = signedRange(pdf, signature)
  } catch (error) {
    integrityError = error instanceof Problem ? error.message : `The signed byte range could not be read: ${messageOf(error)}`
  }
  const subFilter = nameOf(signature.lookup(N.SubFilter))
  let evidence: SignatureEvidence = { signerCertificate: undefined, certificates: [], signingTime: null }
  try {
    const value = range?.contents ?? contentsEntry(signature)
    const outcome = subFilter === "adbe.x509.rsa_sha1"
      ? checkPkcs1(pdf, range, value, signature)
      : checkCms(pdf, range, value, subFilter, digests)
    evidence = outcome.evidence
    integrityError ??= outcome.error
  } catch (error) {
    integrityError ??= error instanceof Problem ? error.message : `The signature could not be checked: ${messageOf(error)}`
  }
  const signingTime = evidence.signingTime ?? claimedDate
  const signer = evidence.signerCertificate
  const trust = signer
    ? evaluateTrust(signer, evidence.certificates, anchors, signingTime ?? new Date())
    : { trusted: false, problem: null }
  return {
    ...base,
    signer: signer?.commonName ?? nameEntry,
    date: signingTime ? signingTime.toISOString() : null,
    integrityError,
    unknownCertificate: !trust.trusted,
    certificateProblem: trust.problem,
    coveredEnd: integrityError === null && range ? range.end : null
  }
}

interface SignedRange {
  /** End of the first range = start of the unsigned gap. */
  readonly gapStart: number
  /** End of the gap = start of the second range. */
  readonly gapEnd: number
  /** End of the second range. */
  readonly end: number
  /** The decoded signature value, read from the gap. */
  readonly contents: Uint8Array
}

const LESS = 0x3c
const GREATER = 0x3e
const CONTENTS_KEY = Buffer.from("/Contents", "latin1")

/**
 * The /ByteRange, checked against the file: two ranges from byte 0 whose gap is exactly the
 * /Contents hex string of this dictionary, so that nothing but the signature value is unsigned.
 */
const signedRange = (pdf: Uint8Array, signature: PDFDict): SignedRange => {
  const array = signature.lookup(N.ByteRange)
  if (!(array instanceof PDFArray)) throw new Problem("The signature has no /ByteRange")
  if (array.size() !== 4) throw new Problem(`The /ByteRange has ${array.size()} numbers; two ranges (four numbers) are supported`)
  const numbers = array.asArray().map((item) => (item instanceof PDFNumber ? item.asNumber() : Number.NaN))
  if (!numbers.every((n) => Number.isSafeInteger(n) && n >= 0)) throw new Problem("The /ByteRange does not hold non-negative integers")
  const [start, firstLength, gapEnd, secondLength] = numbers as [number, number, number, number]
  if (start !== 0) throw new Problem("The signed bytes do not start at the beginning of the file")
  const gapStart = firstLength
  if (gapStart < 1 || gapEnd < gapStart) throw new Problem("The /ByteRange ranges overlap or are out of order")
  const end = gapEnd + secondLength
  if (end > pdf.length) {
    throw new Problem(`The file ends ${end - pdf.length} bytes before the end of the signed bytes: it was truncated or the /ByteRange is wrong`)
  }
  // The gap is the hex string with its delimiters (the usual way) or only its digits.
  let hexStart: number
  let hexEnd: number
  if (pdf[gapStart] === LESS && gapEnd - gapStart >= 2 && pdf[gapEnd - 1] === GREATER) {
    hexStart = gapStart + 1
    hexEnd = gapEnd - 1
  } else if (pdf[gapStart - 1] === LESS && pdf[gapEnd] === GREATER) {
    hexStart = gapStart
    hexEnd = gapEnd
  } else {
    throw new Problem("The unsigned part of the file is not the signature value (/Contents)")
  }
  let key = hexStart - 2
  while (key >= 0 && isWhitespace(pdf[key]!)) key--
  const keyStart = key + 1 - CONTENTS_KEY.length
  if (keyStart < 0 || !CONTENTS_KEY.equals(pdf.subarray(keyStart, key + 1))) {
    throw new Problem("The unsigned part of the file is not the signature value (/Contents)")
  }
  if (hexEnd - hexStart > 2 * MAX_SIGNATURE_BYTES + 1024) {
    throw new Problem(`The signature value is too large (${Math.floor((hexEnd - hexStart) / 2)} bytes; at most ${MAX_SIGNATURE_BYTES} are read)`)
  }
  // The dictionary's own /Contents must be that string (not another /Contents elsewhere).
  const declared = signature.lookup(N.Contents)
  const gapText = Buffer.from(pdf.buffer, pdf.byteOffset + hexStart, hexEnd - hexStart).toString("latin1")
  if (!(declared instanceof PDFHexString) || declared.asString() !== gapText) {
    throw new Problem("The unsigned part of the file is not this signature's /Contents")
  }
  return { gapStart, gapEnd, end, contents: decodeHex(pdf.subarray(hexStart, hexEnd)) }
}

/** The /Contents entry, when the byte range could not be used to find it. */
const contentsEntry = (signature: PDFDict): Uint8Array => {
  const value = signature.lookup(N.Contents)
  if (value instanceof PDFHexString) {
    if (value.asString().length > 2 * MAX_SIGNATURE_BYTES + 1024) throw new Problem("The signature value is too large")
    return decodeHex(Buffer.from(value.asString(), "latin1"))
  }
  if (value instanceof PDFString) return value.asBytes()
  throw new Problem("The signature has no /Contents")
}

const isWhitespace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00

const hexDigit = (byte: number): number => {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  const lower = byte | 0x20
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1
}

const decodeHex = (text: Uint8Array): Uint8Array => {
  const out = new Uint8Array(Math.ceil(text.length / 2))
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const byte = text[i]!
    const digit = hexDigit(byte)
    if (digit < 0) {
      if (isWhitespace(byte)) continue
      throw new Problem("The signature value is not a hexadecimal string")
    }
    if (count % 2 === 0) out[count >> 1] = digit << 4
    else out[count >> 1]! |= digit
    count++
  }
  return out.subarray(0, Math.ceil(count / 2))
}

/** Total length of the DER element at the start of `bytes`; null when it cannot be read. */
const derLength = (bytes: Uint8Array): number | null => {
  if (bytes.length < 2) return null
  const first = bytes[1]!
  if (first < 0x80) return 2 + first <= bytes.length ? 2 + first : null
  const size = first & 0x7f
  if (size === 0 || size > 4 || 2 + size > bytes.length) return null
  let length = 0
  for (let i = 0; i < size; i++) length = length * 256 + bytes[2 + i]!
  const total = 2 + size + length
  return total <= bytes.length ? total : null
}

/** The digest of the signed ranges, computed once per algorithm and range. */
const rangeDigest = (pdf: Uint8Array, range: SignedRange, algorithm: string, digests: Map<string, Buffer>): Buffer => {
  const key = `${algorithm}:${range.gapStart}:${range.gapEnd}:${range.end}`
  let digest = digests.get(key)
  if (!digest) {
    digest = createHash(algorithm).update(pdf.subarray(0, range.gapStart)).update(pdf.subarray(range.gapEnd, range.end)).digest()
    digests.set(key, digest)
  }
  return digest
}

const signedChunks = (pdf: Uint8Array, range: SignedRange): ReadonlyArray<Uint8Array> => [pdf.subarray(0, range.gapStart), pdf.subarray(range.gapEnd, range.end)]

interface Outcome {
  readonly evidence: SignatureEvidence
  /** Why integrity is not established; null when it is. */
  readonly error: string | null
}

const OID = {
  signedData: "1.2.840.113549.1.7.2",
  data: "1.2.840.113549.1.7.1",
  tstInfo: "1.2.840.113549.1.9.16.1.4",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
  commonName: "2.5.4.3",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  subjectKeyIdentifier: "2.5.29.14",
  authorityKeyIdentifier: "2.5.29.35",
  rsaPss: "1.2.840.113549.1.1.10",
  mgf1: "1.2.840.113549.1.1.8"
} as const

/** Digest algorithms, by OID (signature algorithm OIDs too: some signers put them there). */
const DIGESTS: Readonly<Record<string, string>> = {
  "1.3.14.3.2.26": "sha1",
  "2.16.840.1.101.3.4.2.4": "sha224",
  "2.16.840.1.101.3.4.2.1": "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
  "2.16.840.1.101.3.4.2.8": "sha3-256",
  "2.16.840.1.101.3.4.2.9": "sha3-384",
  "2.16.840.1.101.3.4.2.10": "sha3-512",
  "1.2.840.113549.1.1.5": "sha1",
  "1.2.840.113549.1.1.14": "sha224",
  "1.2.840.113549.1.1.11": "sha256",
  "1.2.840.113549.1.1.12": "sha384",
  "1.2.840.113549.1.1.13": "sha512"
}

const digestName = (oid: string): string => {
  const name = DIGESTS[oid]
  if (name) return name
  if (oid === "1.2.840.113549.2.5" || oid === "1.2.840.113549.1.1.4") throw new Problem("The signature uses MD5, which is not accepted")
  throw new Problem(`Unsupported digest algorithm ${oid}`)
}

type SignatureScheme =
  | { readonly kind: "plain"; readonly hash: string }
  | { readonly kind: "pss"; readonly hash: string; readonly saltLength: number }
  | { readonly kind: "eddsa" }

/** Signature algorithms, by OID: the hash they imply (null: the signer info's digest algorithm). */
const SCHEMES: Readonly<Record<string, string | null>> = {
  "1.2.840.113549.1.1.1": null, // rsaEncryption
  "1.2.840.113549.1.1.5": "sha1",
  "1.2.840.113549.1.1.14": "sha224",
  "1.2.840.113549.1.1.11": "sha256",
  "1.2.840.113549.1.1.12": "sha384",
  "1.2.840.113549.1.1.13": "sha512",
  "2.16.840.1.101.3.4.3.13": "sha3-256", // RSA PKCS#1 v1.5 with SHA3
  "2.16.840.1.101.3.4.3.14": "sha3-384",
  "2.16.840.1.101.3.4.3.15": "sha3-512",
  "1.2.840.10045.2.1": null, // id-ecPublicKey, used as a signature algorithm by some signers
  "1.2.840.10045.4.1": "sha1",
  "1.2.840.10045.4.3.1": "sha224",
  "1.2.840.10045.4.3.2": "sha256",
  "1.2.840.10045.4.3.3": "sha384",
  "1.2.840.10045.4.3.4": "sha512",
  "2.16.840.1.101.3.4.3.10": "sha3-256", // ECDSA with SHA3
  "2.16.840.1.101.3.4.3.11": "sha3-384",
  "2.16.840.1.101.3.4.3.12": "sha3-512",
  "1.2.840.10040.4.1": null, // DSA
  "1.2.840.10040.4.3": "sha1",
  "2.16.840.1.101.3.4.3.1": "sha224",
  "2.16.840.1.101.3.4.3.2": "sha256"
}

const signatureScheme = (algorithm: pkijs.AlgorithmIdentifier, digest: string): SignatureScheme => {
  const oid = algorithm.algorithmId
  if (oid === "1.3.101.112" || oid === "1.3.101.113") return { kind: "eddsa" }
  if (oid === OID.rsaPss) {
    const params = new pkijs.RSASSAPSSParams({ schema: algorithm.algorithmParams })
    const hash = digestName(params.hashAlgorithm.algorithmId)
    const mgf = params.maskGenAlgorithm
    const mgfHash = mgf.algorithmId === OID.mgf1 && mgf.algorithmParams
      ? digestName(new pkijs.AlgorithmIdentifier({ schema: mgf.algorithmParams }).algorithmId)
      : "sha1"
    if (mgf.algorithmId !== OID.mgf1 || mgfHash !== hash) throw new Problem("Unsupported RSA-PSS parameters (MGF1 with another hash)")
    return { kind: "pss", hash, saltLength: params.saltLength }
  }
  if (!(oid in SCHEMES)) throw new Problem(`Unsupported signature algorithm ${oid}`)
  return { kind: "plain", hash: SCHEMES[oid] ?? digest }
}

const verifySignatureValue = (scheme: SignatureScheme, key: KeyObject, chunks: ReadonlyArray<Uint8Array>, signature: Uint8Array): boolean => {
  if (scheme.kind === "eddsa") {
    if (chunks.length !== 1) throw new Problem("Ed25519/Ed448 signatures are supported over signed attributes only")
    return verifyOneShot(null, chunks[0]!, key, signature)
  }
  const verifier = createVerify(scheme.hash)
  for (const chunk of chunks) verifier.update(chunk)
  return scheme.kind === "pss"
    ? verifier.verify({ key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: scheme.saltLength }, signature)
    : verifier.verify(key, signature)
}

const parseSignedData = (value: Uint8Array): pkijs.SignedData => {
  const length = value[0] === 0x30 && value[1] === 0x80 ? value.length : derLength(value)
  if (length === null || value[0] !== 0x30) throw new Problem("The signature value is not a CMS (PKCS#7) structure")
  const der = value.subarray(0, length)
  const asn1 = asn1js.fromBER(der, { maxNodes: MAX_ASN1_NODES, maxContentLength: der.length })
  if (asn1.offset === -1) throw new Problem(`The signature value is not a valid CMS (PKCS#7) structure: ${asn1.result.error}`)
  let info: pkijs.ContentInfo
  try {
    info = new pkijs.ContentInfo({ schema: asn1.result })
  } catch {
    throw new Problem("The signature value is not a CMS (PKCS#7) structure")
  }
  if (info.contentType !== OID.signedData) throw new Problem(`The signature value is not CMS SignedData (content type ${info.contentType})`)
  try {
    return new pkijs.SignedData({ schema: info.content })
  } catch (error) {
    throw new Problem(`The CMS SignedData could not be read: ${messageOf(error)}`)
  }
}

const attributeValue = (signerInfo: pkijs.SignerInfo, type: string): unknown => signerInfo.signedAttrs?.attributes.find((attribute) => attribute.type === type)?.values[0]

const octets = (block: unknown): Uint8Array | null =>
  block instanceof asn1js.OctetString ? new Uint8Array(block.getValue()) : null

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b)

/**
 * A CMS signature (adbe.pkcs7.detached, ETSI.CAdES.detached, adbe.pkcs7.sha1, ETSI.RFC3161): the
 * signer's certificate and signing time are gathered even when integrity fails, so that the report
 * still names the signer.
 */
const checkCms = (pdf: Uint8Array, range: SignedRange | null, value: Uint8Array, subFilter: string | null, digests: Map<string, Buffer>): Outcome => {
  const signedData = parseSignedData(value)
  const certificates = (signedData.certificates ?? []).flatMap((item) => {
    const cert = item instanceof pkijs.Certificate ? certificateFromPkijs(item) : null
    return cert ? [cert] : []
  })
  const signerInfo = signedData.signerInfos[0]
  if (!signerInfo) return { evidence: { signerCertificate: undefined, certificates, signingTime: null }, error: "The signature has no signer" }
  const signerCertificate = findSigner(signerInfo, certificates)
  const eContent = signedData.encapContentInfo.eContent
  const encapsulated = eContent ? new Uint8Array(eContent.getValue()) : null
  const eContentType = signedData.encapContentInfo.eContentType
  let signingTime: Date | null = null
  const time = attributeValue(signerInfo, OID.signingTime)
  if (time instanceof asn1js.UTCTime || time instanceof asn1js.GeneralizedTime) signingTime = time.toDate()
  let timestamp: pkijs.TSTInfo | null = null
  if (eContentType === OID.tstInfo && encapsulated) {
    try {
      timestamp = pkijs.TSTInfo.fromBER(encapsulated)
      // The time stamping authority's time, rather than any signingTime attribute.
      signingTime = timestamp.genTime
    } catch {
      timestamp = null
    }
  }
  const evidence: SignatureEvidence = { signerCertificate, certificates, signingTime }
  const fail = (error: string): Outcome => ({ evidence, error })
  if (signedData.signerInfos.length > 1) return fail(`The signature has ${signedData.signerInfos.length} signers; a PDF signature has one`)
  if (!range) return fail("The signed byte range is not usable")
  if (!signerCertificate) return fail("The signer's certificate is not in the signature")

  const digest = digestName(signerInfo.digestAlgorithm.algorithmId)
  // What the CMS signs (its "content"), and the check tying it to the file's bytes.
  let content: ReadonlyArray<Uint8Array>
  let contentDigest: () => Buffer
  if (eContentType === OID.tstInfo || subFilter === "ETSI.RFC3161") {
    if (!timestamp || !encapsulated) return fail("The document timestamp has no readable TSTInfo")
    const imprintDigest = digestName(timestamp.messageImprint.hashAlgorithm.algorithmId)
    if (!sameBytes(new Uint8Array(timestamp.messageImprint.hashedMessage.getValue()), rangeDigest(pdf, range, imprintDigest, digests))) {
      return fail("The document digest does not match the timestamp (the signed bytes were changed)")
    }
    content = [encapsulated]
    contentDigest = () => createHash(digest).update(encapsulated).digest()
  } else if (encapsulated) {
    // adbe.pkcs7.sha1: the encapsulated content is the SHA-1 digest of the signed bytes.
    if (!sameBytes(encapsulated, rangeDigest(pdf, range, "sha1", digests))) {
      return fail("The document digest does not match the signature (the signed bytes were changed)")
    }
    content = [encapsulated]
    contentDigest = () => createHash(digest).update(encapsulated).digest()
  } else {
    content = signedChunks(pdf, range)
    contentDigest = () => rangeDigest(pdf, range, digest, digests)
  }

  let message: ReadonlyArray<Uint8Array> = content
  if (signerInfo.signedAttrs) {
    const declared = octets(attributeValue(signerInfo, OID.messageDigest))
    if (!declared) return fail("The signature has no message digest attribute")
    if (!sameBytes(declared, contentDigest())) return fail("The document digest does not match the signature (the signed bytes were changed)")
    const type = attributeValue(signerInfo, OID.contentType)
    if (type instanceof asn1js.ObjectIdentifier && type.getValue() !== eContentType) {
      return fail("The content type attribute does not match the signed content")
    }
    message = [new Uint8Array(signerInfo.signedAttrs.encodedValue)]
  }
  const scheme = signatureScheme(signerInfo.signatureAlgorithm, digest)
  const ok = verifySignatureValue(scheme, signerCertificate.publicKey, message, new Uint8Array(signerInfo.signature.getValue()))
  return ok ? { evidence, error: null } : fail("The signature does not verify with the signer's certificate (the signature or the signed bytes were changed)")
}

/** adbe.x509.rsa_sha1: /Contents is a DER OCTET STRING holding a PKCS#1 signature, /Cert the certificates. */
const checkPkcs1 = (pdf: Uint8Array, range: SignedRange | null, value: Uint8Array, signature: PDFDict): Outcome => {
  const entry = signature.lookup(N.Cert)
  const raw = entry instanceof PDFArray ? entry.asArray() : entry ? [entry] : []
  const certificates = raw.flatMap((item) => {
    const cert = item instanceof PDFString || item instanceof PDFHexString ? certificateFromDer(item.asBytes()) : null
    return cert ? [cert] : []
  })
  const signerCertificate = certificates[0]
  const evidence: SignatureEvidence = { signerCertificate, certificates, signingTime: null }
  if (!signerCertificate) return { evidence, error: "The signer's certificate (/Cert) is missing" }
  if (!range) return { evidence, error: "The signed byte range is not usable" }
  const asn1 = asn1js.fromBER(value.subarray(0, derLength(value) ?? value.length))
  const signed = octets(asn1.result)
  if (!signed) return { evidence, error: "The signature value is not a DER OCTET STRING" }
  // The signature carries its digest algorithm in its DigestInfo: recover it to hash accordingly.
  let digestInfo: Buffer
  try {
    digestInfo = Buffer.from(verifyRecover(signerCertificate.publicKey, signed))
  } catch {
    return { evidence, error: "The signature does not verify with the signer's certificate" }
  }
  const info = asn1js.fromBER(digestInfo)
  const parsed = info.offset === -1 ? null : (() => {
    try {
      return new pkijs.DigestInfo({ schema: info.result })
    } catch {
      return null
    }
  })()
  if (!parsed) return { evidence, error: "The signature does not verify with the signer's certificate" }
  const digest = digestName(parsed.digestAlgorithm.algorithmId)
  const ok = verifySignatureValue({ kind: "plain", hash: digest }, signerCertificate.publicKey, signedChunks(pdf, range), signed)
  return ok ? { evidence, error: null } : { evidence, error: "The document digest does not match the signature (the signed bytes were changed)" }
}

/** The DigestInfo inside an RSA PKCS#1 v1.5 signature, decrypted with the public key. */
const verifyRecover = (key: KeyObject, signature: Uint8Array): Uint8Array => {
  if (key.asymmetricKeyType !== "rsa") throw new Problem("adbe.x509.rsa_sha1 needs an RSA key")
  return publicDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, signature)
}

// ---------------------------------------------------------------------------------------------
// Certificates and trust
// ---------------------------------------------------------------------------------------------

/** What the checks read from a certificate, parsed with pkijs when first needed. */
interface CertificateDetails {
  readonly certificate: pkijs.Certificate
  readonly commonName: string | null
  readonly subject: string
  readonly notBefore: Date
  readonly notAfter: Date
  /** basicConstraints cA; undefined without the extension. */
  readonly ca: boolean | undefined
  /** keyUsage keyCertSign; true without the extension. */
  readonly mayIssue: boolean
  /** keyUsage digitalSignature or nonRepudiation; true without the extension. */
  readonly maySign: boolean
  readonly subjectKeyId: string | null
  readonly authorityKeyId: string | null
}

/**
 * A certificate: node's X509Certificate (fast to parse: a system bundle's 150 roots take
 * milliseconds) and, lazily, pkijs's reading of it (a few milliseconds each).
 */
class Certificate {
  readonly fingerprint: string
  #details: CertificateDetails | null | undefined
  #publicKey: KeyObject | undefined

  constructor(readonly x509: X509Certificate, private readonly der: Uint8Array, parsed?: pkijs.Certificate) {
    this.fingerprint = x509.fingerprint256
    if (parsed) this.#details = readDetails(parsed)
  }

  get publicKey(): KeyObject {
    return (this.#publicKey ??= this.x509.publicKey)
  }

  get details(): CertificateDetails | null {
    if (this.#details === undefined) {
      const asn1 = asn1js.fromBER(this.der)
      this.#details = asn1.offset === -1 ? null : readDetails(new pkijs.Certificate({ schema: asn1.result }))
    }
    return this.#details
  }

  get commonName(): string | null {
    return this.details?.commonName ?? null
  }
}

const certificateFromDer = (der: Uint8Array): Certificate | null => {
  try {
    return new Certificate(new X509Certificate(der), der)
  } catch {
    return null
  }
}

/**
 * A certificate of a signature. Its DER is pkijs's re-encoding, which keeps the signed part byte
 * for byte (and the rest too for DER input), so that it has the fingerprint of the same
 * certificate in the trust store.
 */
const certificateFromPkijs = (certificate: pkijs.Certificate): Certificate | null => {
  try {
    const der = new Uint8Array(certificate.toSchema().toBER(false))
    return new Certificate(new X509Certificate(der), der, certificate)
  } catch {
    return null
  }
}

const readDetails = (certificate: pkijs.Certificate): CertificateDetails | null => {
  try {
    const extension = (id: string) => certificate.extensions?.find((e) => e.extnID === id)?.parsedValue
    const constraints = extension(OID.basicConstraints)
    const usage = extension(OID.keyUsage)
    const usageBits = usage instanceof asn1js.BitString ? usage.valueBlock.valueHexView : null
    const ski = extension(OID.subjectKeyIdentifier)
    const aki = extension(OID.authorityKeyIdentifier)
    return {
      certificate,
      commonName: commonName(certificate.subject),
      subject: distinguishedName(certificate.subject),
      notBefore: certificate.notBefore.value,
      notAfter: certificate.notAfter.value,
      ca: constraints instanceof pkijs.BasicConstraints ? constraints.cA : undefined,
      mayIssue: usageBits === null || ((usageBits[0] ?? 0) & 0x04) !== 0,
      maySign: usageBits === null || ((usageBits[0] ?? 0) & 0xc0) !== 0,
      subjectKeyId: ski instanceof asn1js.OctetString ? Buffer.from(ski.getValue()).toString("hex") : null,
      authorityKeyId: aki instanceof pkijs.AuthorityKeyIdentifier && aki.keyIdentifier ? Buffer.from(aki.keyIdentifier.getValue()).toString("hex") : null
    }
  } catch {
    return null
  }
}

const attributeText = (value: unknown): string | null => {
  const block = value as { valueBlock?: { value?: unknown } }
  return typeof block?.valueBlock?.value === "string" ? block.valueBlock.value : null
}

const commonName = (name: pkijs.RelativeDistinguishedNames): string | null => {
  const cn = name.typesAndValues.find((tv) => tv.type === OID.commonName)
  return cn ? attributeText(cn.value) : null
}

const SHORT_NAMES: Readonly<Record<string, string>> = { "2.5.4.3": "CN", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST" }

const distinguishedName = (name: pkijs.RelativeDistinguishedNames): string =>
  name.typesAndValues.map((tv) => `${SHORT_NAMES[tv.type] ?? tv.type}=${attributeText(tv.value) ?? "?"}`).join(", ")

const findSigner = (signerInfo: pkijs.SignerInfo, certificates: ReadonlyArray<Certificate>): Certificate | undefined => {
  const sid: unknown = signerInfo.sid
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return certificates.find((c) => c.details?.certificate.issuer.isEqual(sid.issuer) && c.details.certificate.serialNumber.isEqual(sid.serialNumber))
  }
  // [0] SubjectKeyIdentifier
  const block = sid as { valueBlock?: { valueHexView?: Uint8Array; value?: ReadonlyArray<{ valueBlock?: { valueHexView?: Uint8Array } }> } }
  const id = block.valueBlock?.value?.[0]?.valueBlock?.valueHexView ?? block.valueBlock?.valueHexView
  if (!id || id.length === 0) return undefined
  const hex = Buffer.from(id).toString("hex")
  return certificates.find((c) => c.details?.subjectKeyId === hex)
}

const validAt = (cert: CertificateDetails, at: Date) => cert.notBefore.getTime() <= at.getTime() && at.getTime() <= cert.notAfter.getTime()

const validity = (cert: CertificateDetails) => `valid from ${cert.notBefore.toISOString()} to ${cert.notAfter.toISOString()}`

/**
 * Whether a chain leads from the signer's certificate to a trusted certificate, through the
 * signature's certificates and the trust store, every link's signature verified, every certificate
 * valid at `at`, every intermediate a CA allowed to sign certificates. A certificate of the trust
 * store is trusted as it is (it ends the chain, whether it is a root, an intermediate or the
 * signer's own certificate). Not checked: revocation (nothing fetched — no OCSP, CRL or AIA —
 * and revocation data embedded in the signature is ignored), name constraints, policies, path
 * length constraints, extended key usage.
 */
const evaluateTrust = (
  signer: Certificate,
  embedded: ReadonlyArray<Certificate>,
  anchors: ReadonlyArray<Certificate>,
  at: Date
): { readonly trusted: boolean; readonly problem: string | null } => {
  const own = signer.details
  if (!own) return { trusted: false, problem: "The signer's certificate could not be read" }
  if (!own.maySign) return { trusted: false, problem: "The signer's certificate is not allowed to sign (key usage)" }
  if (!validAt(own, at)) {
    return { trusted: false, problem: `The signer's certificate was not valid at the signing time ${at.toISOString()} (${validity(own)})` }
  }
  const trusted = new Set(anchors.map((a) => a.fingerprint))
  const pool = [...anchors, ...embedded]
  let problem: string | null = null
  const issuedBy = (child: Certificate, parent: Certificate): CertificateDetails | null => {
    // Names compared natively first (cheap), then as X.500 names by pkijs.
    if (child.x509.issuer !== parent.x509.subject) return null
    const childDetails = child.details
    const details = parent.details
    if (!childDetails || !details || !childDetails.certificate.issuer.isEqual(details.certificate.subject)) return null
    if (childDetails.authorityKeyId && details.subjectKeyId && childDetails.authorityKeyId !== details.subjectKeyId) return null
    try {
      return child.x509.verify(parent.publicKey) ? details : null
    } catch {
      return null
    }
  }
  const reaches = (cert: Certificate, path: ReadonlySet<string>): boolean => {
    if (trusted.has(cert.fingerprint)) return true
    if (path.size >= MAX_CHAIN_LENGTH) return false
    for (const parent of pool) {
      if (path.has(parent.fingerprint) || parent.fingerprint === cert.fingerprint) continue
      const details = issuedBy(cert, parent)
      if (!details) continue
      if (!trusted.has(parent.fingerprint) && (details.ca !== true || !details.mayIssue)) {
        problem ??= `The certificate "${details.subject}" is not a certification authority`
        continue
      }
      if (!validAt(details, at)) {
        problem ??= `The certificate "${details.subject}" was not valid at the signing time ${at.toISOString()} (${validity(details)})`
        continue
      }
      if (reaches(parent, new Set([...path, cert.fingerprint]))) return true
    }
    return false
  }
  return reaches(signer, new Set()) ? { trusted: true, problem: null } : { trusted: false, problem }
}

// ---------------------------------------------------------------------------------------------
// Changes after signing
// ---------------------------------------------------------------------------------------------

/**
 * For every signature whose bytes end before the end of the file, what the later revisions
 * changed; no entry means nothing but signature-related changes.
 *
 * The decision: the revision a signature covers (the file up to its /ByteRange's end) is parsed
 * again and compared object by object with the final document. These changes are what adding a
 * signature does, and are not reported:
 * - new objects, unless the signed revision already referred to them (a dangling reference filled
 *   in later would change signed content without touching a signed object);
 * - the catalog gaining or changing /AcroForm, /DSS (validation data), /Metadata, /Extensions;
 * - the form (/AcroForm) changing /SigFlags, /DR, /DA, or gaining signature fields in /Fields;
 * - a page gaining signature widgets in /Annots (nothing else of the page may change);
 * - a signature field that was not signed getting its /V and appearance (/AP, /AS, /MK, ...), and
 *   the appearance streams of such fields; a parent field gaining signature-only kids;
 * - the document information dictionary, the XMP metadata, and validation data (/DSS and below) —
 *   provided the object is not also reachable from a page's content (so that pointing /Metadata or
 *   /DSS at a content stream cannot hide a change to it).
 * Anything else — page content or resources, annotations other than signature widgets, a field or
 * signature dictionary that was already signed, fields or annotations removed, a new catalog — is
 * a change, reported as "The document was changed after this signature (N bytes added: ...)" with
 * the objects concerned. Appended bytes that change no object (whitespace, an empty revision) are
 * not a change. Not considered: DocMDP/FieldMDP permissions (a certification signature allowing no
 * change is treated like an approval signature), and how a viewer would render unchanged objects
 * differently (e.g. appearances regenerated because of /NeedAppearances).
 */
const changesAfter = async (
  pdf: Uint8Array,
  context: PDFContext,
  form: SignatureForm,
  checks: ReadonlyArray<FieldCheck>
): Promise<ReadonlyMap<number, string>> => {
  const ends = [...new Set(checks.flatMap((c) => (c.coveredEnd !== null && c.coveredEnd < pdf.length ? [c.coveredEnd] : [])))]
    .filter((end) => !pdf.subarray(end).every(isWhitespace))
    .sort((a, b) => a - b)
  const result = new Map<number, string>()
  if (ends.length === 0) return result
  const roles = finalRoles(context, form)
  const current = new Map<string, Snapshot>()
  for (const [ref, object] of context.enumerateIndirectObjects()) current.set(ref.tag, snapshot(object))
  for (const [index, end] of ends.entries()) {
    const added = pdf.length - end
    if (index >= MAX_REVISIONS) {
      result.set(end, `The document was changed after this signature (${added} bytes added; not analysed: too many revisions)`)
      continue
    }
    let changes: ReadonlyArray<string>
    try {
      const earlier = await parsePdf(pdf.subarray(0, end))
      changes = compareRevisions(revisionSnapshot(earlier), context, current, roles)
    } catch (error) {
      changes = [`a revision that could not be compared (${messageOf(error)})`]
    }
    if (changes.length === 0) continue
    const listed = changes.slice(0, MAX_LISTED_CHANGES).join(", ")
    const more = changes.length > MAX_LISTED_CHANGES ? ` and ${changes.length - MAX_LISTED_CHANGES} more` : ""
    result.set(end, `The document was changed after this signature (${added} bytes added: ${listed}${more})`)
  }
  return result
}

/** An object as compared between revisions: its text, and a digest of its stream data if any. */
interface Snapshot {
  readonly text: string
  readonly data: string | null
}

const digestHex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const snapshot = (object: PDFObject): Snapshot => {
  if (object instanceof PDFRawStream) return { text: object.dict.toString(), data: digestHex(object.contents) }
  if (object instanceof PDFInvalidObject) {
    const bytes = new Uint8Array(object.sizeInBytes())
    object.copyBytesInto(bytes, 0)
    return { text: "(invalid)", data: digestHex(bytes) }
  }
  return { text: object.toString(), data: null }
}

interface RevisionSnapshot {
  readonly objects: ReadonlyMap<string, Snapshot>
  /** Every reference made by the revision's objects. */
  readonly referenced: ReadonlySet<string>
  readonly root: string | null
  readonly encrypt: string | null
}

const revisionSnapshot = (context: PDFContext): RevisionSnapshot => {
  const objects = new Map<string, Snapshot>()
  const referenced = new Set<string>()
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    objects.set(ref.tag, snapshot(object))
    forEachChild(object, (child) => {
      if (child instanceof PDFRef) referenced.add(child.tag)
    })
  }
  const { Root, Encrypt } = context.trailerInfo
  return { objects, referenced, root: Root ? Root.toString() : null, encrypt: Encrypt ? Encrypt.toString() : null }
}

/** Calls `visit` for every value inside an object (direct values recursively; references not followed). */
const forEachChild = (object: PDFObject, visit: (child: PDFObject, key: PDFName | null) => void, depth = 0): void => {
  if (depth > 64) return
  const dict = object instanceof PDFRawStream ? object.dict : object
  if (dict instanceof PDFDict) {
    for (const [key, value] of dict.entries()) {
      visit(value, key)
      forEachChild(value, visit, depth + 1)
    }
  } else if (dict instanceof PDFArray) {
    for (const item of dict.asArray()) {
      visit(item, null)
      forEachChild(item, visit, depth + 1)
    }
  }
}

interface Roles {
  readonly catalog: string | null
  readonly acroForm: string | null
  readonly fieldsArray: string | null
  readonly pages: ReadonlyMap<string, number>
  /** Content streams (and arrays of them), with their page number. */
  readonly pageContents: ReadonlyMap<string, number>
  readonly annotsArrays: ReadonlyMap<string, number>
  /** Signature fields and their widgets, by reference; null for parents holding signature fields only. */
  readonly signatureNodes: ReadonlyMap<string, SignatureField | null>
  readonly signatureNodeObjects: ReadonlySet<PDFObject>
  readonly signatureValues: ReadonlyMap<string, SignatureField>
  readonly appearances: ReadonlyMap<string, SignatureField>
  /** Information dictionary, XMP metadata, validation data. */
  readonly metadata: ReadonlySet<string>
  /** Objects reachable from the pages other than through signature widgets. */
  readonly content: ReadonlySet<string>
}

const tagOf = (object: PDFObject | undefined): string | null => (object instanceof PDFRef ? object.tag : null)

/** Objects reachable from `starts` (indirect ones, by tag), not entering `skip` nor following the `ignore` keys. */
const reachable = (context: PDFContext, starts: ReadonlyArray<PDFObject>, skip: (tag: string) => boolean, ignore: ReadonlySet<PDFName>): Set<string> => {
  const seen = new Set<string>()
  const stack = [...starts]
  while (stack.length > 0) {
    const entry = stack.pop()!
    if (entry instanceof PDFRef) {
      if (seen.has(entry.tag) || skip(entry.tag)) continue
      seen.add(entry.tag)
    }
    const object = context.lookup(entry)
    if (object === undefined) continue
    forEachChild(object, (child, key) => {
      if (child instanceof PDFRef && (key === null || !ignore.has(key))) stack.push(child)
    })
  }
  return seen
}

/** What each indirect object of the final document is, for the objects the rules care about. */
const finalRoles = (context: PDFContext, form: SignatureForm): Roles => {
  const pages = new Map<string, number>()
  const pageContents = new Map<string, number>()
  const annotsArrays = new Map<string, number>()
  const seenNodes = new Set<PDFDict>()
  const walkPages = (entry: PDFObject | undefined, depth: number) => {
    const node = asDict(context.lookup(entry))
    if (!node || seenNodes.has(node) || depth > 64 || pages.size >= MAX_PAGES) return
    seenNodes.add(node)
    const kids = node.lookup(N.Kids)
    if (kids instanceof PDFArray && node.lookup(N.Type) !== N.Page) {
      for (const kid of kids.asArray()) walkPages(kid, depth + 1)
      return
    }
    const tag = tagOf(entry)
    if (tag) pages.set(tag, pages.size + 1)
    const annots = tagOf(node.get(N.Annots))
    if (annots) annotsArrays.set(annots, pages.size)
    const contents = node.get(N.Contents)
    const streams = context.lookup(contents)
    for (const stream of [contents, ...(streams instanceof PDFArray ? streams.asArray() : [])]) {
      const streamTag = tagOf(stream)
      if (streamTag && !pageContents.has(streamTag)) pageContents.set(streamTag, pages.size)
    }
  }
  walkPages(form.catalog?.get(N.Pages), 0)

  const signatureNodes = new Map<string, SignatureField | null>()
  const signatureValues = new Map<string, SignatureField>()
  const appearances = new Map<string, SignatureField>()
  for (const node of form.signatureNodes) {
    const tag = tagOf(node)
    if (tag) signatureNodes.set(tag, null)
  }
  for (const field of form.fields) {
    if (field.ref) signatureNodes.set(field.ref.tag, field)
    if (field.valueRef) signatureValues.set(field.valueRef.tag, field)
    for (const widget of field.widgets) {
      const tag = tagOf(widget)
      if (tag) signatureNodes.set(tag, field)
      const ap = asDict(context.lookup(widget))?.lookup(N.AP)
      for (const [, entry] of ap instanceof PDFDict ? ap.entries() : []) {
        const states = context.lookup(entry)
        const streams = states instanceof PDFDict && !(entry instanceof PDFRef) ? states.entries().map(([, v]) => v) : [entry]
        for (const stream of streams) {
          const streamTag = tagOf(stream)
          if (streamTag) appearances.set(streamTag, field)
        }
      }
    }
  }

  const metadataStarts = [context.trailerInfo.Info, form.catalog?.get(N.Metadata), form.catalog?.get(N.DSS)].filter((o): o is PDFObject => o !== undefined)
  const metadata = reachable(context, metadataStarts, () => false, new Set())
  const content = reachable(context, [...pages.keys()].map(refOfTag), (tag) => signatureNodes.has(tag), new Set([PDFName.of("Parent"), PDFName.of("P")]))

  return {
    catalog: tagOf(context.trailerInfo.Root),
    acroForm: tagOf(form.catalog?.get(N.AcroForm)),
    fieldsArray: tagOf(form.acroForm?.get(N.Fields)),
    pages,
    pageContents,
    annotsArrays,
    signatureNodes,
    signatureNodeObjects: form.signatureNodes,
    signatureValues,
    appearances,
    metadata,
    content
  }
}

const refOfTag = (tag: string): PDFRef => {
  const [objectNumber, generation] = tag.split(" ")
  return PDFRef.of(Number(objectNumber), Number(generation))
}

/** An object of an earlier revision, parsed back from its text (stream data left out). */
const reparse = (text: string): PDFObject | undefined => {
  try {
    return PDFObjectParser.forBytes(Buffer.from(text, "latin1"), PDFContext.create()).parseObject()
  } catch {
    return undefined
  }
}

/** The keys whose values differ between two versions of a dictionary. */
const changedKeys = (before: PDFDict | undefined, after: PDFDict | undefined): ReadonlyArray<string> => {
  const old = new Map((before?.entries() ?? []).map(([k, v]) => [k.decodeText(), v.toString()] as const))
  const now = new Map((after?.entries() ?? []).map(([k, v]) => [k.decodeText(), v.toString()] as const))
  const keys = new Set<string>()
  for (const [k, v] of now) if (old.get(k) !== v) keys.add(k)
  for (const k of old.keys()) if (!now.has(k)) keys.add(k)
  return [...keys]
}

const FORM_KEYS = new Set(["SigFlags", "DR", "DA"])
const CATALOG_KEYS = new Set(["DSS", "Metadata", "Extensions"])
const SIGNING_KEYS = new Set(["V", "AP", "AS", "MK", "F", "Lock", "SV", "DA", "P"])

/** What changed from an earlier revision to the final document, other than signing (see `changesAfter`). */
const compareRevisions = (earlier: RevisionSnapshot, context: PDFContext, current: ReadonlyMap<string, Snapshot>, roles: Roles): ReadonlyArray<string> => {
  const changes: Array<string> = []
  if ((context.trailerInfo.Root?.toString() ?? null) !== earlier.root) changes.push("a new document catalog")
  if ((context.trailerInfo.Encrypt?.toString() ?? null) !== earlier.encrypt) changes.push("the encryption")

  /** A value as it was in the earlier revision, a reference resolved. */
  const before = (value: PDFObject | undefined): PDFObject | undefined => {
    if (!(value instanceof PDFRef)) return value
    const prior = earlier.objects.get(value.tag)
    return prior ? reparse(prior.text) : undefined
  }
  const itemsBefore = (value: PDFObject | undefined): ReadonlyArray<string> => {
    const array = before(value)
    return array instanceof PDFArray ? array.asArray().map((item) => item.toString()) : []
  }
  const isSignatureNode = (item: PDFObject) => roles.signatureNodeObjects.has(item) || (item instanceof PDFRef && roles.signatureNodes.has(item.tag))
  /** Whether an array (entry) only gained signature fields or widgets from its earlier version. */
  const onlyGainedSignatures = (old: PDFObject | undefined, now: PDFObject | undefined): boolean => {
    const remaining = new Map<string, number>()
    for (const item of itemsBefore(old)) remaining.set(item, (remaining.get(item) ?? 0) + 1)
    const array = context.lookup(now)
    for (const item of array instanceof PDFArray ? array.asArray() : []) {
      const key = item.toString()
      const count = remaining.get(key) ?? 0
      if (count > 0) remaining.set(key, count - 1)
      else if (!isSignatureNode(item)) return false
    }
    return [...remaining.values()].every((count) => count === 0)
  }
  const wasUnsigned = (field: SignatureField): boolean => {
    const tag = tagOf(field.ref ?? field.widgets[0])
    if (!tag) return false
    const prior = earlier.objects.get(tag)
    return prior === undefined || asDict(reparse(prior.text))?.has(N.V) === false
  }
  const formChanged = (old: PDFDict | undefined, now: PDFDict | undefined): boolean =>
    changedKeys(old, now).some((key) => (key === "Fields" ? !onlyGainedSignatures(old?.get(N.Fields), now?.get(N.Fields)) : !FORM_KEYS.has(key)))
  const listKeys = (keys: ReadonlyArray<string>) => keys.map((k) => `/${k}`).join(", ")

  for (const [tag, now] of current) {
    const prior = earlier.objects.get(tag)
    if (prior && prior.text === now.text && prior.data === now.data) continue
    const objectNumber = tag.split(" ")[0] ?? "?"
    if (!prior) {
      if (earlier.referenced.has(tag)) changes.push(`object ${objectNumber} (referred to by the signed revision, defined later)`)
      continue
    }
    const inContent = roles.content.has(tag)
    const object = context.lookup(refOfTag(tag))
    const dict = asDict(object instanceof PDFRawStream ? object.dict : object)
    const old = asDict(reparse(prior.text))

    if (tag === roles.catalog) {
      const keys = changedKeys(old, dict).filter((key) =>
        key === "AcroForm" ? formChanged(asDict(before(old?.get(N.AcroForm))), asDict(context.lookup(dict?.get(N.AcroForm)))) : !CATALOG_KEYS.has(key)
      )
      if (keys.length > 0) changes.push(`the document catalog (${listKeys(keys)})`)
    } else if (tag === roles.acroForm) {
      if (formChanged(old, dict)) changes.push("the form (/AcroForm)")
    } else if (tag === roles.fieldsArray) {
      if (!onlyGainedSignatures(refOfTag(tag), refOfTag(tag))) changes.push("the form's fields")
    } else if (roles.pages.has(tag)) {
      const keys = changedKeys(old, dict).filter((key) => key !== "Annots" || !onlyGainedSignatures(old?.get(N.Annots), dict?.get(N.Annots)))
      if (keys.length > 0) changes.push(`page ${roles.pages.get(tag)} (${listKeys(keys)})`)
    } else if (roles.annotsArrays.has(tag)) {
      if (!onlyGainedSignatures(refOfTag(tag), refOfTag(tag))) changes.push(`the annotations of page ${roles.annotsArrays.get(tag)}`)
    } else if (roles.signatureNodes.has(tag)) {
      const field = roles.signatureNodes.get(tag) ?? null
      const signing = field !== null && wasUnsigned(field)
      const keys = changedKeys(old, dict).filter((key) =>
        key === "Kids" ? !onlyGainedSignatures(old?.get(N.Kids), dict?.get(N.Kids)) : !(signing && SIGNING_KEYS.has(key))
      )
      if (keys.length > 0) changes.push(field ? `the signature field "${field.name}"` : describeObject(objectNumber, object))
    } else if (roles.pageContents.has(tag)) {
      changes.push(`the content of page ${roles.pageContents.get(tag)}`)
    } else if (roles.signatureValues.has(tag)) {
      changes.push(`the signature dictionary of "${roles.signatureValues.get(tag)!.name}"`)
    } else {
      // Metadata, validation data, appearances of newly signed fields: allowed unless the pages show them.
      const appearanceOf = roles.appearances.get(tag)
      const allowed = !inContent && (roles.metadata.has(tag) || (appearanceOf !== undefined && wasUnsigned(appearanceOf)))
      if (!allowed) changes.push(describeObject(objectNumber, object))
    }
  }
  return changes
}

const describeObject = (objectNumber: string, object: PDFObject | undefined): string => {
  const dict = asDict(object instanceof PDFRawStream ? object.dict : object)
  const type = dict?.lookup(N.Type)
  const subtype = dict?.lookup(N.Subtype)
  const kind = [type, subtype].flatMap((name) => (name instanceof PDFName ? [name.toString()] : [])).join(" ")
  const what = object instanceof PDFRawStream ? (kind ? `${kind} stream` : "stream") : kind
  return what ? `object ${objectNumber} (${what})` : `object ${objectNumber}`
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

const asDict = (object: PDFObject | undefined): PDFDict | undefined => (object instanceof PDFDict ? object : undefined)

/** The signature dictionary's texts and names as its report gives them: null when absent. */
const textOf = (object: PDFObject | undefined): string | null => pdfTextOf(object) ?? null
const nameOf = (object: PDFObject | undefined): string | null => pdfNameOf(object) ?? null

