/**
 * Recognises a file by its content, never by a client's claim. A file name is only a hint, used for
 * what content cannot tell apart (CSV or plain text, a fragment of HTML or plain text), never to
 * overrule it: a PDF called x.docx is a PDF.
 */
import { Effect } from "effect"
import { fileTypeFromFile } from "file-type"
import { type FileHandle, open } from "node:fs/promises"
import * as yauzl from "yauzl"
import { decodeAs, looksLikeText, sniffEncoding } from "./TextEncoding.ts"

export interface DetectedFormat {
  /** Short name used in the API's `format` fields. */
  readonly format: string
  readonly mimeType: string
  /**
   * How the broker handles it: `pdf` as is, `image` through ImageToPdf, `office` through LibreOffice,
   * `mupdf` through `mutool convert`, `email`, `zip` and `folder` as composite documents, `protected`
   * refused (password-encrypted; `format` is the best guess). `folder` is never detected: it is a
   * provider's folder answer, which the broker stores as it received it (docs/providers.md).
   */
  readonly kind: "pdf" | "image" | "office" | "mupdf" | "email" | "zip" | "folder" | "protected"
}

const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>, offset = 0) =>
  signature.every((b, i) => bytes[offset + i] === b)

const ascii = (text: string) => Array.from(text, (c) => c.charCodeAt(0))

/** Looks at up to the first kilobyte; `undefined` means not a format this broker renders. */
export const detectFormat = (head: Uint8Array): DetectedFormat | undefined => {
  // PDF readers accept the header anywhere in the first 1024 bytes, so do we.
  const text = new TextDecoder("latin1").decode(head.subarray(0, 1024))
  if (text.includes("%PDF-")) return { format: "pdf", mimeType: "application/pdf", kind: "pdf" }
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { format: "png", mimeType: "image/png", kind: "image" }
  }
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { format: "jpeg", mimeType: "image/jpeg", kind: "image" }
  if (startsWith(head, ascii("GIF87a")) || startsWith(head, ascii("GIF89a"))) {
    return { format: "gif", mimeType: "image/gif", kind: "image" }
  }
  if (startsWith(head, ascii("RIFF")) && startsWith(head, ascii("WEBP"), 8)) {
    return { format: "webp", mimeType: "image/webp", kind: "image" }
  }
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) {
    return { format: "tiff", mimeType: "image/tiff", kind: "image" }
  }
  if (startsWith(head, ascii("BM")) && head.length >= 26) return { format: "bmp", mimeType: "image/bmp", kind: "image" }
  return undefined
}

// ---------------------------------------------------------------------------------------------
// The formats detectFile answers with

const FORMATS = {
  pdf: { format: "pdf", mimeType: "application/pdf", kind: "pdf" },
  png: { format: "png", mimeType: "image/png", kind: "image" },
  jpeg: { format: "jpeg", mimeType: "image/jpeg", kind: "image" },
  gif: { format: "gif", mimeType: "image/gif", kind: "image" },
  webp: { format: "webp", mimeType: "image/webp", kind: "image" },
  tiff: { format: "tiff", mimeType: "image/tiff", kind: "image" },
  bmp: { format: "bmp", mimeType: "image/bmp", kind: "image" },
  doc: { format: "doc", mimeType: "application/msword", kind: "office" },
  docx: {
    format: "docx",
    mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    kind: "office"
  },
  odt: { format: "odt", mimeType: "application/vnd.oasis.opendocument.text", kind: "office" },
  rtf: { format: "rtf", mimeType: "application/rtf", kind: "office" },
  xls: { format: "xls", mimeType: "application/vnd.ms-excel", kind: "office" },
  xlsx: {
    format: "xlsx",
    mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    kind: "office"
  },
  ods: { format: "ods", mimeType: "application/vnd.oasis.opendocument.spreadsheet", kind: "office" },
  csv: { format: "csv", mimeType: "text/csv", kind: "office" },
  ppt: { format: "ppt", mimeType: "application/vnd.ms-powerpoint", kind: "office" },
  pptx: {
    format: "pptx",
    mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    kind: "office"
  },
  odp: { format: "odp", mimeType: "application/vnd.oasis.opendocument.presentation", kind: "office" },
  html: { format: "html", mimeType: "text/html", kind: "office" },
  text: { format: "text", mimeType: "text/plain", kind: "office" },
  xps: { format: "xps", mimeType: "application/vnd.ms-xpsdocument", kind: "mupdf" },
  oxps: { format: "xps", mimeType: "application/oxps", kind: "mupdf" },
  epub: { format: "epub", mimeType: "application/epub+zip", kind: "mupdf" },
  eml: { format: "eml", mimeType: "message/rfc822", kind: "email" },
  msg: { format: "msg", mimeType: "application/vnd.ms-outlook", kind: "email" },
  zip: { format: "zip", mimeType: "application/zip", kind: "zip" },
  folder: { format: "folder", mimeType: "inode/directory", kind: "folder" }
} as const satisfies Record<string, DetectedFormat>

