/**
 * Signed PDFs made in tests: identities (RSA key + certificate, self-signed or issued by a test CA,
 * packed as PKCS#12), small hand-written PDFs (uncompressed content, so a test can find and change
 * its text), signing with @signpdf, incremental updates appended by hand, and the certificates a
 * signature embeds.
 */
import { pdflibAddPlaceholder } from "@signpdf/placeholder-pdf-lib"
import { P12Signer } from "@signpdf/signer-p12"
import { Signer, SignPdf } from "@signpdf/signpdf"
import forge from "node-forge"
import { createPrivateKey, createSign } from "node:crypto"
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRef, PDFString } from "pdf-lib"
import * as pkijs from "pkijs"

export interface SigningIdentity {
  readonly commonName: string
  /** The certificate, DER. */
  readonly certificate: Uint8Array
  readonly certificatePem: string
  /** PKCS#12 with the key, the certificate and its issuers (all embedded in the signatures it makes). */
  readonly p12: Uint8Array
  readonly passphrase: string
  readonly forgeKey: forge.pki.rsa.PrivateKey
  readonly forgeCertificate: forge.pki.Certificate
  readonly issuers: ReadonlyArray<SigningIdentity>
}

export interface IdentityOptions {
  readonly commonName: string
  /** Issued by this identity; self-signed without. */
  readonly issuer?: SigningIdentity
  /** A certification authority (basicConstraints cA, keyCertSign). */
  readonly ca?: boolean
  readonly notBefore?: Date
  readonly notAfter?: Date
}

let serial = 1

/** A fresh RSA-2048 key and its certificate (node's native key generation, through node-forge). */
export const makeIdentity = (options: IdentityOptions): SigningIdentity => {
  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 })
  const cert = forge.pki.createCertificate()
  cert.publicKey = keys.publicKey
  cert.serialNumber = `01${(serial++).toString(16).padStart(8, "0")}${
    forge.util.bytesToHex(forge.random.getBytesSync(8))
  }`
  cert.validity.notBefore = options.notBefore ?? new Date(Date.UTC(2020, 0, 1))
  cert.validity.notAfter = options.notAfter ?? new Date(Date.UTC(2040, 0, 1))
  const subject = [{ name: "commonName", value: options.commonName }, {
    name: "organizationName",
    value: "Docstack tests"
  }]
  cert.setSubject(subject)
  cert.setIssuer(options.issuer ? options.issuer.forgeCertificate.subject.attributes : subject)
  const ca = options.ca ?? false
  cert.setExtensions([
    { name: "basicConstraints", cA: ca, critical: true },
    { name: "keyUsage", digitalSignature: !ca, nonRepudiation: !ca, keyCertSign: ca, cRLSign: ca, critical: true },
    { name: "subjectKeyIdentifier" }
  ])
  cert.sign(options.issuer?.forgeKey ?? keys.privateKey, forge.md.sha256.create())
  const issuers = options.issuer ? [options.issuer, ...options.issuer.issuers] : []
  const passphrase = "test"
  const p12 = forge.pkcs12.toPkcs12Asn1(
    keys.privateKey,
    [cert, ...issuers.map((i) => i.forgeCertificate)],
    passphrase,
    { algorithm: "3des" }
  )
  return {
    commonName: options.commonName,
    certificate: binary(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes()),
    certificatePem: forge.pki.certificateToPem(cert),
    p12: binary(forge.asn1.toDer(p12).getBytes()),
    passphrase,
    forgeKey: keys.privateKey,
    forgeCertificate: cert,
    issuers
  }
}

const binary = (bytes: string) => new Uint8Array(Buffer.from(bytes, "binary"))

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")

