/**
 * Damaged signatures give a report, not an error: a /Contents that is not CMS or not hexadecimal, a
 * truncated file, a missing signature dictionary, a byte range that leaves too much unsigned, a huge
 * /Contents (answered quickly), and bytes that are not a PDF.
 */
import { describe, expect, it } from "@effect/vitest"
import { verifySignatures } from "../../../src/services/broker/signatures/SignatureVerification.ts"
import { appendRevision, replaceBytes, smallPdf } from "../../support/signing.ts"
import { noTrust, signedByAlice } from "./verification-support.ts"

describe("damaged signatures give a report, not an error", () => {
  it("a /Contents that is not CMS", async () => {
    const pdf = await signedByAlice()
    const text = Buffer.from(pdf).toString("latin1")
    const start = text.indexOf("/Contents <") + "/Contents <".length
    const garbage = "DEADBEEF".repeat(8)
    const damaged = replaceBytes(pdf, text.slice(start, start + garbage.length), garbage)
    const result = await verifySignatures(damaged, noTrust)
    expect(result.signatures[0]).toMatchObject({ name: "Signature1", wrongIntegrity: true, unknownCertificate: true })
    expect(result.signatures[0]!.signatureException).toMatch(/CMS/)
    expect(result).toMatchObject({ wronglySigned: true, integrity: false })
  })

  it("a /Contents with characters that are not hexadecimal", async () => {
    const pdf = await signedByAlice()
    const text = Buffer.from(pdf).toString("latin1")
    const start = text.indexOf("/Contents <") + "/Contents <".length
    const damaged = replaceBytes(pdf, text.slice(start, start + 4), "zz)(")
    const result = await verifySignatures(damaged, noTrust)
    expect(result.signatures[0]).toMatchObject({ wrongIntegrity: true })
  })

  it("a truncated file", async () => {
    const pdf = await signedByAlice()
    for (const length of [Math.floor(pdf.length * 0.9), Math.floor(pdf.length / 2), 200, 10]) {
      const cut = pdf.subarray(0, length)
      const result = await verifySignatures(cut, noTrust)
      // A cut that still holds a signature's byte range is a wrongly signed file, never an unsigned one.
      if (Buffer.from(cut).includes("/ByteRange")) {
        expect(result).toMatchObject({ wronglySigned: true, integrity: false })
      } else expect(result.signatures).toEqual([])
      for (const report of result.signatures) {
        expect(report.wrongIntegrity).toBe(true)
        expect(report.signatureException).toBeTruthy()
      }
    }
    const result = await verifySignatures(pdf.subarray(0, pdf.length - 100), noTrust)
    expect(result.signatures[0]).toMatchObject({ name: "Signature1", signer: "Alice Example", wrongIntegrity: true })
    expect(result.signatures[0]!.signatureException).toMatch(/truncated/)
    // Cut inside the signature value (the form and the field come after it in this file).
    const cut = await verifySignatures(pdf.subarray(0, Buffer.from(pdf).indexOf("/Contents <") + 100), noTrust)
    expect(cut).toMatchObject({ wronglySigned: true, integrity: false })
    expect(cut.signatures).toEqual([
      expect.objectContaining({ wrongIntegrity: true, signatureException: expect.stringMatching(/could not be read/) })
    ])
    // Cut after the signature dictionary, before the form: the signature is found among the objects.
    const text = Buffer.from(pdf).toString("latin1")
    const afterSignature = text.indexOf("endobj", text.indexOf("/ByteRange")) + "endobj".length
    const orphan = await verifySignatures(pdf.subarray(0, afterSignature), noTrust)
    expect(orphan).toMatchObject({ wronglySigned: true, integrity: false })
    expect(orphan.signatures).toEqual([expect.objectContaining({
      signer: "Alice Example",
      wrongIntegrity: true,
      signatureException: expect.stringMatching(
        /^The signature is not attached to a field of the document's form; The file ends \d+ bytes before/
      )
    })])
  })

  it("a field whose signature dictionary is missing", async () => {
    const text = Buffer.from(smallPdf({ signatureFields: ["Approval"] })).toString("latin1").replace(
      "/FT /Sig /T (Approval)",
      "/FT /Sig /V 99 0 R /T (Approval)"
    )
    const result = await verifySignatures(new Uint8Array(Buffer.from(text, "latin1")), noTrust)
    expect(result).toEqual({
      signatures: [{
        name: "Approval",
        signer: null,
        date: null,
        reason: null,
        location: null,
        wrongIntegrity: true,
        unknownCertificate: true,
        signatureException: "The signature dictionary is missing or damaged"
      }],
      wronglySigned: true,
      integrity: false
    })
  })

  it("a byte range that leaves more than the signature value unsigned", async () => {
    const pdf = await signedByAlice()
    const text = Buffer.from(pdf).toString("latin1")
    const match = /\/ByteRange \[0 (\d+) (\d+) (\d+)\s*\]/.exec(text)!
    const [whole, first, second, third] = match
    const widened = `/ByteRange [0 ${Number(first) - 30} ${second} ${third}]`.padEnd(whole.length, " ")
    const result = await verifySignatures(replaceBytes(pdf, whole, widened), noTrust)
    expect(result.signatures[0]).toMatchObject({ wrongIntegrity: true })
    expect(result.signatures[0]!.signatureException).toMatch(/unsigned part of the file is not the signature value/)
  })

  it("a huge /Contents", async () => {
    const base = smallPdf()
    const huge = "0".repeat(10 * 1024 * 1024)
    // A signature whose gap is a 10 MB hex string; its byte range is computed as a signer would.
    const withField = await appendRevision(base, [
      [1, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [7 0 R] /SigFlags 3 >> >>"],
      [
        6,
        `<< /Type /Sig /SubFilter /adbe.pkcs7.detached /ByteRange [0 /********** /********** /**********] /Contents <${huge}> >>`
      ],
      [7, "<< /FT /Sig /T (Big) /V 6 0 R /Rect [0 0 0 0] >>"]
    ])
    const text = Buffer.from(withField).toString("latin1")
    const gapStart = text.indexOf(`<${huge.slice(0, 10)}`)
    const gapEnd = gapStart + huge.length + 2
    const placeholder = "/ByteRange [0 /********** /********** /**********]"
    const range = `/ByteRange [0 ${gapStart} ${gapEnd} ${withField.length - gapEnd}]`.padEnd(placeholder.length, " ")
    const started = Date.now()
    const result = await verifySignatures(replaceBytes(withField, placeholder, range), noTrust)
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(result.signatures[0]).toMatchObject({ name: "Big", wrongIntegrity: true })
    expect(result.signatures[0]!.signatureException).toMatch(/too large/)
  })

  it("bytes that are not a PDF", async () => {
    expect(await verifySignatures(new Uint8Array(0), noTrust)).toEqual({
      signatures: [],
      wronglySigned: false,
      integrity: true
    })
    const notPdf = await verifySignatures(new Uint8Array(Buffer.from("hello /ByteRange [0 1 2 3]")), noTrust)
    expect(notPdf).toMatchObject({ wronglySigned: true, integrity: false })
    expect(notPdf.signatures[0]!.signatureException).toMatch(/could not be read/)
  })
})