type FormatName = keyof typeof FORMATS

const protectedAs = (format: "docx" | "xlsx" | "pptx" | "doc" | "xls" | "ppt" | "office"): DetectedFormat =>
  format === "office"
    ? { format: "office", mimeType: "application/octet-stream", kind: "protected" }
    : { format, mimeType: FORMATS[format].mimeType, kind: "protected" }

/** file-type's answers that are images this broker renders. */
const IMAGE_TYPES: Readonly<Record<string, FormatName>> = {
  png: "png",
  apng: "png",
  jpg: "jpeg",
  gif: "gif",
  webp: "webp",
  tif: "tiff",
  bmp: "bmp"
}

const extensionOf = (name: string | null): string => {
  if (name === null) return ""
  const base = name.slice(name.replace(/\\/g, "/").lastIndexOf("/") + 1)
  const dot = base.lastIndexOf(".")
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : ""
}

/**
 * The DetectedFormat a stored `format` and `mimeType` stand for (as detectFile answered at upload);
 * `undefined` for formats detectFile never answers ("unknown"). A `protected` answer cannot be told
 * from an ordinary one by these two fields: keep the kind if it matters.
 */
export const formatOfRecord = (format: string, mimeType: string): DetectedFormat | undefined => {
  const known: ReadonlyArray<DetectedFormat> = Object.values(FORMATS).filter((f) => f.format === format)
  return known.find((f) => f.mimeType === mimeType) ?? known[0]
}

// ---------------------------------------------------------------------------------------------
// Text: plain, CSV, HTML, RTF, RFC 822 messages

/** How much of a file is read to decide whether it is text and which kind. */
const TEXT_SAMPLE_BYTES = 64 * 1024

const HTML_START = /^<(?:!doctype\s+html|html|head|body)\b/i

/** Whether decoded text starts, past white space, comments and an XML declaration, as an HTML document. */
const looksLikeHtml = (text: string): boolean => {
  let rest = text.replace(/^\uFEFF/, "").trimStart()
  for (let i = 0; i < 100; i++) {
    const skipped = rest.replace(/^<\?xml\b[\s\S]*?\?>/i, "").replace(/^<!--[\s\S]*?-->/, "").trimStart()
    if (skipped === rest) break
    rest = skipped
  }
  return HTML_START.test(rest)
}

/** Header fields that only mail carries. */
const MAIL_ONLY_FIELDS = new Set([
  "mime-version",
  "received",
  "message-id",
  "return-path",
  "delivered-to",
  "x-mailer",
  "dkim-signature",
  "x-received",
  "in-reply-to",
  "references"
])
/** Header fields a memo might also start with; two of them are needed. */
const MAIL_FIELDS = new Set(["from", "to", "cc", "date", "subject", "sender", "reply-to"])

/** Whether text starts with an RFC 822 header block: only header lines up to the first empty line, with fields that mean mail. */
const looksLikeEmail = (text: string, complete: boolean): boolean => {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/)
  const fields: Array<string> = []
  let ended = false
  for (let i = 0; i < lines.length && i < 500; i++) {
    const line = lines[i]!
    if (line === "") {
      ended = true
      break
    }
    if (/^[ \t]/.test(line) && fields.length > 0) continue // a folded continuation
    const field = /^([!-9;-~]+):/.exec(line)
    if (!field) return false
    fields.push(field[1]!.toLowerCase())
  }
  // The header block must end (or the sample be cut while still in it, on a long header block).
  if (!ended && complete && fields.length < 2) return false
  return fields.some((f) => MAIL_ONLY_FIELDS.has(f)) || new Set(fields.filter((f) => MAIL_FIELDS.has(f))).size >= 2
}

