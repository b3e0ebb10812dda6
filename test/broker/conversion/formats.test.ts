/**
 * Format detection by content: every office corpus file and the PDF corpus, with the file's own
 * name, a misleading name and no name; then the edges (empty, binary, a PDF called .docx, text in
 * odd encodings, encrypted legacy Office files) and the text decoding the converters rely on.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { zipSync } from "fflate"
import { randomBytes } from "node:crypto"
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { type DetectedFormat, detectFile } from "../../../src/services/broker/conversion/FormatDetector.ts"
import { decodeAs, decodeText, toUtf8Html } from "../../../src/services/broker/conversion/TextEncoding.ts"
import { CORPUS } from "../../support/backends.ts"
import { loopingCompoundFile } from "../../support/compound-files.ts"

const OFFICE = path.join(CORPUS, "office")
const PDF = path.join(CORPUS, "pdf")
const scratch = mkdtempSync(path.join(tmpdir(), "docstack-formats-"))

const write = (name: string, bytes: Uint8Array | string) => {
  const file = path.join(scratch, name)
  writeFileSync(file, bytes)
  return file
}

const detect = (file: string, hint: string | null) => detectFile(file, hint)

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"

/** Every file of the office corpus; a file added there without a line here fails the first test. */
const OFFICE_EXPECTED: Readonly<Record<string, DetectedFormat>> = {
  "2023-half-year-analyses-by-segment.xlsx": { format: "xlsx", mimeType: XLSX, kind: "office" },
  "AntarcticaTemps.ods": { format: "ods", mimeType: "application/vnd.oasis.opendocument.spreadsheet", kind: "office" },
  "Outlook2007_Calendar.xps": { format: "xps", mimeType: "application/vnd.ms-xpsdocument", kind: "mupdf" },
  "all.windows.zip": { format: "zip", mimeType: "application/zip", kind: "zip" },
  "book-war-and-peace-1225p.txt": { format: "text", mimeType: "text/plain", kind: "office" },
  "contains-pictures.docx": { format: "docx", mimeType: DOCX, kind: "office" },
  "docx-hdrftr.docx": { format: "docx", mimeType: DOCX, kind: "office" },
  "docx-tables.docx": { format: "docx", mimeType: DOCX, kind: "office" },
  "double-column-A.jpg": { format: "jpeg", mimeType: "image/jpeg", kind: "image" },
  "email-with-image.eml": { format: "eml", mimeType: "message/rfc822", kind: "email" },
  "eng_spa_mult.rtf": { format: "rtf", mimeType: "application/rtf", kind: "office" },
  "english-and-korean.png": { format: "png", mimeType: "image/png", kind: "image" },
  "example-10k.html": { format: "html", mimeType: "text/html", kind: "office" },
  "example-steelJIS-datasheet-utf-16.html": { format: "html", mimeType: "text/html", kind: "office" },
  "fake-doc-emphasized-text.doc": { format: "doc", mimeType: "application/msword", kind: "office" },
  "fake-email-attachment.eml": { format: "eml", mimeType: "message/rfc822", kind: "email" },
  "fake-email-attachment.msg": { format: "msg", mimeType: "application/vnd.ms-outlook", kind: "email" },
  "fake-email-with-cc-and-bcc.msg": { format: "msg", mimeType: "application/vnd.ms-outlook", kind: "email" },
  "fake-html-with-base64-image.html": { format: "html", mimeType: "text/html", kind: "office" },
  "fake-power-point-table.pptx": { format: "pptx", mimeType: PPTX, kind: "office" },
  "fake-power-point.ppt": { format: "ppt", mimeType: "application/vnd.ms-powerpoint", kind: "office" },
  "fake-text-utf-16-be.txt": { format: "text", mimeType: "text/plain", kind: "office" },
  "fake.odt": { format: "odt", mimeType: "application/vnd.oasis.opendocument.text", kind: "office" },
  "handbook-872p.docx": { format: "docx", mimeType: DOCX, kind: "office" },
  "jpn-vert.jpeg": { format: "jpeg", mimeType: "image/jpeg", kind: "image" },
  "layout-parser-paper-combined.tiff": { format: "tiff", mimeType: "image/tiff", kind: "image" },
  "nested.zip": { format: "zip", mimeType: "application/zip", kind: "zip" },
  "password_protected.xlsx": { format: "xlsx", mimeType: XLSX, kind: "protected" },
  "science-exploration-1p.pptx": { format: "pptx", mimeType: PPTX, kind: "office" },
  "tests-example.xls": { format: "xls", mimeType: "application/vnd.ms-excel", kind: "office" },
  "winter-sports.epub": { format: "epub", mimeType: "application/epub+zip", kind: "mupdf" }
}

