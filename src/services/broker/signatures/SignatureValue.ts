/**
 * The signature value (/Contents) checked against the signed bytes, per format: a CMS (PKCS#7)
 * structure read with pkijs — adbe.pkcs7.detached, ETSI.CAdES.detached, adbe.pkcs7.sha1 (SHA-1
 * digest as encapsulated content), ETSI.RFC3161 document timestamps — whose `messageDigest`
 * attribute must match the digest of the signed ranges and whose signature must verify with the
 * signer certificate's public key; or adbe.x509.rsa_sha1, a bare PKCS#1 signature with the
 * certificates in /Cert. ASN.1 parsing is capped at MAX_ASN1_NODES.
 */
import * as asn1js from "asn1js"
import { constants, createHash, type KeyObject, publicDecrypt } from "node:crypto"
import { PDFArray, type PDFDict, PDFHexString, PDFString } from "pdf-lib"
import * as pkijs from "pkijs"
import { type Certificate, certificateFromDer, certificateFromPkijs, derLength } from "./Certificates.ts"
import { digestName, signatureScheme, verifySignatureValue } from "./SignatureAlgorithms.ts"
import { N } from "./SignatureFields.ts"
import { messageOf, SignatureProblem } from "./SignatureProblem.ts"
import { rangeDigest, signedChunks, type SignedRange } from "./SignedRange.ts"

/** ASN.1 elements read from a signature value (a large embedded CRL has a few per revoked certificate). */
const MAX_ASN1_NODES = 250_000

const OID = {
  signedData: "1.2.840.113549.1.7.2",
  tstInfo: "1.2.840.113549.1.9.16.1.4",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5"
} as const

/** What the signature value says, whatever the format. */
export interface SignatureEvidence {
  readonly signerCertificate: Certificate | undefined
  readonly certificates: ReadonlyArray<Certificate>
  readonly signingTime: Date | null
}

interface Outcome {
  readonly evidence: SignatureEvidence
  /** Why integrity is not established; null when it is. */
  readonly error: string | null
}

const parseSignedData = (value: Uint8Array): pkijs.SignedData => {
  const length = value[0] === 0x30 && value[1] === 0x80 ? value.length : derLength(value)
  if (length === null || value[0] !== 0x30) {
    throw new SignatureProblem("The signature value is not a CMS (PKCS#7) structure")
  }
  const der = value.subarray(0, length)
  const asn1 = asn1js.fromBER(der, { maxNodes: MAX_ASN1_NODES, maxContentLength: der.length })
  if (asn1.offset === -1) {
    throw new SignatureProblem(`The signature value is not a valid CMS (PKCS#7) structure: ${asn1.result.error}`)
  }
  let info: pkijs.ContentInfo
  try {
    info = new pkijs.ContentInfo({ schema: asn1.result })
  } catch {
    throw new SignatureProblem("The signature value is not a CMS (PKCS#7) structure")
  }
  if (info.contentType !== OID.signedData) {
    throw new SignatureProblem(`The signature value is not CMS SignedData (content type ${info.contentType})`)
  }
  try {
    return new pkijs.SignedData({ schema: info.content })
  } catch (error) {
    throw new SignatureProblem(`The CMS SignedData could not be read: ${messageOf(error)}`)
  }
}

const attributeValue = (signerInfo: pkijs.SignerInfo, type: string): unknown =>
  signerInfo.signedAttrs?.attributes.find((attribute) => attribute.type === type)?.values[0]

const octets = (block: unknown): Uint8Array | null =>
  block instanceof asn1js.OctetString ? new Uint8Array(block.getValue()) : null

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b)

/** The signer's certificate among the signature's, by issuer and serial number or by subject key identifier. */
const findSigner = (
  signerInfo: pkijs.SignerInfo,
  certificates: ReadonlyArray<Certificate>
): Certificate | undefined => {
  const sid: unknown = signerInfo.sid
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return certificates.find((c) =>
      c.details?.certificate.issuer.isEqual(sid.issuer) && c.details.certificate.serialNumber.isEqual(sid.serialNumber)
    )
  }
  // [0] SubjectKeyIdentifier
  const block = sid as {
    valueBlock?: { valueHexView?: Uint8Array; value?: ReadonlyArray<{ valueBlock?: { valueHexView?: Uint8Array } }> }
  }
  const id = block.valueBlock?.value?.[0]?.valueBlock?.valueHexView ?? block.valueBlock?.valueHexView
  if (!id || id.length === 0) return undefined
  const hex = Buffer.from(id).toString("hex")
  return certificates.find((c) => c.details?.subjectKeyId === hex)
}

