/**
 * Whether a signer's certificate is trusted: a path of valid signatures from it to a certificate
 * of the trust store (the signer's own certificate may be that trusted certificate). Intermediates
 * must be CAs (basicConstraints) allowed to sign certificates (keyUsage, when present); every
 * certificate on the path must be valid at the signing time. No network: revocation (OCSP, CRL)
 * is not checked and missing issuers are not fetched through the certificates' AIA URLs; a chain
 * is built only from the certificates embedded in the signature and those of the trust store.
 */
import { type Certificate, type CertificateDetails, certificateFromDer } from "./Certificates.ts"

const MAX_CHAIN_LENGTH = 10

export interface TrustStore {
  /** Trusted certificates (DER): roots, or any certificate the caller decides to trust directly. */
  readonly certificates: ReadonlyArray<Uint8Array>
}

/** The trust store's certificates, parsed once per store (a system bundle holds about 150). */
const parsedStores = new WeakMap<ReadonlyArray<Uint8Array>, ReadonlyArray<Certificate>>()

export const trustAnchors = (trust: TrustStore): ReadonlyArray<Certificate> => {
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

const validAt = (cert: CertificateDetails, at: Date) =>
  cert.notBefore.getTime() <= at.getTime() && at.getTime() <= cert.notAfter.getTime()

const validity = (cert: CertificateDetails) =>
  `valid from ${cert.notBefore.toISOString()} to ${cert.notAfter.toISOString()}`

/**
 * Whether a chain leads from the signer's certificate to a trusted certificate, through the
 * signature's certificates and the trust store, every link's signature verified, every certificate
 * valid at `at`, every intermediate a CA allowed to sign certificates. A certificate of the trust
 * store is trusted as it is (it ends the chain, whether it is a root, an intermediate or the
 * signer's own certificate). Not checked: revocation (nothing fetched — no OCSP, CRL or AIA —
 * and revocation data embedded in the signature is ignored), name constraints, policies, path
 * length constraints, extended key usage.
 */
export const evaluateTrust = (
  signer: Certificate,
  embedded: ReadonlyArray<Certificate>,
  anchors: ReadonlyArray<Certificate>,
  at: Date
): { readonly trusted: boolean; readonly problem: string | null } => {
  const own = signer.details
  if (!own) return { trusted: false, problem: "The signer's certificate could not be read" }
  if (!own.maySign) return { trusted: false, problem: "The signer's certificate is not allowed to sign (key usage)" }
  if (!validAt(own, at)) {
    return {
      trusted: false,
      problem: `The signer's certificate was not valid at the signing time ${at.toISOString()} (${validity(own)})`
    }
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
    if (childDetails.authorityKeyId && details.subjectKeyId && childDetails.authorityKeyId !== details.subjectKeyId) {
      return null
    }
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
        problem ??= `The certificate "${details.subject}" was not valid at the signing time ${at.toISOString()} (${
          validity(details)
        })`
        continue
      }
      if (reaches(parent, new Set([...path, cert.fingerprint]))) return true
    }
    return false
  }
  return reaches(signer, new Set()) ? { trusted: true, problem: null } : { trusted: false, problem }
}
