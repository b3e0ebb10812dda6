/**
 * X.509 certificates as the signature checks read them: from PEM or DER (a trust store's files),
 * from a CMS structure (pkijs), and what the trust checks need of each (names, validity, CA and key
 * usage flags, key identifiers).
 */
import * as asn1js from "asn1js"
import { type KeyObject, X509Certificate } from "node:crypto"
import * as pkijs from "pkijs"

const OID = {
  commonName: "2.5.4.3",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  subjectKeyIdentifier: "2.5.29.14",
  authorityKeyIdentifier: "2.5.29.35"
} as const

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

/** Total length of the DER element at the start of `bytes`; null when it cannot be read. */
export const derLength = (bytes: Uint8Array): number | null => {
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

/** What the checks read from a certificate, parsed with pkijs when first needed. */
export interface CertificateDetails {
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
export class Certificate {
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

export const certificateFromDer = (der: Uint8Array): Certificate | null => {
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
export const certificateFromPkijs = (certificate: pkijs.Certificate): Certificate | null => {
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
      authorityKeyId: aki instanceof pkijs.AuthorityKeyIdentifier && aki.keyIdentifier
        ? Buffer.from(aki.keyIdentifier.getValue()).toString("hex")
        : null
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

const SHORT_NAMES: Readonly<Record<string, string>> = {
  "2.5.4.3": "CN",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.6": "C",
  "2.5.4.7": "L",
  "2.5.4.8": "ST"
}

const distinguishedName = (name: pkijs.RelativeDistinguishedNames): string =>
  name.typesAndValues.map((tv) => `${SHORT_NAMES[tv.type] ?? tv.type}=${attributeText(tv.value) ?? "?"}`).join(", ")
