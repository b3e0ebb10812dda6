/**
 * What happened to a file after it was signed: content, page dictionary and annotation changes in
 * later revisions are reported; another signature, the signing of an existing empty field, metadata
 * and empty revisions are accepted; a content change hidden behind metadata and a dangling
 * reference of the signed revision filled in later are caught.
 */
import { describe, expect, it } from "@effect/vitest"
import { degrees, PDFArray, PDFDocument, PDFName, PDFRef } from "pdf-lib"
import { verifySignatures } from "../../../src/services/broker/signatures/SignatureVerification.ts"
import {
  appendContentChange,
  appendRevision,
  appendSignature,
  makeIdentity,
  signPdf,
  smallPdf,
  streamObject
} from "../../support/signing.ts"
import { alice, noTrust, signedByAlice, signingTime } from "./verification-support.ts"

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
