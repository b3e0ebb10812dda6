/**
 * Digital signatures as GET /documents/{id}/signatures reports them: the fields, who signed and
 * when, whether the signed bytes are intact and the certificate known. On the corpus's signed PDF,
 * on a PDF signed here with a fresh certificate (@signpdf, node-forge), and on unsigned documents
 * and fields. CMS variants, certificate chains, changes after signing and damaged signatures are
 * tested beside this file.
 */
import { describe, expect, it } from "@effect/vitest"
import { certificatesFromPem } from "../../../src/services/broker/signatures/Certificates.ts"
import { verifySignatures } from "../../../src/services/broker/signatures/SignatureVerification.ts"
import { embeddedCertificates, makeIdentity, replaceBytes, signPdf, smallPdf } from "../../support/signing.ts"
import { alice, corpus, noTrust, signedByAlice, signingTime } from "./verification-support.ts"

describe("signatures of the corpus's signed PDF", () => {
  const pdf = corpus("signed_verified.pdf")

  it("lists the field with its signer and date, and the signed bytes verify", async () => {
    const result = await verifySignatures(pdf, noTrust)
    expect(result).toEqual({
      signatures: [{
        name: "Signature1",
        signer: "test-pdf-signer",
        // No signingTime attribute in the CMS: /M (D:20260509000000Z).
        date: "2026-05-09T00:00:00.000Z",
        reason: "Test signature for pdf.js Digital signature properties UI",
        location: null,
        wrongIntegrity: false,
        unknownCertificate: true,
        signatureException: null
      }],
      wronglySigned: false,
      integrity: true
    })
  })

  it("trusts the signer once its certificate (the only one the signature embeds) is in the trust store", async () => {
    const embedded = await embeddedCertificates(pdf)
    expect(embedded).toHaveLength(1)
    const result = await verifySignatures(pdf, { certificates: embedded })
    expect(result.signatures[0]).toMatchObject({
      signer: "test-pdf-signer",
      wrongIntegrity: false,
      unknownCertificate: false,
      signatureException: null
    })
    expect(result.integrity).toBe(true)
  })

  it("reports a changed byte of the signed text", async () => {
    const tampered = replaceBytes(pdf, "Expected verification state: VERIFIED", "Expected verification state: VERIFIES")
    const result = await verifySignatures(tampered, noTrust)
    expect(result.signatures[0]).toMatchObject({ signer: "test-pdf-signer", wrongIntegrity: true })
    expect(result.signatures[0]!.signatureException).toMatch(/digest does not match/)
    expect(result).toMatchObject({ wronglySigned: true, integrity: false })
  })
})

describe("a PDF signed with a fresh certificate", () => {
  it("verifies, names the certificate's CN, and reports reason, location and signing time", async () => {
    const result = await verifySignatures(await signedByAlice(), noTrust)
    expect(result).toEqual({
      signatures: [{
        name: "Signature1",
        signer: "Alice Example",
        date: signingTime.toISOString(),
        reason: "I approve this payment",
        location: "Lyon",
        wrongIntegrity: false,
        unknownCertificate: true,
        signatureException: null
      }],
      wronglySigned: false,
      integrity: true
    })
  })

  it("knows the certificate when it is in the trust store (DER, or PEM through certificatesFromPem)", async () => {
    const pdf = await signedByAlice()
    expect((await verifySignatures(pdf, { certificates: [alice.certificate] })).signatures[0]!.unknownCertificate).toBe(
      false
    )
    const fromPem = certificatesFromPem(alice.certificatePem)
    expect(fromPem).toEqual([alice.certificate])
    expect((await verifySignatures(pdf, { certificates: fromPem })).signatures[0]!.unknownCertificate).toBe(false)
    // Another certificate with the same name does not make it known.
    const impostor = makeIdentity({ commonName: "Alice Example" })
    expect((await verifySignatures(pdf, { certificates: [impostor.certificate] })).signatures[0]!.unknownCertificate)
      .toBe(true)
  })

  it("reports a changed byte inside the signed range (the page's text)", async () => {
    const tampered = replaceBytes(await signedByAlice(), "Pay 100 EUR", "Pay 900 EUR")
    const result = await verifySignatures(tampered, { certificates: [alice.certificate] })
    expect(result.signatures[0]).toMatchObject({
      signer: "Alice Example",
      wrongIntegrity: true,
      unknownCertificate: false
    })
    expect(result.signatures[0]!.signatureException).toMatch(/The document digest does not match the signature/)
    expect(result).toMatchObject({ wronglySigned: true, integrity: false })
  })

  it("reports a changed signature value", async () => {
    const pdf = await signedByAlice()
    // The RSA signature is the last non-zero bytes of the CMS: change a hex digit near its end.
    const text = Buffer.from(pdf).toString("latin1")
    const at = text.search(/0+>/) - 4
    const digit = text[at] === "a" ? "b" : "a"
    const tampered = replaceBytes(pdf, text.slice(at - 20, at + 1), text.slice(at - 20, at) + digit)
    const result = await verifySignatures(tampered, noTrust)
    expect(result.signatures[0]).toMatchObject({ signer: "Alice Example", wrongIntegrity: true })
    expect(result.signatures[0]!.signatureException).toMatch(/does not verify with the signer's certificate/)
  })
})

describe("unsigned documents and fields", () => {
  it("an unsigned PDF has no signatures and its integrity", async () => {
    expect(await verifySignatures(smallPdf(), noTrust)).toEqual({
      signatures: [],
      wronglySigned: false,
      integrity: true
    })
    expect(await verifySignatures(corpus("tracemonkey.pdf"), noTrust)).toEqual({
      signatures: [],
      wronglySigned: false,
      integrity: true
    })
  })

  it("lists an empty signature field as not signed, with its fully qualified name", async () => {
    const result = await verifySignatures(smallPdf({ signatureFields: ["Approval", "Approvals.Manager"] }), noTrust)
    const unsigned = {
      signer: null,
      date: null,
      reason: null,
      location: null,
      wrongIntegrity: false,
      unknownCertificate: false,
      signatureException: "The field is not signed"
    }
    expect(result).toEqual({
      signatures: [{ name: "Approval", ...unsigned }, { name: "Approvals.Manager", ...unsigned }],
      wronglySigned: false,
      integrity: true
    })
  })

  it("reports a signed field next to an empty one", async () => {
    const signed = await signPdf(smallPdf({ signatureFields: ["Approval"] }), alice, { signingTime })
    const result = await verifySignatures(signed, noTrust)
    expect(result.signatures.map((s) => [s.name, s.signer, s.signatureException])).toEqual([
      ["Approval", null, "The field is not signed"],
      ["Signature1", "Alice Example", null]
    ])
    expect(result.integrity).toBe(true)
  })
})