const classifyText = (sample: Uint8Array, complete: boolean, extension: string): DetectedFormat | undefined => {
  const guess = sniffEncoding(sample)
  const text = decodeAs(sample.subarray(guess.bomLength), guess.encoding, !complete)
  if (!looksLikeText(text)) return undefined
  if (/^\uFEFF?\s*\{\\rtf/.test(text)) return FORMATS.rtf
  if (looksLikeHtml(text)) return FORMATS.html
  if (looksLikeEmail(text, complete)) return FORMATS.eml
  if (extension === "csv") return FORMATS.csv
  if (extension === "htm" || extension === "html" || extension === "xhtml") return FORMATS.html
  if (extension === "eml") return FORMATS.eml
  return FORMATS.text
}

// ---------------------------------------------------------------------------------------------
// ZIP packages: OOXML, ODF, EPUB, XPS, or a plain archive

const ZIP_INSPECT_ENTRIES = 100_000
const ZIP_INSPECT_MEMBER_BYTES = 512 * 1024

interface ZipPackage {
  readonly names: ReadonlySet<string>
  readonly mimetype: string | undefined
  readonly contentTypes: string | undefined
  readonly rootRels: string | undefined
  /** META-INF/manifest.xml of an OpenDocument package (lists its encrypted members, if any). */
  readonly manifest: string | undefined
}

const readMember = async (zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<string | undefined> => {
  if (!entry.canDecodeFileData()) return undefined
  const stream = await zip.openReadStreamPromise(entry)
  // Reading stops early: the inflater may still write into yauzl's size check, whose error must not go uncaught.
  stream.on("error", () => {})
  const chunks: Array<Buffer> = []
  let size = 0
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk)
      size += chunk.length
      if (size >= ZIP_INSPECT_MEMBER_BYTES) break
    }
  } catch {
    return undefined
  } finally {
    stream.destroy()
  }
  return Buffer.concat(chunks).toString("utf8")
}

/** The names in a ZIP's central directory and the members that say what package it is; `undefined` if unreadable. */
const readZipPackage = async (path: string): Promise<ZipPackage | undefined> => {
  let zip: yauzl.ZipFile
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, decodeStrings: false })
  } catch {
    return undefined
  }
  zip.on("error", () => {}) // failures arrive through the promises below
  const names = new Set<string>()
  let mimetype: string | undefined
  let contentTypes: string | undefined
  let rootRels: string | undefined
  let manifest: string | undefined
  try {
    let count = 0
    for await (const entry of zip.eachEntry()) {
      const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false)
      const lower = name.toLowerCase()
      names.add(lower)
      if (lower === "mimetype") mimetype = await readMember(zip, entry).catch(() => undefined)
      else if (lower === "[content_types].xml") contentTypes = await readMember(zip, entry).catch(() => undefined)
      else if (lower === "_rels/.rels") rootRels = await readMember(zip, entry).catch(() => undefined)
      else if (lower === "meta-inf/manifest.xml") manifest = await readMember(zip, entry).catch(() => undefined)
      if (++count >= ZIP_INSPECT_ENTRIES) break
    }
  } catch {
    if (names.size === 0) return undefined
  } finally {
    zip.close()
  }
  return {
    names,
    mimetype: mimetype?.trim().toLowerCase(),
    contentTypes: contentTypes?.toLowerCase(),
    rootRels: rootRels?.toLowerCase(),
    manifest
  }
}

const ODF_TYPES: ReadonlyArray<readonly [RegExp, FormatName]> = [
  [/^application\/vnd\.oasis\.opendocument\.text(-template|-master)?$/, "odt"],
  [/^application\/vnd\.oasis\.opendocument\.spreadsheet(-template)?$/, "ods"],
  [/^application\/vnd\.oasis\.opendocument\.presentation(-template)?$/, "odp"],
  [/^application\/epub\+zip$/, "epub"]
]

/** Main-part content types of the OOXML and XPS packages (in lower case). */
const OPC_TYPES: ReadonlyArray<readonly [RegExp, FormatName]> = [
  [
    /wordprocessingml\.(document|template)\.main\+xml|ms-word\.(document|template)\.macroenabled(template)?\.main\+xml/,
    "docx"
  ],
  [
    /spreadsheetml\.(sheet|template)\.main\+xml|ms-excel\.(sheet|template)\.macroenabled(template)?\.main\+xml|ms-excel\.sheet\.binary\.macroenabled\.main/,
    "xlsx"
  ],
  [
    /presentationml\.(presentation|slideshow|template)\.main\+xml|ms-powerpoint\.(presentation|slideshow|template)\.macroenabled(template)?\.main\+xml/,
    "pptx"
  ],
  [/vnd\.ms-package\.xps-fixeddocumentsequence\+xml/, "xps"],
  [/openxps|\/oxps/, "oxps"]
]