/** What the files whose content alone does not decide become without their name. */
const WITHOUT_NAME: Readonly<Record<string, DetectedFormat>> = {
  // An HTML fragment (it starts with <div>): HTML only by its name.
  "fake-html-with-base64-image.html": { format: "text", mimeType: "text/plain", kind: "office" },
  // An encrypted OOXML package: which one only its name says.
  "password_protected.xlsx": { format: "office", mimeType: "application/octet-stream", kind: "protected" }
}

describe("detectFile on the office corpus", () => {
  it("has an expectation for every office file of the corpus manifest", () => {
    // The manifest, not the directory listing: files other suites may leave there are not corpus files.
    const manifest = readFileSync(path.join(CORPUS, "MANIFEST.tsv"), "utf8")
      .split("\n")
      .map((line) => line.split("\t")[0]!)
      .filter((file) => file.startsWith("office/"))
      .map((file) => file.slice("office/".length))
    expect(manifest.sort()).toEqual(Object.keys(OFFICE_EXPECTED).sort())
  })

  for (const [name, expected] of Object.entries(OFFICE_EXPECTED)) {
    it.effect(`${name} (its own name)`, () =>
      Effect.gen(function*() {
        expect(yield* detect(path.join(OFFICE, name), name)).toEqual(expected)
      }))

    it.effect(`${name} (no name, a misleading name)`, () =>
      Effect.gen(function*() {
        const file = path.join(OFFICE, name)
        const withoutName = WITHOUT_NAME[name] ?? expected
        expect(yield* detect(file, null)).toEqual(withoutName)
        // A name claiming something else changes nothing content decides.
        expect(yield* detect(file, "misleading.docx")).toEqual(
          withoutName.kind === "protected" ? { ...withoutName, format: "docx", mimeType: DOCX } : withoutName
        )
      }))
  }
})

describe("detectFile on the PDF corpus", () => {
  const pdfs = readdirSync(PDF).filter((name) => name.endsWith(".pdf"))

  it.effect(`all ${pdfs.length} PDFs are PDFs, by content, whatever their name`, () =>
    Effect.gen(function*() {
      expect(pdfs.length).toBeGreaterThan(20)
      for (const name of pdfs) {
        const file = path.join(PDF, name)
        const pdf = { format: "pdf", mimeType: "application/pdf", kind: "pdf" }
        expect(yield* detect(file, name), name).toEqual(pdf)
        expect(yield* detect(file, null), name).toEqual(pdf)
        expect(yield* detect(file, "report.docx"), name).toEqual(pdf)
      }
    }))
})

