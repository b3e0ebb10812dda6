/**
 * How the bytes of a text file map to characters: byte order marks, UTF-16 without a mark, UTF-8,
 * then a legacy encoding recognised statistically (chardet: Shift_JIS, EUC-JP, GB18030, Big5,
 * EUC-KR, KOI8-R, windows-1251, ...), and windows-1252 when nothing is recognised with confidence.
 * One implementation, used by the format detector (is it text at all?) and by the converters (hand
 * LibreOffice UTF-8 whatever came in).
 */
import chardet from "chardet"

/** The Unicode encodings this module recognises by their bytes; legacy ones are any label TextDecoder knows. */
export type TextEncodingName =
  | "utf-8"
  | "utf-16le"
  | "utf-16be"
  | "utf-32le"
  | "utf-32be"
  | "windows-1252"
  | (string & {})

export interface EncodingGuess {
  readonly encoding: TextEncodingName
  /** Bytes of byte order mark to skip before decoding. */
  readonly bomLength: number
}

const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>) => signature.every((b, i) => bytes[i] === b)

/** The encoding a byte order mark announces, if the bytes start with one. */
export const bomOf = (bytes: Uint8Array): EncodingGuess | undefined => {
  // UTF-32LE's mark begins with UTF-16LE's, so it is tested first.
  if (startsWith(bytes, [0xff, 0xfe, 0x00, 0x00])) return { encoding: "utf-32le", bomLength: 4 }
  if (startsWith(bytes, [0x00, 0x00, 0xfe, 0xff])) return { encoding: "utf-32be", bomLength: 4 }
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return { encoding: "utf-8", bomLength: 3 }
  if (startsWith(bytes, [0xff, 0xfe])) return { encoding: "utf-16le", bomLength: 2 }
  if (startsWith(bytes, [0xfe, 0xff])) return { encoding: "utf-16be", bomLength: 2 }
  return undefined
}

/**
 * UTF-16 without a mark, recognised by its NUL bytes: text in Latin script has a zero high byte in
 * most code units, so one byte position is mostly NUL and the other almost never.
 */
const utf16ByNulPattern = (bytes: Uint8Array): TextEncodingName | undefined => {
  const pairs = Math.floor(Math.min(bytes.length, 8192) / 2)
  if (pairs === 0) return undefined
  let evenNul = 0
  let oddNul = 0
  for (let i = 0; i < pairs; i++) {
    if (bytes[2 * i] === 0) evenNul++
    if (bytes[2 * i + 1] === 0) oddNul++
  }
  const candidate: TextEncodingName | undefined = evenNul >= pairs * 0.3 && oddNul <= pairs * 0.05
    ? "utf-16be"
    : oddNul >= pairs * 0.3 && evenNul <= pairs * 0.05
    ? "utf-16le"
    : undefined
  if (candidate === undefined) return undefined
  // Unpaired surrogates mean it is not UTF-16 after all; `stream` tolerates a pair cut at the end.
  try {
    new TextDecoder(candidate, { fatal: true }).decode(bytes.subarray(0, pairs * 2), { stream: true })
    return candidate
  } catch {
    return undefined
  }
}

/**
 * UTF-8 when the bytes are valid UTF-8, or nearly so: a few broken sequences in text that is
 * otherwise full of well-formed multi-byte characters are damage, not another encoding.
 */
const isUtf8 = (bytes: Uint8Array): boolean => {
  try {
    // `stream` so that a sample cut inside a character is not held against it.
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true })
    return true
  } catch {
    const text = new TextDecoder("utf-8").decode(bytes, { stream: true })
    let replaced = 0
    let multiByte = 0
    for (const char of text) {
      if (char === "\uFFFD") replaced++
      else if (char.codePointAt(0)! > 0x7f) multiByte++
    }
    return multiByte >= 4 * replaced && multiByte > 0
  }
}