const classifyZip = (pkg: ZipPackage): DetectedFormat | undefined => {
  if (pkg.mimetype !== undefined) {
    for (const [pattern, format] of ODF_TYPES) {
      if (!pattern.test(pkg.mimetype)) continue
      // A password-protected OpenDocument file lists how each member is encrypted.
      if (format !== "epub" && pkg.manifest?.includes("encryption-data")) {
        return { ...FORMATS[format], kind: "protected" }
      }
      return FORMATS[format]
    }
    // Another OpenDocument package (drawing, formula, ...): a document, not an archive, and not one we render.
    if (pkg.mimetype.startsWith("application/vnd.oasis.opendocument.")) return undefined
  }
  if (pkg.contentTypes !== undefined) {
    for (const [pattern, format] of OPC_TYPES) if (pattern.test(pkg.contentTypes)) return FORMATS[format]
  }
  if (pkg.rootRels !== undefined) {
    if (pkg.rootRels.includes("schemas.openxps.org")) return FORMATS.oxps
    if (pkg.rootRels.includes("/xps/2005/06/fixedrepresentation")) return FORMATS.xps
  }
  // Members that are encrypted or compressed oddly still show their names.
  if (pkg.names.has("word/document.xml")) return FORMATS.docx
  if (pkg.names.has("xl/workbook.xml") || pkg.names.has("xl/workbook.bin")) return FORMATS.xlsx
  if (pkg.names.has("ppt/presentation.xml")) return FORMATS.pptx
  if ([...pkg.names].some((name) => name.endsWith(".fdseq"))) return FORMATS.xps
  if (pkg.names.has("meta-inf/container.xml") && [...pkg.names].some((name) => name.endsWith(".opf"))) {
    return FORMATS.epub
  }
  // Another Office Open XML document (Visio, ...): not an archive of files either.
  if (
    pkg.contentTypes !== undefined && /officedocument\.[a-z]+ml\.[a-z.]+\.main\+xml|ms-visio\./.test(pkg.contentTypes)
  ) return undefined
  return FORMATS.zip
}

/** file-type's names for the packages it recognises by their local headers. */
const FILE_TYPE_PACKAGES: Readonly<Record<string, FormatName>> = {
  docx: "docx",
  docm: "docx",
  dotx: "docx",
  dotm: "docx",
  xlsx: "xlsx",
  xlsm: "xlsx",
  xltx: "xlsx",
  xltm: "xlsx",
  pptx: "pptx",
  pptm: "pptx",
  potx: "pptx",
  potm: "pptx",
  ppsx: "pptx",
  ppsm: "pptx",
  odt: "odt",
  ott: "odt",
  ods: "ods",
  ots: "ods",
  odp: "odp",
  otp: "odp",
  epub: "epub"
}

const detectZip = async (path: string): Promise<DetectedFormat | undefined> => {
  const pkg = await readZipPackage(path)
  if (pkg) return classifyZip(pkg)
  // No readable central directory: a damaged file. If its local headers still say which document
  // it is, the converter may repair it; otherwise it is a damaged archive, refused on expansion.
  const byLocalHeaders = await fileTypeFromFile(path).catch(() => undefined)
  const format = byLocalHeaders && FILE_TYPE_PACKAGES[byLocalHeaders.ext]
  return format ? FORMATS[format] : FORMATS.zip
}

// ---------------------------------------------------------------------------------------------
// Compound File Binary (OLE2): legacy Office, Outlook messages, encrypted OOXML
//
// Read here rather than with the `cfb` package, which reads and copies the whole file on the event
// loop (a 200 MB .doc: 1.5 s and 520 MB) and follows sector chains without a loop check, so that a
// crafted file of a few kilobytes exhausts memory (SheetJS/js-cfb#11, open since 2020).

const CFB_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]
/** Sector numbers at and above this are markers (end of chain, free, FAT, DIFAT), not sectors. */
const MAX_REGULAR_SECTOR = 0xfffffffa
const NO_STREAM = 0xffffffff
const CFB_MAX_DIRECTORY_SECTORS = 16_384
const MINI_STREAM_CUTOFF = 4096

interface CfbEntry {
  readonly name: string
  readonly type: number
  readonly left: number
  readonly right: number
  readonly child: number
  readonly start: number
  readonly size: number
}

const readAt = async (handle: FileHandle, position: number, length: number): Promise<Buffer> => {
  const buffer = Buffer.alloc(length)
  const { bytesRead } = await handle.read(buffer, 0, length, position)
  return bytesRead === length ? buffer : buffer.subarray(0, bytesRead)
}