describe("detectFile on the edges", () => {
  it.effect("an empty file and random bytes are nothing", () =>
    Effect.gen(function*() {
      expect(yield* detect(write("empty.txt", new Uint8Array()), "empty.txt")).toBeUndefined()
      expect(yield* detect(write("random.bin", randomBytes(64 * 1024)), null)).toBeUndefined()
      expect(yield* detect(write("random.txt", randomBytes(4096)), "random.txt")).toBeUndefined()
      // Text with a NUL in it is not text.
      expect(yield* detect(write("nul.txt", "hello\u0000world"), "nul.txt")).toBeUndefined()
    }))

  it.effect("a PDF named .docx is a PDF; a PNG named .txt is a PNG", () =>
    Effect.gen(function*() {
      const pdf = path.join(scratch, "report.docx")
      copyFileSync(path.join(PDF, "basicapi.pdf"), pdf)
      expect((yield* detect(pdf, "report.docx"))?.format).toBe("pdf")
      const png = path.join(scratch, "notes.txt")
      copyFileSync(path.join(OFFICE, "english-and-korean.png"), png)
      expect((yield* detect(png, "notes.txt"))?.format).toBe("png")
    }))

  it.effect("the name decides only between text formats: CSV, HTML fragment, plain text", () =>
    Effect.gen(function*() {
      const csv = write("table", "name,amount\nalpha,1\nbeta,2\n")
      expect((yield* detect(csv, "table.csv"))?.format).toBe("csv")
      expect((yield* detect(csv, "table.txt"))?.format).toBe("text")
      expect((yield* detect(csv, null))?.format).toBe("text")
      const fragment = write("fragment", "<p>Hello <b>there</b></p>\n")
      expect((yield* detect(fragment, "page.htm"))?.format).toBe("html")
      expect((yield* detect(fragment, null))?.format).toBe("text")
      // Content that says HTML is HTML whatever the name.
      const page = write("page", "\uFEFF  <!-- generated -->\n<!DOCTYPE html><html><body>x</body></html>")
      expect((yield* detect(page, "page.txt"))?.format).toBe("html")
      expect((yield* detect(write("body", "<body><p>x</p></body>"), null))?.format).toBe("html")
      // <header> is not <head>.
      expect((yield* detect(write("header", "<header>x</header>"), null))?.format).toBe("text")
    }))

  it.effect("RFC 822 headers make an email; a memo with one header line does not", () =>
    Effect.gen(function*() {
      const mail = write("mail", "From: a@example.com\r\nTo: b@example.com\r\nSubject: Hi\r\n\r\nHello\r\n")
      expect((yield* detect(mail, null))?.format).toBe("eml")
      const received = write("received", "Received: from x by y; Mon, 1 Jan 2024 00:00:00 +0000\nX-Other: 1\n\nbody\n")
      expect((yield* detect(received, "note.txt"))?.format).toBe("eml")
      const memo = write("memo", "Subject: shopping\n\neggs, milk\n")
      expect((yield* detect(memo, null))?.format).toBe("text")
      expect((yield* detect(memo, "memo.eml"))?.format).toBe("eml")
      const prose = write("prose", "Dear Bob,\nFrom: me\n\n")
      expect((yield* detect(prose, null))?.format).toBe("text")
    }))

  it.effect("text in UTF-16 (with and without BOM), UTF-32 and windows-1252 is text", () =>
    Effect.gen(function*() {
      const text = "Grüße, 東京\nsecond line\n"
      const utf16le = Buffer.from(text, "utf16le")
      const utf16be = Buffer.from(utf16le).swap16()
      expect((yield* detect(write("le-bom.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le])), null))?.format)
        .toBe("text")
      expect((yield* detect(write("be-bom.txt", Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be])), null))?.format)
        .toBe("text")
      expect((yield* detect(write("le.txt", Buffer.from("plain ASCII text in UTF-16", "utf16le")), null))?.format).toBe(
        "text"
      )
      const utf32 = Buffer.alloc(4 * 3)
      ;[0xfeff, 0x48, 0x1f600].forEach((cp, i) => utf32.writeUInt32LE(cp, 4 * i))
      expect((yield* detect(write("utf32.txt", utf32), null))?.format).toBe("text")
      expect(
        (yield* detect(write("cp1252.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x71, 0x94, 0x0a])), null))
          ?.format
      ).toBe("text")
    }))

  it.effect("ZIP packages by what they hold: OOXML by [Content_Types].xml, ODF by mimetype, else an archive", () =>
    Effect.gen(function*() {
      const enc = (s: string) => new TextEncoder().encode(s)
      const docx = write(
        "fake.bin",
        zipSync({
          "[Content_Types].xml": enc(
            `<Types><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`
          ),
          "word/document.xml": enc("<w:document/>")
        })
      )
      expect((yield* detect(docx, "fake.zip"))?.format).toBe("docx")
      const odp = write(
        "slides.bin",
        zipSync({ mimetype: enc("application/vnd.oasis.opendocument.presentation"), "content.xml": enc("<x/>") })
      )
      expect((yield* detect(odp, null))?.format).toBe("odp")
      const lockedOdp = write(
        "locked.bin",
        zipSync({
          mimetype: enc("application/vnd.oasis.opendocument.presentation"),
          "META-INF/manifest.xml": enc(
            `<manifest:manifest><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>`
          ),
          "content.xml": randomBytes(64)
        })
      )
      expect(yield* detect(lockedOdp, null)).toEqual({
        format: "odp",
        mimeType: "application/vnd.oasis.opendocument.presentation",
        kind: "protected"
      })
      const drawing = write(
        "drawing.bin",
        zipSync({ mimetype: enc("application/vnd.oasis.opendocument.graphics"), "content.xml": enc("<x/>") })
      )
      expect(yield* detect(drawing, null)).toBeUndefined()
      const archive = write(
        "archive.docx",
        zipSync({ "notes.txt": enc("hello"), "word/readme.txt": enc("not a document") })
      )
      expect(yield* detect(archive, "archive.docx")).toEqual({
        format: "zip",
        mimeType: "application/zip",
        kind: "zip"
      })
    }))

  it.effect("encrypted legacy Word and Excel files are protected", () =>
    Effect.gen(function*() {
      // fEncrypted in the Word FIB: set the bit in a copy of a real .doc.
      const doc = Buffer.from(readFileSync(path.join(OFFICE, "fake-doc-emphasized-text.doc")))
      const fib = findSectorStart(doc, (at) => doc.readUInt16LE(at) === 0xa5ec)
      doc[fib + 0x0b] = doc[fib + 0x0b]! | 0x01
      expect(yield* detect(write("locked.doc", doc), "locked.doc")).toEqual({
        format: "doc",
        mimeType: "application/msword",
        kind: "protected"
      })
      // A FILEPASS record right after the workbook's BOF.
      const xls = Buffer.from(readFileSync(path.join(OFFICE, "tests-example.xls")))
      const bof = findSectorStart(xls, (at) => xls.readUInt16LE(at) === 0x0809 && xls.readUInt16LE(at + 4) === 0x0600)
      xls.writeUInt16LE(0x002f, bof + 4 + xls.readUInt16LE(bof + 2))
      expect(yield* detect(write("locked.xls", xls), null)).toEqual({
        format: "xls",
        mimeType: "application/vnd.ms-excel",
        kind: "protected"
      })
    }))

  it.effect("a compound file whose sector chains loop is still answered, from the few sectors it needs", () =>
    Effect.gen(function*() {
      const file = loopingCompoundFile("WordDocument")
      expect(yield* detect(write("looping.doc", file), null)).toEqual({
        format: "doc",
        mimeType: "application/msword",
        kind: "office"
      })
    }))
})

/** The first 512-byte sector of a compound file (after its header) whose start passes `test`. */
const findSectorStart = (bytes: Buffer, test: (at: number) => boolean) => {
  for (let at = 512; at + 512 <= bytes.length; at += 512) if (test(at)) return at
  throw new Error("sector not found")
}

describe("text decoding", () => {
  it("UTF-16BE without BOM decodes to the right string", () => {
    const bytes = readFileSync(path.join(OFFICE, "fake-text-utf-16-be.txt"))
    const { text, encoding } = decodeText(bytes)
    expect(encoding).toBe("utf-16be")
    expect(text).toBe(Buffer.from(bytes).swap16().toString("utf16le"))
    expect(text.startsWith("This is a test document to use for unit tests.")).toBe(true)
    expect(text).not.toMatch(/\u0000/)
  })

  it("byte order marks, UTF-8 and windows-1252", () => {
    expect(decodeText(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0xc3, 0xa9]))).toEqual({ text: "hé", encoding: "utf-8" })
    expect(decodeText(Buffer.from([0xff, 0xfe, 0x68, 0x00, 0xe9, 0x00]))).toEqual({ text: "hé", encoding: "utf-16le" })
    expect(decodeText(Buffer.from([0xfe, 0xff, 0x00, 0x68, 0x00, 0xe9]))).toEqual({ text: "hé", encoding: "utf-16be" })
    expect(decodeText(Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x00, 0xf6, 0x01, 0x00]))).toEqual({
      text: "😀",
      encoding: "utf-32le"
    })
    expect(decodeText(Buffer.from([0x00, 0x00, 0xfe, 0xff, 0x00, 0x01, 0xf6, 0x00]))).toEqual({
      text: "😀",
      encoding: "utf-32be"
    })
    expect(decodeText(Buffer.from("Grüße 東京", "utf8"))).toEqual({ text: "Grüße 東京", encoding: "utf-8" })
    expect(decodeText(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]))).toEqual({
      text: "café €",
      encoding: "windows-1252"
    })
  })

  it("windows-1252 bytes 0x80–0x9F are its characters (WHATWG), not the C1 controls of Latin-1", () => {
    const high = Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i)
    // The five bytes windows-1252 leaves undefined stay C1 controls, so that looksLikeText can refuse them.
    expect(decodeAs(high, "windows-1252")).toBe(
      "\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F" +
        "\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178"
    )
    expect(decodeAs(Buffer.from([0x93, 0x71, 0x94]), "latin1")).toBe("\u201Cq\u201D")
  })

  it("toUtf8Html: a UTF-16 page that claims utf-8 becomes UTF-8 that says so", () => {
    const html = toUtf8Html(readFileSync(path.join(OFFICE, "example-steelJIS-datasheet-utf-16.html")))
    expect(html).not.toMatch(/\u0000/)
    expect(html).toContain("SNB22-3 - SteelJIS - Datasheet")
    expect(html.match(/<meta\b[^>]*charset/gi)?.length).toBe(2) // the two declarations put in, nothing else
    expect(html).toMatch(/<head><meta charset="utf-8">/)
  })

  it("toUtf8Html honours <meta charset> and the XML declaration, and inserts a declaration where there is none", () => {
    // "Привет" in windows-1251
    const cyrillic = Buffer.concat([
      Buffer.from(
        `<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251"><title>t</title></head><body>`
      ),
      Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]),
      Buffer.from("</body></html>")
    ])
    const html = toUtf8Html(cyrillic)
    expect(html).toContain("<body>Привет</body>")
    expect(html).not.toContain("windows-1251")
    expect(html).toContain(`<meta charset="utf-8">`)

    const xhtml = toUtf8Html(Buffer.concat([
      Buffer.from(`<?xml version="1.0" encoding="iso-8859-1"?><html><body>`),
      Buffer.from([0x63, 0x61, 0x66, 0xe9]),
      Buffer.from("</body></html>")
    ]))
    expect(xhtml).toContain(`encoding="utf-8"`)
    expect(xhtml).toContain("café")
    expect(xhtml).toMatch(/<html><meta charset="utf-8">/)

    const fragment = toUtf8Html(Buffer.from("<p>naïve</p>", "utf8"))
    expect(fragment.startsWith(`<meta charset="utf-8">`)).toBe(true)
    expect(fragment).toContain("<p>naïve</p>")
    // A BOM beats a (wrong) declaration.
    const bom = toUtf8Html(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`<meta charset="shift_jis"><p>é</p>`, "utf8")])
    )
    expect(bom).toContain("<p>é</p>")
    expect(bom).not.toContain("shift_jis")
  })
})

