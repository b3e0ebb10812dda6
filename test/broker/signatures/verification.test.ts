/**
 * Digital signatures as GET /documents/{id}/signatures reports them: the fields, who signed and
 * when, whether the signed bytes are intact, whether the certificate chains to the trust store,
 * and what happened to the file after signing. On the corpus's signed PDF and on PDFs signed here
 * with fresh certificates (@signpdf, node-forge).
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { degrees, PDFArray, PDFDocument, PDFName, PDFRef } from "pdf-lib"
import { certificatesFromPem } from "../../../src/services/broker/signatures/Certificates.ts"
import type { TrustStore } from "../../../src/services/broker/signatures/CertificateTrust.ts"
import { verifySignatures } from "../../../src/services/broker/signatures/SignatureVerification.ts"
import { CORPUS } from "../../support/backends.ts"
import { type CmsOptions, type KeyKind, makeCmsIdentity, signPdfWithCms } from "../../support/signing-cms.ts"
import {
  appendContentChange,
  appendRevision,
  appendSignature,
  embeddedCertificates,
  makeIdentity,
  Pkcs1Signer,
  replaceBytes,
  signPdf,
  smallPdf,
  streamObject,
  x509Entries
} from "../../support/signing.ts"

const corpus = (name: string) => new Uint8Array(readFileSync(path.join(CORPUS, "pdf", name)))

const noTrust: TrustStore = { certificates: [] }

const signingTime = new Date("2025-03-14T09:26:53.000Z")

// One identity for the suite (key generation is the slow part).
const alice = makeIdentity({ commonName: "Alice Example" })

const signedByAlice = () =>
  signPdf(smallPdf(), alice, { reason: "I approve this payment", location: "Lyon", name: "Alice", signingTime })

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

describe("changes after signing", () => {
  it("reports an incremental update that changes the page", async () => {
    const changed = await appendContentChange(await signedByAlice(), "Pay 900 EUR to the bearer")
    const result = await verifySignatures(changed, noTrust)
    expect(result.signatures[0]).toMatchObject({ signer: "Alice Example", wrongIntegrity: false })
    expect(result.signatures[0]!.signatureException).toMatch(
      /^The document was changed after this signature \(\d+ bytes added: the content of page 1\)$/
    )
    expect(result).toMatchObject({ wronglySigned: false, integrity: false })
  })

  it("reports an update that changes the page dictionary itself", async () => {
    const signed = await signedByAlice()
    // Rotate page 1 in a new revision.
    const doc = await PDFDocument.load(signed)
    const page = doc.getPages()[0]!
    page.setRotation(degrees(90))
    const changed = await appendRevision(signed, [[page.ref.objectNumber, page.node.toString()]])
    const report = (await verifySignatures(changed, noTrust)).signatures[0]!
    expect(report.signatureException).toMatch(/changed after this signature \(\d+ bytes added: page 1 \(\/Rotate\)\)/)
  })

  it("accepts a later revision that only adds another signature", async () => {
    const bob = makeIdentity({ commonName: "Bob Example" })
    const twice = await appendSignature(await signedByAlice(), bob, {
      field: "Countersignature",
      reason: "Seen",
      location: "Paris",
      signingTime: new Date("2025-03-15T08:00:00Z")
    })
    const result = await verifySignatures(twice, { certificates: [alice.certificate, bob.certificate] })
    expect(result).toEqual({
      signatures: [
        {
          name: "Signature1",
          signer: "Alice Example",
          date: signingTime.toISOString(),
          reason: "I approve this payment",
          location: "Lyon",
          wrongIntegrity: false,
          unknownCertificate: false,
          signatureException: null
        },
        {
          name: "Countersignature",
          signer: "Bob Example",
          date: "2025-03-15T08:00:00.000Z",
          reason: "Seen",
          location: "Paris",
          wrongIntegrity: false,
          unknownCertificate: false,
          signatureException: null
        }
      ],
      wronglySigned: false,
      integrity: true
    })
  })

  it("reports content changed after the second signature for both signatures", async () => {
    const bob = makeIdentity({ commonName: "Bob Example" })
    const twice = await appendSignature(await signedByAlice(), bob, { field: "Countersignature", signingTime })
    const changed = await appendContentChange(twice, "Pay 900 EUR to the bearer")
    const result = await verifySignatures(changed, noTrust)
    expect(result.signatures.map((s) => s.wrongIntegrity)).toEqual([false, false])
    for (const report of result.signatures) expect(report.signatureException).toMatch(/changed after this signature/)
    expect(result.integrity).toBe(false)
  })

  it("accepts signing an empty field that existed when the first signature was made", async () => {
    const signed = await signPdf(smallPdf({ signatureFields: ["Approval"] }), alice, { signingTime })
    const bob = makeIdentity({ commonName: "Bob Example" })
    const result = await verifySignatures(
      await appendSignature(signed, bob, { field: "Approval", signingTime }),
      noTrust
    )
    expect(result.signatures.map((s) => [s.name, s.signer, s.wrongIntegrity, s.signatureException])).toEqual([
      ["Approval", "Bob Example", false, null],
      ["Signature1", "Alice Example", false, null]
    ])
    expect(result.integrity).toBe(true)
  })

  it("reports an annotation added after signing", async () => {
    const signed = await signedByAlice()
    const doc = await PDFDocument.load(signed)
    const page = doc.getPages()[0]!
    const note = doc.context.largestObjectNumber + 1
    const annots = page.node.lookup(PDFName.of("Annots"))
    page.node.set(
      PDFName.of("Annots"),
      doc.context.obj([...(annots instanceof PDFArray ? annots.asArray() : []), PDFRef.of(note)])
    )
    const changed = await appendRevision(signed, [
      [note, "<< /Type /Annot /Subtype /FreeText /Rect [30 30 200 60] /Contents (Paid) /DA (/Helv 12 Tf 0 g) >>"],
      [page.ref.objectNumber, page.node.toString()]
    ])
    const report = (await verifySignatures(changed, noTrust)).signatures[0]!
    expect(report.signatureException).toMatch(/changed after this signature \(\d+ bytes added: page 1 \(\/Annots\)\)/)
  })

  it("accepts metadata updated after signing, but not a content change hidden behind it", async () => {
    const signed = await signedByAlice()
    const info = (await PDFDocument.load(signed)).context.largestObjectNumber + 1
    const withInfo = await appendRevision(
      signed,
      [[info, "<< /Producer (Docstack) /ModDate (D:20250401000000Z) >>"]],
      `/Info ${info} 0 R `
    )
    expect((await verifySignatures(withInfo, noTrust)).signatures[0]!.signatureException).toBeNull()
    // The information dictionary points at the page's content stream, which the same revision changes.
    const doc = await PDFDocument.load(signed)
    const contents = doc.getPages()[0]!.node.get(PDFName.of("Contents"))!.toString()
    const sneaky = await appendRevision(signed, [
      [info, `<< /Producer (Docstack) /Thumb ${contents} >>`],
      [Number(contents.split(" ")[0]), streamObject("BT /F1 18 Tf 30 100 Td (Pay 900 EUR to the bearer) Tj ET")]
    ], `/Info ${info} 0 R `)
    expect((await verifySignatures(sneaky, noTrust)).signatures[0]!.signatureException).toMatch(/the content of page 1/)
  })

  it("does not count appended bytes that change nothing (an empty revision)", async () => {
    const signed = await signedByAlice()
    const withEmptyRevision = await appendRevision(signed, [])
    const result = await verifySignatures(withEmptyRevision, noTrust)
    expect(result.signatures[0]!.signatureException).toBeNull()
    expect(result.integrity).toBe(true)
  })

  it("reports a dangling reference of the signed revision filled in later", async () => {
    // The signed page draws a second content stream that the signed revision does not define.
    const text = Buffer.from(smallPdf()).toString("latin1").replace("/Contents 4 0 R", "/Contents [4 0 R 99 0 R]")
    // The edit moved offsets: pdf-lib rewrites the file when signing anyway.
    const signed = await signPdf(new Uint8Array(Buffer.from(text, "latin1")), alice, { signingTime })
    const doc = await PDFDocument.load(signed)
    const contents = doc.getPages()[0]!.node.lookup(PDFName.of("Contents"))
    const dangling = contents instanceof PDFArray ? contents.asArray()[1]!.toString() : ""
    expect(dangling).toMatch(/ 0 R$/)
    const changed = await appendRevision(signed, [[
      Number(dangling.split(" ")[0]),
      streamObject("BT /F1 18 Tf 30 60 Td (and 800 EUR more) Tj ET")
    ]])
    const report = (await verifySignatures(changed, noTrust)).signatures[0]!
    expect(report.signatureException).toMatch(/referred to by the signed revision, defined later/)
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