/** A PDF written object by object, with its cross-reference table. Object n is `bodies[n - 1]`. */
export const writePdf = (bodies: ReadonlyArray<string>, root = 1): Uint8Array => {
  let out = "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
  const offsets: Array<number> = []
  bodies.forEach((body, index) => {
    offsets.push(out.length)
    out += `${index + 1} 0 obj\n${body}\nendobj\n`
  })
  const xref = out.length
  out += `xref\n0 ${bodies.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`
  out += `trailer\n<< /Size ${bodies.length + 1} /Root ${root} 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return new Uint8Array(Buffer.from(out, "latin1"))
}

export const streamObject = (content: string, dict = "") =>
  `<< /Length ${Buffer.byteLength(content, "latin1")} ${dict}>>\nstream\n${content}\nendstream`

export interface SmallPdfOptions {
  /** The page's one line of text (in an uncompressed content stream). */
  readonly text?: string
  /** Unsigned signature fields; "Parent.Kid" makes a parent field with a signature kid. */
  readonly signatureFields?: ReadonlyArray<string>
}

/** A one-page PDF with a line of text, and optionally unsigned signature fields. */
export const smallPdf = (options: SmallPdfOptions = {}): Uint8Array => {
  const text = options.text ?? "Pay 100 EUR to the bearer"
  const bodies: Array<string> = []
  const add = (body: string) => bodies.push(body)
  add("") // 1: catalog, written last
  add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>") // 2
  add("") // 3: page, written last
  add(streamObject(`BT /F1 18 Tf 30 100 Td (${text}) Tj ET`)) // 4
  add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>") // 5
  const fields: Array<number> = []
  const widgets: Array<number> = []
  for (const name of options.signatureFields ?? []) {
    const [first, second] = name.split(".")
    const widget = (partial: string, parent?: number) =>
      `<< /Type /Annot /Subtype /Widget /FT /Sig /T ${
        PDFString.of(partial).toString()
      } /Rect [20 20 120 60] /F 4 /P 3 0 R${parent ? ` /Parent ${parent} 0 R` : ""} >>`
    if (second === undefined) {
      widgets.push(add(widget(first!)))
      fields.push(bodies.length)
    } else {
      const parent = bodies.length + 1
      add(`<< /T ${PDFString.of(first!).toString()} /Kids [${parent + 1} 0 R] >>`)
      add(widget(second, parent))
      fields.push(parent)
      widgets.push(parent + 1)
    }
  }
  const refs = (ids: ReadonlyArray<number>) => ids.map((id) => `${id} 0 R`).join(" ")
  bodies[0] = `<< /Type /Catalog /Pages 2 0 R${
    fields.length > 0 ? ` /AcroForm << /Fields [${refs(fields)}] /SigFlags 0 >>` : ""
  } >>`
  bodies[2] =
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >>${
      widgets.length > 0 ? ` /Annots [${refs(widgets)}]` : ""
    } >>`
  return writePdf(bodies)
}

export interface SignOptions {
  readonly reason?: string
  readonly location?: string
  readonly name?: string
  readonly contactInfo?: string
  readonly signingTime?: Date
}

/** Signs with @signpdf: pdf-lib re-saves the document with a signature field "Signature1" and a placeholder. */
export const signPdf = async (
  pdf: Uint8Array,
  identity: SigningIdentity,
  options: SignOptions = {}
): Promise<Uint8Array> => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  pdflibAddPlaceholder({
    pdfDoc: doc,
    reason: options.reason ?? "",
    location: options.location ?? "",
    name: options.name ?? "",
    contactInfo: options.contactInfo ?? "",
    ...(options.signingTime ? { signingTime: options.signingTime } : {})
  })
  const prepared = await doc.save({ useObjectStreams: false })
  return sign(prepared, identity, options.signingTime)
}

const sign = async (prepared: Uint8Array, identity: SigningIdentity, signingTime: Date | undefined) =>
  new Uint8Array(
    await new SignPdf().sign(
      Buffer.from(prepared),
      new P12Signer(identity.p12, { passphrase: identity.passphrase }),
      signingTime
    )
  )

/** The file's revision chain: what an incremental update needs. */
const revisionInfo = async (pdf: Uint8Array) => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  const startxref = [...latin1(pdf).matchAll(/startxref\s+(\d+)/g)].at(-1)?.[1]
  if (startxref === undefined) throw new Error("no startxref")
  return { doc, startxref: Number(startxref) }
}