/**
 * A CMS signature (adbe.pkcs7.detached, ETSI.CAdES.detached, adbe.pkcs7.sha1, ETSI.RFC3161): the
 * signer's certificate and signing time are gathered even when integrity fails, so that the report
 * still names the signer.
 */
export const checkCms = (
  pdf: Uint8Array,
  range: SignedRange | null,
  value: Uint8Array,
  subFilter: string | null,
  digests: Map<string, Buffer>
): Outcome => {
  const signedData = parseSignedData(value)
  const certificates = (signedData.certificates ?? []).flatMap((item) => {
    const cert = item instanceof pkijs.Certificate ? certificateFromPkijs(item) : null
    return cert ? [cert] : []
  })
  const signerInfo = signedData.signerInfos[0]
  if (!signerInfo) {
    return {
      evidence: { signerCertificate: undefined, certificates, signingTime: null },
      error: "The signature has no signer"
    }
  }
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
  if (signedData.signerInfos.length > 1) {
    return fail(`The signature has ${signedData.signerInfos.length} signers; a PDF signature has one`)
  }
  if (!range) return fail("The signed byte range is not usable")
  if (!signerCertificate) return fail("The signer's certificate is not in the signature")

  const digest = digestName(signerInfo.digestAlgorithm.algorithmId)
  // What the CMS signs (its "content"), and the check tying it to the file's bytes.
  let content: ReadonlyArray<Uint8Array>
  let contentDigest: () => Buffer
  if (eContentType === OID.tstInfo || subFilter === "ETSI.RFC3161") {
    if (!timestamp || !encapsulated) return fail("The document timestamp has no readable TSTInfo")
    const imprintDigest = digestName(timestamp.messageImprint.hashAlgorithm.algorithmId)
    if (
      !sameBytes(
        new Uint8Array(timestamp.messageImprint.hashedMessage.getValue()),
        rangeDigest(pdf, range, imprintDigest, digests)
      )
    ) {
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
    if (!sameBytes(declared, contentDigest())) {
      return fail("The document digest does not match the signature (the signed bytes were changed)")
    }
    const type = attributeValue(signerInfo, OID.contentType)
    if (type instanceof asn1js.ObjectIdentifier && type.getValue() !== eContentType) {
      return fail("The content type attribute does not match the signed content")
    }
    message = [new Uint8Array(signerInfo.signedAttrs.encodedValue)]
  }
  const scheme = signatureScheme(signerInfo.signatureAlgorithm, digest)
  const ok = verifySignatureValue(
    scheme,
    signerCertificate.publicKey,
    message,
    new Uint8Array(signerInfo.signature.getValue())
  )
  return ok
    ? { evidence, error: null }
    : fail(
      "The signature does not verify with the signer's certificate (the signature or the signed bytes were changed)"
    )
}

/** adbe.x509.rsa_sha1: /Contents is a DER OCTET STRING holding a PKCS#1 signature, /Cert the certificates. */
export const checkPkcs1 = (
  pdf: Uint8Array,
  range: SignedRange | null,
  value: Uint8Array,
  signature: PDFDict
): Outcome => {
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
  const ok = verifySignatureValue(
    { kind: "plain", hash: digest },
    signerCertificate.publicKey,
    signedChunks(pdf, range),
    signed
  )
  return ok
    ? { evidence, error: null }
    : { evidence, error: "The document digest does not match the signature (the signed bytes were changed)" }
}

/** The DigestInfo inside an RSA PKCS#1 v1.5 signature, decrypted with the public key. */
const verifyRecover = (key: KeyObject, signature: Uint8Array): Uint8Array => {
  if (key.asymmetricKeyType !== "rsa") throw new SignatureProblem("adbe.x509.rsa_sha1 needs an RSA key")
  return publicDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, signature)
}
