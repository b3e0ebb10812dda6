/**
 * The bytes a signature signs. The /ByteRange must be two ranges starting at byte 0 whose gap is
 * exactly the /Contents hex string (with or without its `<` `>` delimiters inside the signed bytes
 * — both occur in the wild and both leave only the signature value unsigned). The signature value
 * is read in place (at most MAX_SIGNATURE_BYTES decoded) and the ranges are hashed as views of the
 * caller's bytes (no copy), each distinct digest once.
 */
import { createHash } from "node:crypto"
import { PDFArray, type PDFDict, PDFHexString, PDFString } from "pdf-lib"
import { numberOf } from "../engine/PdfObjects.ts"
import { N } from "./SignatureFields.ts"
import { SignatureProblem } from "./SignatureProblem.ts"

/** The largest signature value read (decoded /Contents): room for embedded CRLs and OCSP responses. */
const MAX_SIGNATURE_BYTES = 4 * 1024 * 1024

export interface SignedRange {
  /** End of the first range = start of the unsigned gap. */
  readonly gapStart: number
  /** End of the gap = start of the second range. */
  readonly gapEnd: number
  /** End of the second range. */
  readonly end: number
  /** The decoded signature value, read from the gap. */
  readonly contents: Uint8Array
}

const LESS = 0x3c
const GREATER = 0x3e
const CONTENTS_KEY = Buffer.from("/Contents", "latin1")

/**
 * The /ByteRange, checked against the file: two ranges from byte 0 whose gap is exactly the
 * /Contents hex string of this dictionary, so that nothing but the signature value is unsigned.
 */
export const signedRange = (pdf: Uint8Array, signature: PDFDict): SignedRange => {
  const array = signature.lookup(N.ByteRange)
  if (!(array instanceof PDFArray)) throw new SignatureProblem("The signature has no /ByteRange")
  if (array.size() !== 4) {
    throw new SignatureProblem(`The /ByteRange has ${array.size()} numbers; two ranges (four numbers) are supported`)
  }
  const numbers = array.asArray().map((item) => numberOf(item) ?? Number.NaN)
  if (!numbers.every((n) => Number.isSafeInteger(n) && n >= 0)) {
    throw new SignatureProblem("The /ByteRange does not hold non-negative integers")
  }
  const [start, firstLength, gapEnd, secondLength] = numbers as [number, number, number, number]
  if (start !== 0) throw new SignatureProblem("The signed bytes do not start at the beginning of the file")
  const gapStart = firstLength
  if (gapStart < 1 || gapEnd < gapStart) throw new SignatureProblem("The /ByteRange ranges overlap or are out of order")
  const end = gapEnd + secondLength
  if (end > pdf.length) {
    throw new SignatureProblem(
      `The file ends ${
        end - pdf.length
      } bytes before the end of the signed bytes: it was truncated or the /ByteRange is wrong`
    )
  }
  // The gap is the hex string with its delimiters (the usual way) or only its digits.
  let hexStart: number
  let hexEnd: number
  if (pdf[gapStart] === LESS && gapEnd - gapStart >= 2 && pdf[gapEnd - 1] === GREATER) {
    hexStart = gapStart + 1
    hexEnd = gapEnd - 1
  } else if (pdf[gapStart - 1] === LESS && pdf[gapEnd] === GREATER) {
    hexStart = gapStart
    hexEnd = gapEnd
  } else {
    throw new SignatureProblem("The unsigned part of the file is not the signature value (/Contents)")
  }
  let key = hexStart - 2
  while (key >= 0 && isWhitespace(pdf[key]!)) key--
  const keyStart = key + 1 - CONTENTS_KEY.length
  if (keyStart < 0 || !CONTENTS_KEY.equals(pdf.subarray(keyStart, key + 1))) {
    throw new SignatureProblem("The unsigned part of the file is not the signature value (/Contents)")
  }
  if (hexEnd - hexStart > 2 * MAX_SIGNATURE_BYTES + 1024) {
    throw new SignatureProblem(
      `The signature value is too large (${
        Math.floor((hexEnd - hexStart) / 2)
      } bytes; at most ${MAX_SIGNATURE_BYTES} are read)`
    )
  }
  // The dictionary's own /Contents must be that string (not another /Contents elsewhere).
  const declared = signature.lookup(N.Contents)
  const gapText = Buffer.from(pdf.buffer, pdf.byteOffset + hexStart, hexEnd - hexStart).toString("latin1")
  if (!(declared instanceof PDFHexString) || declared.asString() !== gapText) {
    throw new SignatureProblem("The unsigned part of the file is not this signature's /Contents")
  }
  return { gapStart, gapEnd, end, contents: decodeHex(pdf.subarray(hexStart, hexEnd)) }
}

/** The /Contents entry, when the byte range could not be used to find it. */
export const contentsEntry = (signature: PDFDict): Uint8Array => {
  const value = signature.lookup(N.Contents)
  if (value instanceof PDFHexString) {
    if (value.asString().length > 2 * MAX_SIGNATURE_BYTES + 1024) {
      throw new SignatureProblem("The signature value is too large")
    }
    return decodeHex(Buffer.from(value.asString(), "latin1"))
  }
  if (value instanceof PDFString) return value.asBytes()
  throw new SignatureProblem("The signature has no /Contents")
}

/** A PDF white-space character (PDF 32000-1 7.2.2). */
export const isWhitespace = (byte: number) =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00

const hexDigit = (byte: number): number => {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  const lower = byte | 0x20
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1
}

const decodeHex = (text: Uint8Array): Uint8Array => {
  const out = new Uint8Array(Math.ceil(text.length / 2))
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const byte = text[i]!
    const digit = hexDigit(byte)
    if (digit < 0) {
      if (isWhitespace(byte)) continue
      throw new SignatureProblem("The signature value is not a hexadecimal string")
    }
    if (count % 2 === 0) out[count >> 1] = digit << 4
    else out[count >> 1]! |= digit
    count++
  }
  return out.subarray(0, Math.ceil(count / 2))
}

/** The digest of the signed ranges, computed once per algorithm and range. */
export const rangeDigest = (
  pdf: Uint8Array,
  range: SignedRange,
  algorithm: string,
  digests: Map<string, Buffer>
): Buffer => {
  const key = `${algorithm}:${range.gapStart}:${range.gapEnd}:${range.end}`
  let digest = digests.get(key)
  if (!digest) {
    digest = createHash(algorithm).update(pdf.subarray(0, range.gapStart)).update(pdf.subarray(range.gapEnd, range.end))
      .digest()
    digests.set(key, digest)
  }
  return digest
}

/** The signed ranges, as views of the file. */
export const signedChunks = (
  pdf: Uint8Array,
  range: SignedRange
): ReadonlyArray<Uint8Array> => [pdf.subarray(0, range.gapStart), pdf.subarray(range.gapEnd, range.end)]