/**
 * Appends an incremental update (a new revision) that (re)defines the given objects, leaving the
 * bytes before it untouched — as a viewer saving changes to a signed document does.
 */
export const appendRevision = async (
  pdf: Uint8Array,
  objects: ReadonlyArray<readonly [number, string]>,
  trailer = ""
): Promise<Uint8Array> => {
  const { doc, startxref } = await revisionInfo(pdf)
  const root = doc.context.trailerInfo.Root!.toString()
  const size = Math.max(doc.context.largestObjectNumber, ...objects.map(([id]) => id)) + 1
  let out = "\n"
  const offsets: Array<readonly [number, number]> = []
  for (const [id, body] of objects) {
    offsets.push([id, pdf.length + Buffer.byteLength(out, "latin1")])
    out += `${id} 0 obj\n${body}\nendobj\n`
  }
  const xref = pdf.length + Buffer.byteLength(out, "latin1")
  out += "xref\n0 1\n0000000000 65535 f \n"
  for (const [id, offset] of offsets) out += `${id} 1\n${String(offset).padStart(10, "0")} 00000 n \n`
  out += `trailer\n<< /Size ${size} /Root ${root} /Prev ${startxref} ${trailer}>>\nstartxref\n${xref}\n%%EOF\n`
  const tail = Buffer.from(out, "latin1")
  const result = new Uint8Array(pdf.length + tail.length)
  result.set(pdf, 0)
  result.set(tail, pdf.length)
  return result
}

/** An incremental update replacing the first page's content stream (as an editor would). */
export const appendContentChange = async (pdf: Uint8Array, text: string): Promise<Uint8Array> => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  const contents = doc.getPages()[0]!.node.get(PDFName.of("Contents"))
  if (!(contents instanceof PDFRef)) throw new Error("the page's /Contents is not a reference")
  return appendRevision(pdf, [[contents.objectNumber, streamObject(`BT /F1 18 Tf 30 100 Td (${text}) Tj ET`)]])
}

export interface AppendSignatureOptions extends SignOptions {
  /** The field signed: an existing unsigned signature field, else a new one made on page 1. */
  readonly field: string
  readonly subFilter?: string
  /** More entries for the signature dictionary, as PDF text (e.g. `/Cert <...>`). */
  readonly entries?: string
}

/**
 * Signs again in an incremental update, as a second signer would: a revision adding the signature
 * value to an existing empty field, or adding a new field on the first page (form and page
 * updated), then signed with @signpdf over the whole file.
 */