/** Below this chardet confidence (0-100) a guess is not trusted over windows-1252. */
const LEGACY_CONFIDENCE = 40
/** Guesses that windows-1252 reads as well or better (it is their superset or near enough). */
const WESTERN = new Set(["iso-8859-1", "iso-8859-15", "windows-1252", "ascii"])

/** A legacy encoding chardet is confident about and TextDecoder can read, if any. */
const legacyEncoding = (bytes: Uint8Array): string | undefined => {
  const best = chardet.analyse(bytes.subarray(0, 64 * 1024))[0]
  if (!best || best.confidence < LEGACY_CONFIDENCE || WESTERN.has(best.name.toLowerCase())) return undefined
  try {
    return new TextDecoder(best.name).encoding
  } catch {
    return undefined
  }
}

/**
 * The encoding of a text, by byte order mark, UTF-16 NUL pattern, UTF-8 validity, a confident guess
 * at a legacy encoding, else windows-1252.
 */
export const sniffEncoding = (bytes: Uint8Array): EncodingGuess => {
  const bom = bomOf(bytes)
  if (bom) return bom
  const utf16 = utf16ByNulPattern(bytes)
  if (utf16) return { encoding: utf16, bomLength: 0 }
  if (isUtf8(bytes)) return { encoding: "utf-8", bomLength: 0 }
  return { encoding: legacyEncoding(bytes) ?? "windows-1252", bomLength: 0 }
}

/** UTF-32 by hand: the WHATWG Encoding Standard, hence TextDecoder, has no UTF-32 decoder. */
const decodeUtf32 = (bytes: Uint8Array, littleEndian: boolean): string => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const parts: Array<string> = []
  let codePoints: Array<number> = []
  for (let i = 0; i + 4 <= bytes.length; i += 4) {
    const cp = view.getUint32(i, littleEndian)
    codePoints.push(cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0xfffd : cp)
    if (codePoints.length === 8192) {
      parts.push(String.fromCodePoint(...codePoints))
      codePoints = []
    }
  }
  parts.push(String.fromCodePoint(...codePoints))
  return parts.join("")
}

/**
 * Decodes bytes in a given encoding (any label TextDecoder knows, plus UTF-32), never failing:
 * malformed sequences become U+FFFD. With `partial`, a character cut at the end is dropped.
 */
export const decodeAs = (bytes: Uint8Array, encoding: string, partial = false): string => {
  const label = encoding.toLowerCase()
  if (label === "utf-32le" || label === "utf-32be" || label === "utf-32") {
    return decodeUtf32(bytes, label !== "utf-32be")
  }
  // ignoreBOM: the caller has already skipped the mark; a U+FEFF later on is content.
  const decoder = new TextDecoder(label, { ignoreBOM: true })
  // Node ≥ 20.18.3 decodes windows-1252 through a Latin-1 fast path that leaves 0x80–0x9F as C1
  // controls ("€" and curly quotes lost; nodejs/node#60888); a streaming call takes ICU's real
  // table instead, and a single-byte encoding has nothing to hold back at the end.
  const stream = partial || decoder.encoding === "windows-1252"
  return decoder.decode(bytes, { stream })
}

/** The whole text of a file, in the encoding its bytes say (see `sniffEncoding`). */
export const decodeText = (bytes: Uint8Array): { readonly text: string; readonly encoding: string } => {
  const guess = sniffEncoding(bytes)
  return { text: decodeAs(bytes.subarray(guess.bomLength), guess.encoding), encoding: guess.encoding }
}

/**
 * Whether decoded characters read as text: no C0 control characters other than tab, line feed,
 * vertical tab, form feed, carriage return, backspace, escape and the DOS end-of-file mark, and no
 * C1 controls (which windows-1252 leaves only for bytes it does not define).
 */
export const looksLikeText = (text: string): boolean =>
  !/[\u0000-\u0007\u000E-\u0019\u001C-\u001F\u0080-\u009F\uFFFE\uFFFF]/.test(text)

// ---------------------------------------------------------------------------------------------
// HTML

