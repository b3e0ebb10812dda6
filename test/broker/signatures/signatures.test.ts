/**
 * GET /documents/{id}/signatures as a client sees it: the corpus's signed file, a file signed here
 * with a certificate the broker is configured to trust (SIGNATURE_TRUST_STORE), a tampered copy and
 * a file changed after signing, and an unsigned one.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, uploadOk } from "../../support/http.ts"
import { appendContentChange, makeIdentity, replaceBytes, signPdf, smallPdf } from "../../support/signing.ts"

const trusted = makeIdentity({ commonName: "Trusted Signer" })
const stranger = makeIdentity({ commonName: "Unknown Signer" })
const trustDir = mkdtempSync(path.join(tmpdir(), "docstack-trust-"))
writeFileSync(path.join(trustDir, "trusted.pem"), trusted.certificatePem)

layer(brokerTestLayer({ ...defaultBackend.config, SIGNATURE_TRUST_STORE: trustDir }), { timeout: 120_000 })(
  "signatures",
  (it) => {
    it.effect("a signed corpus file: its signer and date, integrity kept; unknown certificate (not in the trust store)", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, corpusFile("pdf/signed_verified.pdf"))
        const reply = (yield* call(`${base}/documents/${id}/signatures`)).json
        expect(reply.signatures).toHaveLength(1)
        expect(reply.signatures[0]).toMatchObject({
          signer: "test-pdf-signer",
          wrongIntegrity: false,
          unknownCertificate: true
        })
        expect(Date.parse(reply.signatures[0].date)).not.toBeNaN()
        expect(reply).toMatchObject({ wronglySigned: false, integrity: true })
      }))

    it.effect("signed here: trusted or not by the configured store; tampered and changed copies reported", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const signed = yield* Effect.promise(() =>
          signPdf(smallPdf({ text: "Pay 100 EUR to the bearer" }), trusted, { reason: "Approval", location: "Berlin" })
        )
        const good = (yield* call(`${base}/documents/${yield* uploadOk(base, signed)}/signatures`)).json
        expect(good.signatures[0]).toMatchObject({
          signer: "Trusted Signer",
          reason: "Approval",
          location: "Berlin",
          wrongIntegrity: false,
          unknownCertificate: false,
          signatureException: null
        })
        expect(good).toMatchObject({ wronglySigned: false, integrity: true })

        const bySomeone = yield* Effect.promise(() =>
          signPdf(smallPdf({ text: "Pay 200 EUR to the bearer" }), stranger)
        )
        const unknown = (yield* call(`${base}/documents/${yield* uploadOk(base, bySomeone)}/signatures`)).json
        expect(unknown.signatures[0]).toMatchObject({
          signer: "Unknown Signer",
          wrongIntegrity: false,
          unknownCertificate: true
        })

        // One byte of the signed text changed in place: the digest no longer matches.
        const tampered = replaceBytes(signed, "Pay 100 EUR", "Pay 900 EUR")
        const broken = (yield* call(`${base}/documents/${yield* uploadOk(base, tampered)}/signatures`)).json
        expect(broken.signatures[0].wrongIntegrity).toBe(true)
        expect(broken).toMatchObject({ wronglySigned: true, integrity: false })

        // A revision appended after signing that changes the page: the signature still verifies, the document does not.
        const changed = yield* Effect.promise(() => appendContentChange(signed, "Pay 900 EUR to the bearer"))
        const after = (yield* call(`${base}/documents/${yield* uploadOk(base, changed)}/signatures`)).json
        expect(after.signatures[0].wrongIntegrity).toBe(false)
        expect(after.signatures[0].signatureException).toMatch(/changed after this signature/)
        expect(after.integrity).toBe(false)
      }))

    it.effect("an unsigned document: no signatures, integrity", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
        expect((yield* call(`${base}/documents/${id}/signatures`)).json).toEqual({
          signatures: [],
          wronglySigned: false,
          integrity: true
        })
      }))
  }
)
