/**
 * The algorithms a signature may use, by OID, and a signature value verified with them: RSA
 * PKCS#1 v1.5, RSA-PSS (MGF1 with the same hash), ECDSA, DSA, Ed25519/Ed448 (over signed
 * attributes); digests SHA-1, SHA-2 and SHA-3 (MD5 is refused).
 */
import { constants, createVerify, type KeyObject, verify as verifyOneShot } from "node:crypto"
import * as pkijs from "pkijs"
import { SignatureProblem } from "./SignatureProblem.ts"

const OID = {
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

/** The node:crypto name of a digest algorithm. */
export const digestName = (oid: string): string => {
  const name = DIGESTS[oid]
  if (name) return name
  if (oid === "1.2.840.113549.2.5" || oid === "1.2.840.113549.1.1.4") {
    throw new SignatureProblem("The signature uses MD5, which is not accepted")
  }
  throw new SignatureProblem(`Unsupported digest algorithm ${oid}`)
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

export const signatureScheme = (algorithm: pkijs.AlgorithmIdentifier, digest: string): SignatureScheme => {
  const oid = algorithm.algorithmId
  if (oid === "1.3.101.112" || oid === "1.3.101.113") return { kind: "eddsa" }
  if (oid === OID.rsaPss) {
    const params = new pkijs.RSASSAPSSParams({ schema: algorithm.algorithmParams })
    const hash = digestName(params.hashAlgorithm.algorithmId)
    const mgf = params.maskGenAlgorithm
    const mgfHash = mgf.algorithmId === OID.mgf1 && mgf.algorithmParams
      ? digestName(new pkijs.AlgorithmIdentifier({ schema: mgf.algorithmParams }).algorithmId)
      : "sha1"
    if (mgf.algorithmId !== OID.mgf1 || mgfHash !== hash) {
      throw new SignatureProblem("Unsupported RSA-PSS parameters (MGF1 with another hash)")
    }
    return { kind: "pss", hash, saltLength: params.saltLength }
  }
  if (!(oid in SCHEMES)) throw new SignatureProblem(`Unsupported signature algorithm ${oid}`)
  return { kind: "plain", hash: SCHEMES[oid] ?? digest }
}

/** Whether `signature` is the signer's signature over the concatenated `chunks`. */
export const verifySignatureValue = (
  scheme: SignatureScheme,
  key: KeyObject,
  chunks: ReadonlyArray<Uint8Array>,
  signature: Uint8Array
): boolean => {
  if (scheme.kind === "eddsa") {
    if (chunks.length !== 1) {
      throw new SignatureProblem("Ed25519/Ed448 signatures are supported over signed attributes only")
    }
    return verifyOneShot(null, chunks[0]!, key, signature)
  }
  const verifier = createVerify(scheme.hash)
  for (const chunk of chunks) verifier.update(chunk)
  return scheme.kind === "pss"
    ? verifier.verify({ key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: scheme.saltLength }, signature)
    : verifier.verify(key, signature)
}