describe("legacy encodings", () => {
  // Short sentences as the encoders of their languages write them (bytes from Python's codecs).
  const samples: ReadonlyArray<readonly [string, string, string]> = [
    [
      "shift_jis",
      "日本語のテキストです。これはテストの文書です。東京都",
      "93fa967b8cea82cc8365834c8358836782c582b7814282b182ea82cd83658358836782cc95b68f9182c582b78142938c8b9e9373"
    ],
    [
      "euc-jp",
      "日本語のテキストです。これはテストの文書です。東京都",
      "c6fccbdcb8eca4cea5c6a5ada5b9a5c8a4c7a4b9a1a3a4b3a4eca4cfa5c6a5b9a5c8a4cecab8bdf1a4c7a4b9a1a3c5ecb5fec5d4"
    ],
    [
      "gb18030",
      "这是一个中文文本文件，用于测试编码检测。北京",
      "d5e2cac7d2bbb8f6d6d0cec4cec4b1becec4bcfea3acd3c3d3dab2e2cad4b1e0c2ebbcecb2e2a1a3b1b1bea9"
    ],
    [
      "big5",
      "這是一個中文文本文件，用於測試編碼檢測。台北",
      "b36fac4fa440add3a4a4a4e5a4e5a5bba4e5a5f3a141a5cea9f3b4fab8d5bd73bd58c0cbb4faa143a578a55f"
    ],
    [
      "koi8-r",
      "Привет мир, это проверка кодировки текста для документа",
      "f0d2c9d7c5d420cdc9d22c20dcd4cf20d0d2cfd7c5d2cbc120cbcfc4c9d2cfd7cbc920d4c5cbd3d4c120c4ccd120c4cfcbd5cdc5ced4c1"
    ],
    [
      "windows-1251",
      "Привет мир, это проверка кодировки текста для документа",
      "cff0e8e2e5f220ece8f02c20fdf2ee20eff0eee2e5f0eae020eaeee4e8f0eee2eae820f2e5eaf1f2e020e4ebff20e4eeeaf3ece5edf2e0"
    ]
  ]
  for (const [encoding, text, hex] of samples) {
    it.effect(`${encoding} text is recognised as text and decoded`, () =>
      Effect.gen(function*() {
        const bytes = Buffer.from(hex, "hex")
        expect(decodeText(bytes).text).toBe(text)
        const dir = mkdtempSync(path.join(tmpdir(), "docstack-enc-"))
        writeFileSync(path.join(dir, "note"), bytes)
        expect((yield* detectFile(path.join(dir, "note"), "note.txt"))?.format).toBe("text")
        // The same bytes in an HTML page that names its charset.
        const html = Buffer.concat([
          Buffer.from(`<html><head><meta charset="${encoding}"></head><body><p>`),
          bytes,
          Buffer.from("</p></body></html>")
        ])
        writeFileSync(path.join(dir, "page"), html)
        expect((yield* detectFile(path.join(dir, "page"), "page.html"))?.format).toBe("html")
        expect(toUtf8Html(html)).toContain(text)
      }))
  }

  it("Western text that is not UTF-8 stays windows-1252", () => {
    expect(decodeText(Buffer.from("Caf\xe9 cr\xe8me br\xfbl\xe9e \x80 5", "latin1"))).toEqual({
      text: "Café crème brûlée € 5",
      encoding: "windows-1252"
    })
  })
})
