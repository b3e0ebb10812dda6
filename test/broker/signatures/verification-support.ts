/**
 * What the signature-verification tests share: the corpus files, an empty trust store, a signing
 * time, and Alice, the identity most tests sign with.
 */
import { readFileSync } from "node:fs"
import * as path from "node:path"
import type { TrustStore } from "../../../src/services/broker/signatures/CertificateTrust.ts"
import { CORPUS } from "../../support/backends.ts"
import { makeIdentity, signPdf, smallPdf } from "../../support/signing.ts"

export const corpus = (name: string) => new Uint8Array(readFileSync(path.join(CORPUS, "pdf", name)))

export const noTrust: TrustStore = { certificates: [] }

export const signingTime = new Date("2025-03-14T09:26:53.000Z")

// One identity for each test file that imports this module (key generation is the slow part).
export const alice = makeIdentity({ commonName: "Alice Example" })

export const signedByAlice = () =>
  signPdf(smallPdf(), alice, { reason: "I approve this payment", location: "Lyon", name: "Alice", signingTime })