export const appendSignature = async (
  pdf: Uint8Array,
  identity: SigningIdentity | Signer,
  options: AppendSignatureOptions
): Promise<Uint8Array> => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  const context = doc.context
  const signatureId = context.largestObjectNumber + 1
  const text = (value: string | undefined) => PDFString.of(value ?? "").toString()
  const page = doc.getPages()[0]!
  const objects: Array<readonly [number, string]> = []
  // (getForm() would add a form to a document without one: only ask when there is one.)
  const existing = doc.catalog.has(PDFName.of("AcroForm"))
    ? doc.getForm().getFields().find((f) => f.getName() === options.field)
    : undefined
  if (existing) {
    existing.acroField.dict.set(PDFName.of("V"), PDFRef.of(signatureId))
    objects.push([existing.ref.objectNumber, existing.acroField.dict.toString()])
  } else {
    const fieldId = signatureId + 1
    const field = PDFRef.of(fieldId)
    const annots = page.node.lookup(PDFName.of("Annots"))
    page.node.set(PDFName.of("Annots"), context.obj([...(annots instanceof PDFArray ? annots.asArray() : []), field]))
    objects.push([page.ref.objectNumber, page.node.toString()])
    const formEntry = doc.catalog.get(PDFName.of("AcroForm"))
    const form = context.lookup(formEntry)
    const fields = form instanceof PDFDict ? form.lookup(PDFName.of("Fields")) : undefined
    const newForm = form instanceof PDFDict ? form : context.obj({})
    newForm.set(PDFName.of("Fields"), context.obj([...(fields instanceof PDFArray ? fields.asArray() : []), field]))
    newForm.set(PDFName.of("SigFlags"), context.obj(3))
    if (formEntry instanceof PDFRef) objects.push([formEntry.objectNumber, newForm.toString()])
    else {
      doc.catalog.set(PDFName.of("AcroForm"), newForm)
      objects.push([(context.trailerInfo.Root as PDFRef).objectNumber, doc.catalog.toString()])
    }
    objects.push([
      fieldId,
      `<< /Type /Annot /Subtype /Widget /FT /Sig /T ${
        text(options.field)
      } /V ${signatureId} 0 R /Rect [0 0 0 0] /F 4 /P ${page.ref.toString()} >>`
    ])
  }
  const signingTime = options.signingTime ?? new Date()
  objects.push([
    signatureId,
    `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /${
      options.subFilter ?? "adbe.pkcs7.detached"
    } /ByteRange [0 /********** /********** /**********] /Contents <${"0".repeat(16384)}> /M ${
      PDFString.fromDate(signingTime).toString()
    } /Reason ${text(options.reason)} /Location ${text(options.location)} /Name ${text(options.name)} ${
      options.entries ?? ""
    }>>`
  ])
  const appended = await appendRevision(pdf, objects)
  return identity instanceof Signer
    ? new Uint8Array(await new SignPdf().sign(Buffer.from(appended), identity, signingTime))
    : sign(appended, identity, signingTime)
}

/**
 * The legacy adbe.x509.rsa_sha1 format: /Contents is a DER OCTET STRING holding an RSA PKCS#1 v1.5
 * signature (SHA-1) of the signed bytes, the certificate is in /Cert. Use with appendSignature and
 * `x509Entries`.
 */
export class Pkcs1Signer extends Signer {
  constructor(private readonly identity: SigningIdentity) {
    super()
  }

  override async sign(pdfBuffer: Buffer): Promise<Buffer> {
    const key = createPrivateKey(forge.pki.privateKeyToPem(this.identity.forgeKey))
    const signature = createSign("sha1").update(pdfBuffer).sign(key)
    return Buffer.from(
      forge.asn1.toDer(
        forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.OCTETSTRING, false, signature.toString("binary"))
      ).getBytes(),
      "binary"
    )
  }
}

/** The /SubFilter and /Cert entries of an adbe.x509.rsa_sha1 signature by this identity. */
export const x509Entries = (identity: SigningIdentity) => ({
  subFilter: "adbe.x509.rsa_sha1",
  entries: `/Cert <${Buffer.from(identity.certificate).toString("hex")}> `
})

/** Changes bytes in place (same length), e.g. a word of the page's text. */
export const replaceBytes = (pdf: Uint8Array, search: string, replacement: string): Uint8Array => {
  if (search.length !== replacement.length) throw new Error("replaceBytes keeps the length")
  const at = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).indexOf(search, 0, "latin1")
  if (at < 0) throw new Error(`"${search}" is not in the file`)
  const copy = pdf.slice()
  copy.set(Buffer.from(replacement, "latin1"), at)
  return copy
}

/** The certificates (DER) embedded in the CMS signatures of a PDF, read with pdf-lib and pkijs. */
export const embeddedCertificates = async (pdf: Uint8Array): Promise<ReadonlyArray<Uint8Array>> => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  const found: Array<Uint8Array> = []
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || !object.has(PDFName.of("ByteRange"))) continue
    const contents = object.lookup(PDFName.of("Contents"))
    if (!(contents instanceof PDFHexString)) continue
    const info = pkijs.ContentInfo.fromBER(new Uint8Array(contents.asBytes()))
    const signed = new pkijs.SignedData({ schema: info.content })
    for (const cert of signed.certificates ?? []) {
      if (cert instanceof pkijs.Certificate) found.push(new Uint8Array(cert.toSchema().toBER(false)))
    }
  }
  return found
}