/**
 * The entries directly under the root storage of a compound file, by lower-case name, with a reader
 * for the first bytes of a stream. Only the header, the FAT sectors on the directory's chain and the
 * directory itself are read, so a large file costs a few kilobytes. `undefined` if malformed.
 */
const readCfbRoot = async (handle: FileHandle) => {
  const header = await readAt(handle, 0, 512)
  if (header.length < 512) return undefined
  const sectorShift = header.readUInt16LE(0x1e)
  if (sectorShift !== 9 && sectorShift !== 12) return undefined
  const sectorSize = 1 << sectorShift
  const perSector = sectorSize / 4
  const fatSectorCount = header.readUInt32LE(0x2c)
  const readSector = (sector: number) => readAt(handle, (sector + 1) * sectorSize, sectorSize)

  const fatSectors: Array<number> = []
  for (let i = 0; i < 109 && fatSectors.length < fatSectorCount; i++) fatSectors.push(header.readUInt32LE(0x4c + 4 * i))
  let difat = header.readUInt32LE(0x44)
  for (let guard = 0; fatSectors.length < fatSectorCount && difat < MAX_REGULAR_SECTOR && guard < 1 << 16; guard++) {
    const block = await readSector(difat)
    if (block.length < sectorSize) break
    for (let i = 0; i < perSector - 1 && fatSectors.length < fatSectorCount; i++) {
      fatSectors.push(block.readUInt32LE(4 * i))
    }
    difat = block.readUInt32LE(4 * (perSector - 1))
  }
  const fatCache = new Map<number, Buffer>()
  const nextSector = async (sector: number): Promise<number> => {
    const index = Math.floor(sector / perSector)
    const location = fatSectors[index]
    if (location === undefined || location >= MAX_REGULAR_SECTOR) return NO_STREAM
    let block = fatCache.get(index)
    if (!block) {
      block = await readSector(location)
      fatCache.set(index, block)
    }
    const at = (sector % perSector) * 4
    return at + 4 <= block.length ? block.readUInt32LE(at) : NO_STREAM
  }

  const entries: Array<CfbEntry> = []
  let sector = header.readUInt32LE(0x30)
  for (let count = 0; sector < MAX_REGULAR_SECTOR && count < CFB_MAX_DIRECTORY_SECTORS; count++) {
    const block = await readSector(sector)
    for (let at = 0; at + 128 <= block.length; at += 128) {
      const nameBytes = Math.min(Math.max(block.readUInt16LE(at + 0x40) - 2, 0), 62)
      entries.push({
        name: block.subarray(at, at + nameBytes).toString("utf16le"),
        type: block[at + 0x42]!,
        left: block.readUInt32LE(at + 0x44),
        right: block.readUInt32LE(at + 0x48),
        child: block.readUInt32LE(at + 0x4c),
        start: block.readUInt32LE(at + 0x74),
        size: block.readUInt32LE(at + 0x78)
      })
    }
    sector = await nextSector(sector)
  }
  const root = entries[0]
  if (root === undefined || root.type !== 5) return undefined

  // The root's children are a red-black tree of siblings under its `child`.
  const children = new Map<string, CfbEntry>()
  const visited = new Set<number>()
  const pending = [root.child]
  while (pending.length > 0) {
    const id = pending.pop()!
    if (id === NO_STREAM || id >= entries.length || visited.has(id)) continue
    visited.add(id)
    const entry = entries[id]!
    if (entry.type === 1 || entry.type === 2) children.set(entry.name.toLowerCase(), entry)
    pending.push(entry.left, entry.right)
  }

  /** The first sector's worth of a stream kept in regular sectors (small streams live in the mini stream: not read). */
  const streamHead = async (entry: CfbEntry): Promise<Buffer | undefined> =>
    entry.type === 2 && entry.size >= MINI_STREAM_CUTOFF && entry.start < MAX_REGULAR_SECTOR
      ? readSector(entry.start)
      : undefined

  return { children, streamHead }
}

const OOXML_EXTENSIONS: Readonly<Record<string, "docx" | "xlsx" | "pptx">> = {
  docx: "docx",
  docm: "docx",
  dotx: "docx",
  dotm: "docx",
  xlsx: "xlsx",
  xlsm: "xlsx",
  xltx: "xlsx",
  xltm: "xlsx",
  xlsb: "xlsx",
  pptx: "pptx",
  pptm: "pptx",
  potx: "pptx",
  potm: "pptx",
  ppsx: "pptx",
  ppsm: "pptx"
}