/** WHATWG labels for the Windows code pages mail programs and RTF name by number. */
const CODEPAGES: Readonly<Record<number, string>> = {
  708: "iso-8859-6",
  874: "windows-874",
  932: "shift_jis",
  936: "gbk",
  949: "euc-kr",
  950: "big5",
  1200: "utf-16le",
  1201: "utf-16be",
  10000: "macintosh",
  20127: "windows-1252",
  20866: "koi8-r",
  21866: "koi8-u",
  28591: "windows-1252",
  50220: "iso-2022-jp",
  51932: "euc-jp",
  54936: "gb18030",
  65001: "utf-8"
}

/** A TextDecoder label for a Windows code page number (1250–1258, ISO 8859 parts, CJK pages), if any. */
export const codepageEncoding = (codepage: number): string | undefined => {
  const label = CODEPAGES[codepage] ??
    (codepage >= 1250 && codepage <= 1258 ? `windows-${codepage}` : undefined) ??
    (codepage >= 28592 && codepage <= 28606 ? `iso-8859-${codepage - 28590}` : undefined)
  return label !== undefined && isKnownEncoding(label) ? label : undefined
}

const isKnownEncoding = (label: string) => {
  try {
    new TextDecoder(label)
    return true
  } catch {
    return false
  }
}

/** The charset a document declares in its first bytes: `<meta charset>`, `<meta http-equiv>` or the XML declaration. */
const declaredCharset = (bytes: Uint8Array): string | undefined => {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 4096))
  const meta = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i.exec(head)
  const xml = /^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/i.exec(head)
  const label = (meta?.[1] ?? xml?.[1])?.toLowerCase()
  if (label === undefined || !isKnownEncoding(label)) return undefined
  // A UTF-16 declaration in bytes that are readable as ASCII is wrong by definition (HTML spec: use UTF-8).
  return label.startsWith("utf-16") ? "utf-8" : label
}

/**
 * The text of an HTML file: a byte order mark first, then UTF-16 recognised by its NUL bytes, then
 * the charset the document declares, then the same guess as for plain text.
 */
export const decodeHtml = (bytes: Uint8Array): { readonly text: string; readonly encoding: string } => {
  const bom = bomOf(bytes)
  if (bom) return { text: decodeAs(bytes.subarray(bom.bomLength), bom.encoding), encoding: bom.encoding }
  const utf16 = utf16ByNulPattern(bytes)
  if (utf16) return { text: decodeAs(bytes, utf16), encoding: utf16 }
  const declared = declaredCharset(bytes)
  if (declared) return { text: decodeAs(bytes, declared), encoding: new TextDecoder(declared).encoding }
  return decodeText(bytes)
}

export const UTF8_META = `<meta charset="utf-8"><meta http-equiv="Content-Type" content="text/html; charset=utf-8">`

/**
 * Rewrites decoded HTML so that it says what it now is: every charset declaration removed, one
 * UTF-8 declaration put at the top of `<head>` (or of `<html>`, or of the document).
 */
export const declareUtf8 = (html: string): string => {
  const withoutDeclarations = html
    .replace(/^\uFEFF/, "")
    .replace(/^(\s*<\?xml\b[^>]*?\bencoding\s*=\s*)(["'])[^"']*\2/i, "$1$2utf-8$2")
    .replace(/<meta\b[^>]*?\bcharset\s*=[^>]*>/gi, "")
  for (const opening of [/<head\b[^>]*>/i, /<html\b[^>]*>/i, /<!doctype\b[^>]*>/i, /^\s*<\?xml\b[^>]*\?>/i]) {
    const match = opening.exec(withoutDeclarations)
    if (match) {
      const at = match.index + match[0].length
      return withoutDeclarations.slice(0, at) + UTF8_META + withoutDeclarations.slice(at)
    }
  }
  return UTF8_META + withoutDeclarations
}

/** An HTML file as UTF-8 text that declares itself UTF-8, for converters that read it as UTF-8. */
export const toUtf8Html = (bytes: Uint8Array): string => declareUtf8(decodeHtml(bytes).text)
