/**
 * Inside a PDF worker thread: signatures verified (SignatureRequests.ts) against the trust store
 * the engine handed the thread, read on first use.
 */
import type { WorkerRunner } from "@effect/platform"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { readFile } from "node:fs/promises"
import * as path from "node:path"
import { SignatureInfo, Signatures } from "../../../schemas/broker/Content.ts"
import { attempt } from "../engine/PdfRequest.ts"
import { workerSettings } from "../engine/WorkerSettings.ts"
import { certificatesFromPem } from "./Certificates.ts"
import type { TrustStore } from "./CertificateTrust.ts"
import type { VerifySignatures } from "./SignatureRequests.ts"
import { verifySignatures } from "./SignatureVerification.ts"

const settings = workerSettings<{ readonly trustStore: ReadonlyArray<string> }>("signatures", { trustStore: [] })

/** The trust store, read on first use and kept (a file that cannot be read is left out, with a warning). */
const trustStore = (() => {
  let store: TrustStore | undefined
  return () => {
    if (store) return store
    const certificates: Array<Uint8Array> = []
    const readPem = (file: string) => {
      try {
        certificates.push(...certificatesFromPem(readFileSync(file)))
      } catch (error) {
        console.warn(
          `SIGNATURE_TRUST_STORE: ${file} cannot be read (${error instanceof Error ? error.message : String(error)})`
        )
      }
    }
    for (const entry of settings.trustStore) {
      if (existsSync(entry) && statSync(entry).isDirectory()) {
        for (const name of readdirSync(entry)) if (/\.(pem|crt|cer|der)$/i.test(name)) readPem(path.join(entry, name))
      } else if (existsSync(entry)) readPem(entry)
    }
    store = { certificates }
    return store
  }
})()

export const signatureHandlers: WorkerRunner.SerializedRunner.Handlers<VerifySignatures> = {
  VerifySignatures: (req) =>
    attempt("Verifying signatures", async () => {
      const verified = await verifySignatures(new Uint8Array(await readFile(req.path)), trustStore())
      return new Signatures({ ...verified, signatures: verified.signatures.map((s) => new SignatureInfo(s)) })
    })
}
