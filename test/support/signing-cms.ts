/**
 * PDF signatures whose CMS is built here with pkijs and WebCrypto, for the variants @signpdf's P12
 * signer does not make: ECDSA and RSA-PSS keys, no signed attributes, adbe.pkcs7.sha1 (the SHA-1
 * digest as encapsulated content), and ETSI.RFC3161 document timestamps. Self-signed certificates
 * from pkijs too (@peculiar/x509 needs a reflect-metadata polyfill that is not installed); the
 * placeholder and byte range from @signpdf, as in signing.ts.
 */
import { pdflibAddPlaceholder } from "@signpdf/placeholder-pdf-lib"
import { Signer, SignPdf } from "@signpdf/signpdf"
import * as asn1js from "asn1js"
import { createHash, webcrypto } from "node:crypto"
import { PDFDocument } from "pdf-lib"
import * as pkijs from "pkijs"

export type KeyKind = "ECDSA" | "RSA-PSS" | "RSASSA-PKCS1-v1_5"

export interface CmsIdentity {
  readonly commonName: string
  readonly kind: KeyKind
  readonly keys: CryptoKeyPair
  /** DER. */
  readonly certificate: Uint8Array
}

const algorithms: Record<KeyKind, RsaHashedKeyGenParams | EcKeyGenParams> = {
  ECDSA: { name: "ECDSA", namedCurve: "P-256" },
  "RSA-PSS": { name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
  "RSASSA-PKCS1-v1_5": {
    name: "RSASSA-PKCS1-v1_5",
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: "SHA-256"
  }
}

const bytes = (data: Uint8Array | ArrayBuffer) => new Uint8Array(data)

/** A key pair and a self-signed certificate for it (keyUsage digitalSignature + nonRepudiation). */
export const makeCmsIdentity = async (commonName: string, kind: KeyKind): Promise<CmsIdentity> => {
  const keys = (await webcrypto.subtle.generateKey(algorithms[kind], true, ["sign", "verify"])) as CryptoKeyPair
  const certificate = new pkijs.Certificate()
  certificate.version = 2
  certificate.serialNumber = new asn1js.Integer({
    valueHex: bytes(createHash("sha1").update(commonName + kind).digest()).map((b, i) => (i === 0 ? b & 0x7f : b))
  })
  const name =
    () => [new pkijs.AttributeTypeAndValue({ type: "2.5.4.3", value: new asn1js.Utf8String({ value: commonName }) })]
  certificate.subject.typesAndValues.push(...name())
  certificate.issuer.typesAndValues.push(...name())
  certificate.notBefore.value = new Date("2020-01-01T00:00:00Z")
  certificate.notAfter.value = new Date("2040-01-01T00:00:00Z")
  certificate.extensions = [
    new pkijs.Extension({
      extnID: "2.5.29.15",
      critical: true,
      extnValue: new asn1js.BitString({ valueHex: new Uint8Array([0xc0]), unusedBits: 6 }).toBER()
    })
  ]
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey)
  await certificate.sign(keys.privateKey, "SHA-256")
  return { commonName, kind, keys, certificate: bytes(certificate.toSchema(true).toBER()) }
}

export interface CmsOptions {
  readonly subFilter?: "adbe.pkcs7.detached" | "ETSI.CAdES.detached" | "adbe.pkcs7.sha1" | "ETSI.RFC3161"
  /** Signed attributes (content type, signing time, message digest); true by default. */
  readonly signedAttributes?: boolean
  readonly signingTime?: Date
  readonly reason?: string
}

const OIDS = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  tstInfo: "1.2.840.113549.1.9.16.1.4",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
  sha256: "2.16.840.1.101.3.4.2.1"
}

const sha = (algorithm: string, data: Uint8Array) => new Uint8Array(createHash(algorithm).update(data).digest())

/** The CMS for the signed bytes, as the options say. */
const buildCms = async (identity: CmsIdentity, signedBytes: Uint8Array, options: CmsOptions): Promise<Uint8Array> => {
  const certificate = pkijs.Certificate.fromBER(bytes(identity.certificate))
  const signingTime = options.signingTime ?? new Date()
  let eContentType = OIDS.data
  let eContent: Uint8Array | undefined
  if (options.subFilter === "adbe.pkcs7.sha1") eContent = sha("sha1", signedBytes)
  if (options.subFilter === "ETSI.RFC3161") {
    eContentType = OIDS.tstInfo
    eContent = new Uint8Array(
      new pkijs.TSTInfo({
        version: 1,
        policy: "1.3.6.1.4.1.99999.1",
        messageImprint: new pkijs.MessageImprint({
          hashAlgorithm: new pkijs.AlgorithmIdentifier({
            algorithmId: OIDS.sha256,
            algorithmParams: new asn1js.Null()
          }),
          hashedMessage: new asn1js.OctetString({ valueHex: sha("sha256", signedBytes) })
        }),
        serialNumber: new asn1js.Integer({ value: 42 }),
        genTime: signingTime
      }).toSchema().toBER()
    )
  }
  const content = eContent ?? signedBytes
  const withAttributes = options.signedAttributes ?? true
  const attributes = [
    new pkijs.Attribute({ type: OIDS.contentType, values: [new asn1js.ObjectIdentifier({ value: eContentType })] }),
    new pkijs.Attribute({ type: OIDS.signingTime, values: [new asn1js.UTCTime({ valueDate: signingTime })] }),
    new pkijs.Attribute({
      type: OIDS.messageDigest,
      values: [new asn1js.OctetString({ valueHex: sha("sha256", content) })]
    })
  ]
  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType,
      ...(eContent ? { eContent: new asn1js.OctetString({ valueHex: eContent }) } : {})
    }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
        ...(withAttributes ? { signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }) } : {})
      })
    ],
    certificates: [certificate]
  })
  await signedData.sign(identity.keys.privateKey, 0, "SHA-256", eContent ? new Uint8Array(0) : bytes(signedBytes))
  return new Uint8Array(
    new pkijs.ContentInfo({ contentType: OIDS.signedData, content: signedData.toSchema(true) }).toSchema().toBER()
  )
}

class CmsSigner extends Signer {
  constructor(private readonly identity: CmsIdentity, private readonly options: CmsOptions) {
    super()
  }

  override async sign(pdfBuffer: Buffer): Promise<Buffer> {
    return Buffer.from(await buildCms(this.identity, new Uint8Array(pdfBuffer), this.options))
  }
}

/** Signs with a CMS built here; the field is "Signature1", the SubFilter the one asked for. */
export const signPdfWithCms = async (
  pdf: Uint8Array,
  identity: CmsIdentity,
  options: CmsOptions = {}
): Promise<Uint8Array> => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false })
  pdflibAddPlaceholder({
    pdfDoc: doc,
    reason: options.reason ?? "",
    location: "",
    name: "",
    contactInfo: "",
    subFilter: options.subFilter ?? "ETSI.CAdES.detached",
    ...(options.signingTime ? { signingTime: options.signingTime } : {})
  })
  const prepared = await doc.save({ useObjectStreams: false })
  return new Uint8Array(await new SignPdf().sign(Buffer.from(prepared), new CmsSigner(identity, options)))
}
