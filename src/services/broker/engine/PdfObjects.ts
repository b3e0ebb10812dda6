/**
 * Values read out of PDF objects (pdf-lib's), one way for every feature that reads them
 * (annotations in PDF and FDF files, signature dictionaries): text strings, names, numbers, dates.
 * A reader answers undefined for an object of another kind, never throws.
 */
import { PDFArray, type PDFContext, PDFHexString, PDFName, PDFNumber, type PDFObject, PDFString } from "pdf-lib"

const utf8 = new TextDecoder("utf-8", { fatal: true })

const latin1 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1")

/** A name's text: its bytes as UTF-8 (what PDF 2.0 says, and what the broker writes), else as Latin-1. */
export const nameText = (name: PDFName): string => {
  const bytes = name.asBytes()
  try {
    return utf8.decode(bytes)
  } catch {
    return latin1(bytes)
  }
}

/** A name for text: its UTF-8 bytes (pdf-lib escapes those outside printable ASCII as #xx). */
export const nameFor = (text: string): PDFName => PDFName.of(Buffer.from(text, "utf8").toString("latin1"))

/** A text string's bytes with a UTF-8 byte order mark (PDF 2.0) as UTF-8, else as pdf-lib reads them (PDFDocEncoding, UTF-16BE). */
const decodeBytesAsText = (bytes: Uint8Array, fallback: () => string): string => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    try {
      return utf8.decode(bytes.subarray(3))
    } catch {
      return fallback()
    }
  }
  return fallback()
}

/**
 * A text string (PDF 32000-1 7.9.2.2): PDFDocEncoding, UTF-16BE with BOM, or (PDF 2.0) UTF-8 with
 * BOM; a name read as text.
 */
export const textOf = (object: PDFObject | undefined): string | undefined => {
  try {
    if (object instanceof PDFString) {
      // An end of line inside a literal string, escaped (a continuation) or not, is one LF (7.3.4.2).
      const literal = PDFString.of(object.asString().replace(/\r\n?/g, "\n"))
      return decodeBytesAsText(literal.asBytes(), () => literal.decodeText())
    }
    if (object instanceof PDFHexString) return decodeBytesAsText(object.asBytes(), () => object.decodeText())
    if (object instanceof PDFName) return nameText(object)
  } catch {
    // A string pdf-lib cannot decode is no text.
  }
  return undefined
}

/** A name; a string where a name belongs is read as one too (writers mix them up). */
export const nameOf = (
  object: PDFObject | undefined
): string | undefined => (object instanceof PDFName ? nameText(object) : textOf(object))

export const numberOf = (object: PDFObject | undefined): number | undefined =>
  object instanceof PDFNumber && Number.isFinite(object.asNumber()) ? object.asNumber() : undefined

/** An array of names (each looked up through `context`), an element of another kind undefined. */
export const namesOf = (object: PDFObject | undefined, context: PDFContext): Array<string | undefined> | undefined =>
  object instanceof PDFArray ? object.asArray().map((item) => nameOf(context.lookup(item))) : undefined

/** An array of numbers (each looked up through `context`); undefined when it is no array or any element no number. */
export const numbersOf = (object: PDFObject | undefined, context: PDFContext): Array<number> | undefined => {
  if (!(object instanceof PDFArray)) return undefined
  const out: Array<number> = []
  for (let i = 0; i < object.size(); i++) {
    const value = numberOf(context.lookup(object.get(i)))
    if (value === undefined) return undefined
    out.push(value)
  }
  return out
}

const pad = (n: number, width = 2) => String(Math.trunc(Math.abs(n))).padStart(width, "0")

/** An ISO 8601 instant as a PDF date (`D:YYYYMMDDHHmmSSZ`, in UTC). */
export const toPdfDate = (iso: string): string => {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return `D:${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${
    pad(d.getUTCMinutes())
  }${pad(d.getUTCSeconds())}Z`
}

/**
 * A PDF date (`D:YYYYMMDDHHmmSSOHH'mm'`, every part after the year optional; PDF 32000-1 7.9.4) as
 * an ISO 8601 instant; undefined when it is not one.
 */
export const fromPdfDate = (value: string): string | undefined => {
  // Lenient as readers are: spaces inside the offset, anything after it ignored.
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(?:([Zz+-])\s*(?:(\d{2})'?\s*(?:(\d{2})'?)?)?)?/
    .exec(value.trim())
  if (!m) return undefined
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00", sign, oh = "00", om = "00"] = m
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s))
  if (Number.isNaN(utc)) return undefined
  const offset = sign === "+" || sign === "-" ? (Number(oh) * 60 + Number(om)) * (sign === "+" ? 1 : -1) : 0
  return new Date(utc - offset * 60_000).toISOString()
}
