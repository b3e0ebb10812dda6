/**
 * Signatures in the CMS variants a PDF can carry: ECDSA, RSA-PSS, no signed attributes,
 * adbe.pkcs7.sha1, a bare PKCS#1 signature (adbe.x509.rsa_sha1) and a document timestamp
 * (ETSI.RFC3161); each verifies, and a changed byte is caught.
 */
import { describe, expect, it } from "@effect/vitest"
import { verifySignatures } from "../../../src/services/broker/signatures/SignatureVerification.ts"
import { type CmsOptions, type KeyKind, makeCmsIdentity, signPdfWithCms } from "../../support/signing-cms.ts"
import { appendSignature, Pkcs1Signer, replaceBytes, smallPdf, x509Entries } from "../../support/signing.ts"
import { alice, noTrust, signingTime } from "./verification-support.ts"

describe("CMS variants", () => {
  const cases: ReadonlyArray<readonly [string, KeyKind, CmsOptions]> = [
    ["ECDSA P-256, ETSI.CAdES.detached", "ECDSA", { subFilter: "ETSI.CAdES.detached" }],
    ["RSA-PSS", "RSA-PSS", {}],
    ["ECDSA without signed attributes", "ECDSA", { signedAttributes: false }],
    ["RSA without signed attributes", "RSASSA-PKCS1-v1_5", {
      signedAttributes: false,
      subFilter: "adbe.pkcs7.detached"
    }],
    ["adbe.pkcs7.sha1", "RSASSA-PKCS1-v1_5", { subFilter: "adbe.pkcs7.sha1" }]
  ]
  for (const [title, kind, options] of cases) {
    it(`${title}: verifies, and a changed byte is caught`, async () => {
      const identity = await makeCmsIdentity(`Erin ${kind}`, kind)
      const pdf = await signPdfWithCms(smallPdf(), identity, { ...options, signingTime, reason: title })
      const result = await verifySignatures(pdf, { certificates: [identity.certificate] })
      expect(result.signatures[0]).toEqual({
        name: "Signature1",
        signer: `Erin ${kind}`,
        date: signingTime.toISOString(),
        reason: title,
        location: "",
        wrongIntegrity: false,
        unknownCertificate: false,
        signatureException: null
      })
      const tampered = await verifySignatures(replaceBytes(pdf, "Pay 100 EUR", "Pay 900 EUR"), {
        certificates: [identity.certificate]
      })
      expect(tampered.signatures[0]).toMatchObject({ signer: `Erin ${kind}`, wrongIntegrity: true })
      expect(tampered.signatures[0]!.signatureException).toMatch(/does not match|does not verify/)
    })
  }

  it("adbe.x509.rsa_sha1: a bare PKCS#1 signature with the certificate in /Cert", async () => {
    const pdf = await appendSignature(smallPdf(), new Pkcs1Signer(alice), {
      field: "Legacy",
      signingTime,
      ...x509Entries(alice)
    })
    const result = await verifySignatures(pdf, { certificates: [alice.certificate] })
    expect(result.signatures[0]).toMatchObject({
      name: "Legacy",
      signer: "Alice Example",
      date: signingTime.toISOString(),
      wrongIntegrity: false,
      unknownCertificate: false,
      signatureException: null
    })
    const tampered = await verifySignatures(replaceBytes(pdf, "Pay 100 EUR", "Pay 900 EUR"), noTrust)
    expect(tampered.signatures[0]).toMatchObject({ wrongIntegrity: true, unknownCertificate: true })
  })

  it("a document timestamp (ETSI.RFC3161): the time stamping authority and the time of the token", async () => {
    const tsa = await makeCmsIdentity("Test TSA", "ECDSA")
    const stampedAt = new Date("2025-06-01T12:00:00.000Z")
    const pdf = await signPdfWithCms(smallPdf(), tsa, {
      subFilter: "ETSI.RFC3161",
      signingTime: stampedAt,
      signedAttributes: true
    })
    const result = await verifySignatures(pdf, noTrust)
    expect(result.signatures[0]).toMatchObject({
      signer: "Test TSA",
      date: stampedAt.toISOString(),
      wrongIntegrity: false,
      unknownCertificate: true
    })
    const tampered = await verifySignatures(replaceBytes(pdf, "Pay 100 EUR", "Pay 900 EUR"), noTrust)
    expect(tampered.signatures[0]!.signatureException).toMatch(/does not match the timestamp/)
  })
})