const detectCfb = async (handle: FileHandle, extension: string): Promise<DetectedFormat | undefined> => {
  const cfb = await readCfbRoot(handle).catch(() => undefined)
  if (!cfb) return undefined
  const has = (name: string) => cfb.children.has(name.toLowerCase())
  // An OOXML file encrypted with a password ([MS-OFFCRYPTO]): which one cannot be told without the key.
  if (has("EncryptionInfo") && has("EncryptedPackage")) return protectedAs(OOXML_EXTENSIONS[extension] ?? "office")
  if (has("__properties_version1.0") || [...cfb.children.keys()].some((name) => name.startsWith("__substg1.0_"))) {
    return FORMATS.msg
  }
  const word = cfb.children.get("worddocument")
  if (word) {
    // FibBase.fEncrypted: bit 0x0100 of the flags at offset 0x0A.
    const fib = await cfb.streamHead(word)
    return fib && fib.length > 0x0b && fib.readUInt16LE(0) === 0xa5ec && (fib[0x0b]! & 0x01) !== 0
      ? protectedAs("doc")
      : FORMATS.doc
  }
  const workbook = cfb.children.get("workbook") ?? cfb.children.get("book")
  if (workbook) {
    // BIFF: a FILEPASS record (0x002F), if any, comes right after the first BOF record.
    const biff = await cfb.streamHead(workbook)
    if (biff && biff.length >= 8) {
      const second = 4 + biff.readUInt16LE(2)
      if (second + 2 <= biff.length && biff.readUInt16LE(second) === 0x002f) return protectedAs("xls")
    }
    return FORMATS.xls
  }
  if (has("PowerPoint Document")) return has("EncryptedSummary") ? protectedAs("ppt") : FORMATS.ppt
  return undefined
}

// ---------------------------------------------------------------------------------------------

const detectFileAsync = async (path: string, nameHint: string | null): Promise<DetectedFormat | undefined> => {
  const handle = await open(path, "r")
  try {
    const size = (await handle.stat()).size
    if (size === 0) return undefined
    const sample = await readAt(handle, 0, Math.min(size, TEXT_SAMPLE_BYTES))
    const complete = sample.length === size
    const extension = extensionOf(nameHint)

    // PDF readers accept the header anywhere in the first 1024 bytes, so do we.
    if (sample.subarray(0, 1024).toString("latin1").includes("%PDF-")) return FORMATS.pdf
    // A byte order mark means text, whatever a signature check would make of its first bytes
    // (UTF-16LE's FF FE looks like an MPEG audio frame to file-type).
    if (
      startsWith(sample, [0xef, 0xbb, 0xbf]) || startsWith(sample, [0xff, 0xfe]) || startsWith(sample, [0xfe, 0xff]) ||
      startsWith(sample, [0x00, 0x00, 0xfe, 0xff])
    ) {
      return classifyText(sample, complete, extension)
    }
    if (startsWith(sample, [0x50, 0x4b, 0x03, 0x04]) || startsWith(sample, [0x50, 0x4b, 0x05, 0x06])) {
      return await detectZip(path)
    }
    if (startsWith(sample, CFB_SIGNATURE)) return await detectCfb(handle, extension)

    // From the file, not the sample: a TIFF's first directory may be anywhere in it.
    const byMagic = await fileTypeFromFile(path).catch(() => undefined)
    const image = byMagic && IMAGE_TYPES[byMagic.ext]
    if (image) return FORMATS[image]
    if (byMagic?.ext === "rtf") return FORMATS.rtf
    // The bare signatures the upload path has always accepted (file-type wants more of a damaged TIFF).
    const bySignature = detectFormat(sample)
    if (bySignature?.kind === "image") return bySignature
    // Anything else is text or nothing we render; text checks are strict enough to refuse binary
    // files, and file-type's weaker signatures (an "MZ" at the start) must not refuse a text file.
    return classifyText(sample, complete, extension)
  } finally {
    await handle.close()
  }
}

/**
 * What a stored file is, by its content, with `nameHint` (a file name) deciding only between
 * formats content cannot tell apart. `undefined` for empty, binary or unsupported files. A file
 * that cannot be opened at all is a defect: callers pass paths of files they have just stored.
 */
export const detectFile = (path: string, nameHint: string | null): Effect.Effect<DetectedFormat | undefined> =>
  Effect.promise(() => detectFileAsync(path, nameHint)).pipe(Effect.withSpan("FormatDetector.detectFile"))
