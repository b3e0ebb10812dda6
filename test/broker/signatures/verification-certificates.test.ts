/**
 * Whether a signer's certificate is known: chains to a trusted root through the certificates the
 * signature embeds, valid at the signing time, issued by certification authorities only; and trust
 * stores read with certificatesFromPem (a system CA bundle, DER bytes).
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { certificatesFromPem } from "../../../src/services/broker/signatures/Certificates.ts"
import { verifySignatures } from "../../../src/services/broker/signatures/SignatureVerification.ts"
import { makeIdentity, signPdf, smallPdf } from "../../support/signing.ts"
import { alice, noTrust, signedByAlice, signingTime } from "./verification-support.ts"

describe("certificate chains", () => {
  const root = makeIdentity({ commonName: "Test Root CA", ca: true })
  const intermediate = makeIdentity({ commonName: "Test Issuing CA", ca: true, issuer: root })
  const bob = makeIdentity({ commonName: "Bob Example", issuer: intermediate })

  it("reaches a trusted root through the certificates the signature embeds", async () => {
    const pdf = await signPdf(smallPdf(), bob, { signingTime })
    const trusted = await verifySignatures(pdf, { certificates: [root.certificate] })
    expect(trusted.signatures[0]).toMatchObject({
      signer: "Bob Example",
      wrongIntegrity: false,
      unknownCertificate: false,
      signatureException: null
    })
    const otherRoot = makeIdentity({ commonName: "Test Root CA", ca: true })
    expect((await verifySignatures(pdf, { certificates: [otherRoot.certificate] })).signatures[0]!.unknownCertificate)
      .toBe(true)
    expect((await verifySignatures(pdf, noTrust)).signatures[0]!.unknownCertificate).toBe(true)
  })

  it("requires the certificates to be valid at the signing time", async () => {
    const expired = makeIdentity({
      commonName: "Carol Expired",
      issuer: intermediate,
      notBefore: new Date("2020-01-01"),
      notAfter: new Date("2021-01-01")
    })
    const result = await verifySignatures(await signPdf(smallPdf(), expired, { signingTime }), {
      certificates: [root.certificate]
    })
    expect(result.signatures[0]).toMatchObject({
      signer: "Carol Expired",
      wrongIntegrity: false,
      unknownCertificate: true
    })
    expect(result.signatures[0]!.signatureException).toMatch(/not valid at the signing time/)
    // Integrity is about the bytes: an untrusted certificate does not change it.
    expect(result.integrity).toBe(true)
  })

  it("does not accept a certificate issued by one that is not a CA", async () => {
    const mallory = makeIdentity({ commonName: "Mallory", issuer: bob })
    const result = await verifySignatures(await signPdf(smallPdf(), mallory, { signingTime }), {
      certificates: [root.certificate]
    })
    expect(result.signatures[0]).toMatchObject({ signer: "Mallory", unknownCertificate: true })
    expect(result.signatures[0]!.signatureException).toMatch(/not a certification authority/)
  })
})

/** Debian's CA bundle (ca-certificates): the default SIGNATURE_TRUST_STORE. */
const SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"

describe("certificatesFromPem", () => {
  it.skipIf(!existsSync(SYSTEM_BUNDLE))("reads every certificate of a bundle", () => {
    const text = readFileSync(SYSTEM_BUNDLE, "latin1")
    const certificates = certificatesFromPem(text)
    expect(certificates.length).toBe(text.match(/-----BEGIN CERTIFICATE-----/g)!.length)
    expect(certificates.length).toBeGreaterThan(50)
  })

  it.skipIf(!existsSync(SYSTEM_BUNDLE))(
    "a system bundle as the trust store: public roots do not vouch for a test certificate",
    async () => {
      const roots = certificatesFromPem(readFileSync(SYSTEM_BUNDLE, "latin1"))
      const pdf = await signedByAlice()
      expect((await verifySignatures(pdf, { certificates: roots })).signatures[0]!.unknownCertificate).toBe(true)
      expect(
        (await verifySignatures(pdf, { certificates: [...roots, alice.certificate] })).signatures[0]!.unknownCertificate
      ).toBe(false)
    }
  )

  it("reads DER bytes, one or several concatenated", () => {
    const other = makeIdentity({ commonName: "Dave" })
    expect(certificatesFromPem(alice.certificate)).toEqual([alice.certificate])
    expect(certificatesFromPem(Buffer.concat([alice.certificate, other.certificate]))).toEqual([
      alice.certificate,
      other.certificate
    ])
  })
})
