/**
 * The annotation files of POST /annotations/conversion and GET /documents/{id}/file/annotations:
 * XFDF and FDF read into the PdfAnnotation model and written back, as a user moving comments between
 * Acrobat, other viewers and the broker would see them: every type with every field survives both
 * formats and the crossing between them; files written by Acrobat and Apryse WebViewer read as the
 * annotations they show; hostile files (XXE, billion laughs, junk) are refused without reading,
 * expanding or fetching anything.
 *
 * Fixtures (test/broker/annotations/fixtures): all-subtypes.xfdf and all-subtypes.fdf hold the same
 * annotations, written by hand after the XFDF 3.0 specification and PDF 32000-1 12.7.8; the
 * real-world files say in their header comment where their content comes from.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { AnnotationFileInvalid } from "../../../src/services/broker/annotations/AnnotationFileInvalid.ts"
import { parseFdf, writeFdf } from "../../../src/services/broker/annotations/Fdf.ts"
import type { PdfAnnotation, PdfColor } from "../../../src/services/broker/annotations/PdfAnnotation.ts"
import { parseXfdf, writeXfdf } from "../../../src/services/broker/annotations/Xfdf.ts"

const fixture = (name: string): Uint8Array => readFileSync(new URL(`./fixtures/${name}`, import.meta.url))
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1")
const bytesOf = (value: string) => new TextEncoder().encode(value)

/** XFDF colours are bytes: #RRGGBB. */
const hex = (r: number, g: number, b: number): PdfColor => [r / 255, g / 255, b / 255]

/** The error a parse fails with (the test fails if it succeeds). */
const refusal = <A>(effect: Effect.Effect<A, AnnotationFileInvalid>) =>
  Effect.flip(effect).pipe(
    Effect.tap((error) =>
      Effect.sync(() => {
        expect(error).toBeInstanceOf(AnnotationFileInvalid)
        expect(error._tag).toBe("AnnotationFileInvalid")
      })
    )
  )

const D1 = "2024-03-01T09:15:30.000Z"
const D0 = "2024-03-01T09:00:00.000Z"
const ann = { author: "Ann Reviewer", modified: D1, created: D0 } as const

/** The annotations of all-subtypes.xfdf and all-subtypes.fdf: every type, every field it can carry. */
const ALL: ReadonlyArray<PdfAnnotation> = [
  {
    subtype: "Highlight",
    page: 0,
    name: "hl-1",
    rect: [72, 700, 300, 714],
    color: [1, 1, 0],
    opacity: 0.5,
    ...ann,
    subject: "Highlight",
    contents: "Check this figure",
    flags: 4,
    quadPoints: [72, 714, 300, 714, 72, 700, 300, 700],
    // The review state reply ("Completed set by Bob") is the state, not a reply.
    state: "Completed",
    replies: [
      { name: "hl-1-r1", author: "Bob", contents: "Agreed, will fix.", modified: "2024-03-02T08:00:00.000Z", created: "2024-03-02T08:00:00.000Z" },
      // In reply to hl-1-r1: kept in the thread of hl-1.
      { name: "hl-1-r2", author: "Ann Reviewer", contents: "Thanks", modified: "2024-03-02T09:00:00.000Z", created: "2024-03-02T09:00:00.000Z" }
    ]
  },
  {
    subtype: "Underline",
    page: 0,
    name: "ul-1",
    rect: [72, 650, 400, 690],
    color: [0.2, 0.4, 0.8],
    opacity: 0.8,
    ...ann,
    subject: "Underline",
    contents: "Wording (see (figure 2))",
    flags: 4 | 128,
    quadPoints: [72, 690, 400, 690, 72, 676, 400, 676, 72, 664, 250, 664, 72, 650, 250, 650]
  },
  {
    subtype: "StrikeOut",
    page: 0,
    name: "so-1",
    rect: [72, 600, 200, 614],
    color: [0.8, 0, 0],
    ...ann,
    subject: "Strikethrough",
    contents: "Delete",
    flags: 4 | 64,
    quadPoints: [72, 614, 200, 614, 72, 600, 200, 600]
  },
  {
    subtype: "Squiggly",
    page: 0,
    name: "sq-1",
    rect: [72, 560, 180, 574],
    color: [0.6, 0.8, 0.2],
    ...ann,
    subject: "Squiggly",
    flags: 4,
    quadPoints: [72, 574, 180, 574, 72, 560, 180, 560]
  },
  {
    subtype: "Text",
    page: 1,
    name: "note-1",
    rect: [500, 700, 520, 720],
    color: [1, 0.8, 0],
    opacity: 0.6,
    ...ann,
    subject: "Sticky Note",
    contents: "Line one\rLine two",
    flags: 4 | 8 | 16,
    iconName: "Comment",
    // Rejected on the 3rd, Accepted on the 4th (Review model); the Marked check mark does not count.
    state: "Accepted",
    replies: [{ name: "note-1-r1", author: "Zoë", contents: "Merci — déjà vu, 日本語 😀", modified: "2024-03-02T09:00:00.000Z", created: "2024-03-02T09:00:00.000Z" }]
  },
  {
    subtype: "FreeText",
    page: 1,
    name: "ft-1",
    rect: [100, 600, 300, 650],
    color: [1, 1, 0.8],
    lineWidth: 1,
    ...ann,
    subject: "Text Box",
    contents: "Typed text",
    flags: 4,
    fontSize: 14,
    fontColor: [0, 0, 1]
  },
  {
    subtype: "Square",
    page: 1,
    name: "sqr-1",
    rect: [50, 50, 150, 120],
    color: [0.8, 0.2, 0.2],
    interiorColor: [1, 0.6, 0.6],
    opacity: 0.4,
    lineWidth: 9,
    ...ann,
    subject: "Rectangle",
    flags: 4
  },
  {
    subtype: "Circle",
    page: 1,
    name: "c-1",
    rect: [200, 50, 300, 150],
    color: [0, 0, 1],
    interiorColor: [0.8, 0.8, 1],
    lineWidth: 2,
    ...ann,
    subject: "Oval",
    flags: 4
  },
  {
    subtype: "Line",
    page: 2,
    name: "l-1",
    rect: [95, 395, 205, 455],
    color: [0.8, 0, 0],
    interiorColor: [0.8, 0, 0],
    lineWidth: 3,
    ...ann,
    subject: "Arrow",
    contents: "Look here",
    flags: 4,
    vertices: [
      [100, 400],
      [200, 450]
    ]
  },
  {
    subtype: "Polygon",
    page: 2,
    name: "pg-1",
    rect: [295, 245, 405, 355],
    color: [0, 0.6, 0],
    interiorColor: [0.8, 1, 0.8],
    lineWidth: 1.5,
    ...ann,
    subject: "Polygon",
    flags: 4,
    vertices: [
      [300, 250],
      [400, 250],
      [350, 350],
      [300, 250]
    ]
  },
  {
    subtype: "PolyLine",
    page: 2,
    name: "pl-1",
    rect: [10, 10, 110, 60],
    color: [0.4, 0.4, 0.4],
    lineWidth: 0.5,
    ...ann,
    subject: "Polygonal Line",
    flags: 4,
    vertices: [
      [10, 10],
      [50, 60],
      [110, 20]
    ]
  },
  {
    subtype: "Ink",
    page: 2,
    name: "ink-1",
    rect: [50, 500, 160, 600],
    color: [0, 0, 1],
    opacity: 0.8,
    lineWidth: 2,
    ...ann,
    subject: "Pencil",
    flags: 4,
    inkList: [
      [
        [60, 510],
        [100, 590],
        [140, 520]
      ],
      [
        [150, 550],
        [155, 560]
      ]
    ]
  },
  {
    subtype: "Stamp",
    page: 3,
    name: "st-1",
    rect: [54.5, 671, 216.5, 718.5],
    color: [0.8, 0, 0],
    ...ann,
    subject: "Approved",
    contents: "Approved",
    flags: 4,
    iconName: "Approved"
  },
  {
    subtype: "Redact",
    page: 3,
    name: "rd-1",
    rect: [56.8, 654, 516.4, 698.8],
    color: [1, 0, 0],
    interiorColor: [0, 0, 0],
    lineWidth: 1.5,
    ...ann,
    subject: "Redact",
    contents: "Personal data",
    flags: 4,
    quadPoints: [56.8, 698.8, 516.4, 698.8, 56.8, 654, 516.4, 654],
    overlayText: "REDACTED",
    fontSize: 17.25,
    fontColor: [1, 0, 0]
  }
]

describe("every annotation type, both formats, both ways", () => {
  it.effect("reads every type with every field from XFDF", () =>
    Effect.gen(function* () {
      expect(yield* parseXfdf(fixture("all-subtypes.xfdf"))).toStrictEqual(ALL)
    })
  )

  it.effect("reads the same annotations from FDF (literal, octal, nested-parenthesis, hex and UTF-16 strings)", () =>
    Effect.gen(function* () {
      expect(yield* parseFdf(fixture("all-subtypes.fdf"))).toStrictEqual(ALL)
    })
  )

  it.effect("XFDF → model → XFDF → model gives the same model", () =>
    Effect.gen(function* () {
      const first = yield* parseXfdf(fixture("all-subtypes.xfdf"))
      const second = yield* parseXfdf(writeXfdf(first, { fileName: "report.pdf" }))
      expect(second).toStrictEqual(first)
      // and once more from the bytes a client would download
      expect(yield* parseXfdf(bytesOf(writeXfdf(second)))).toStrictEqual(first)
    })
  )

  it.effect("FDF → model → FDF → model gives the same model", () =>
    Effect.gen(function* () {
      const first = yield* parseFdf(fixture("all-subtypes.fdf"))
      const second = yield* parseFdf(writeFdf(first, { fileName: "report.pdf" }))
      expect(second).toStrictEqual(first)
    })
  )

  it.effect("XFDF → FDF → XFDF gives the same model", () =>
    Effect.gen(function* () {
      const fromXfdf = yield* parseXfdf(fixture("all-subtypes.xfdf"))
      const viaFdf = yield* parseFdf(writeFdf(fromXfdf))
      const back = yield* parseXfdf(writeXfdf(viaFdf))
      expect(viaFdf).toStrictEqual(fromXfdf)
      expect(back).toStrictEqual(fromXfdf)
    })
  )

  it.effect("FDF → XFDF → FDF keeps everything; colours only to the byte XFDF has room for", () =>
    Effect.gen(function* () {
      const odd: ReadonlyArray<PdfAnnotation> = [
        { subtype: "Square", page: 4, name: "odd", rect: [0.125, 1, 2.5, 3], color: [0.123, 0.456, 0.789], interiorColor: [0.5, 0.25, 1 / 3], opacity: 0.37 }
      ]
      const model = yield* parseFdf(writeFdf(odd))
      expect(model).toStrictEqual(odd)
      const [back] = yield* parseFdf(writeFdf(yield* parseXfdf(writeXfdf(model))))
      const { color, interiorColor, ...rest } = back ?? odd[0]!
      const { color: _c, interiorColor: _i, ...expected } = odd[0]!
      expect(rest).toStrictEqual(expected)
      odd[0]!.color!.forEach((component, i) => expect(color?.[i]).toBeCloseTo(component, 2))
      odd[0]!.interiorColor!.forEach((component, i) => expect(interiorColor?.[i]).toBeCloseTo(component, 2))
    })
  )

  it("writes XFDF as Acrobat imports it", () => {
    const xfdf = writeXfdf(ALL.slice(0, 1), { fileName: "report.pdf" })
    expect(xfdf.startsWith(`<?xml version="1.0" encoding="UTF-8"?>\n<xfdf xmlns="http://ns.adobe.com/xfdf/" xml:space="preserve">`)).toBe(true)
    expect(xfdf).toContain(`<highlight page="0" rect="72,700,300,714" color="#FFFF00" flags="print" name="hl-1" title="Ann Reviewer" subject="Highlight"`)
    expect(xfdf).toContain(`date="D:20240301091530Z" creationdate="D:20240301090000Z" opacity="0.5" coords="72,714,300,714,72,700,300,700"><contents>Check this figure</contents></highlight>`)
    // replies point at their parent by name; the review state is a hidden reply, as Acrobat records it
    expect(xfdf).toMatch(/<text [^>]*flags="print,nozoom,norotate" name="hl-1-r1" title="Bob"[^>]*icon="Comment" inreplyto="hl-1"><contents>Agreed, will fix.<\/contents><\/text>/)
    expect(xfdf).toMatch(/<text [^>]*flags="hidden,print,nozoom,norotate" name="hl-1-state"[^>]*inreplyto="hl-1" state="Completed" statemodel="Review"\/>/)
    expect(xfdf).toContain(`<f href="report.pdf"/>`)
  })

  it("writes FDF as PDF 32000-1 12.7.8 has it", () => {
    const fdf = latin1(writeFdf(ALL.slice(4, 6), { fileName: "report.pdf" }))
    expect(fdf.startsWith("%FDF-1.2\n")).toBe(true)
    expect(fdf).toMatch(/1 0 obj\n<<\n\/FDF <<\n\/Annots \[ 2 0 R 3 0 R 4 0 R 5 0 R \]\n\/F \(report\.pdf\)\n>>\n>>\nendobj/)
    expect(fdf).toMatch(/2 0 obj\n<<\n\/Type \/Annot\n\/Subtype \/Text\n\/Page 1\n\/Rect \[ 500 700 520 720 \]\n\/NM \(note-1\)/)
    expect(fdf).toContain("/Contents (Line one\\rLine two)")
    expect(fdf).toContain("/Name /Comment")
    // the reply and the state are Text annotations in reply to 2 0 R
    expect(fdf).toMatch(/3 0 obj\n<<[^]*\/IRT 2 0 R[^]*endobj/)
    expect(fdf).toMatch(/4 0 obj\n<<[^]*\/F 30\n[^]*\/IRT 2 0 R\n\/State \(Accepted\)\n\/StateModel \(Review\)\n>>/)
    expect(fdf).toContain("/DA (/Helv 14 Tf 0 0 1 rg)")
    expect(fdf).toContain("/BS <<\n/W 1\n>>")
    expect(fdf.endsWith("trailer\n<< /Root 1 0 R >>\n%%EOF\n")).toBe(true)
  })
})

describe("files written by Acrobat and other widely used tools", () => {
  const E52237 = hex(0xe5, 0x22, 0x37)

  it.effect("reads Acrobat DC's XFDF export", () =>
    Effect.gen(function* () {
      expect(yield* parseXfdf(fixture("acrobat-dc.xfdf"))).toStrictEqual([
        {
          subtype: "Square",
          page: 0,
          name: "f4873cca-4d0f-47fb-8be9-ded59e5dabaa",
          rect: [0.5, 1.5, 611.5, 791.5],
          color: E52237,
          interiorColor: hex(0xff, 0xaa, 0xbf),
          opacity: 0.494995,
          author: "tomo3",
          subject: "長方形",
          modified: "2021-12-19T10:16:24.000Z",
          created: "2021-12-19T09:57:15.000Z",
          flags: 4,
          lineWidth: 9
        },
        {
          subtype: "Text",
          page: 0,
          name: "65ba4fde-e993-45ab-8176-1f60177b948a",
          rect: [100, 76, 124, 100],
          color: hex(0xff, 0xd1, 0x00),
          iconName: "Comment",
          // only rich text in the file: its text, as the viewer shows it
          contents: "ノート",
          replies: [{ name: "d3a51b32-240c-444a-94a9-ac97ccb23471", contents: "リプライテキスト" }]
        },
        {
          subtype: "FreeText",
          page: 0,
          // no name in the file: named by its place in it
          name: "annotation-4",
          rect: [128.010803, 646.210144, 176.020813, 662.470154],
          lineWidth: 0,
          contents: "テキスト",
          // size from the appearance string, colour from the default style
          fontSize: 12,
          fontColor: [0, 0, 0]
        },
        {
          subtype: "Line",
          page: 0,
          name: "annotation-5",
          rect: [257.88913, 233.014526, 307.669464, 271.642761],
          color: E52237,
          vertices: [
            [263.38913, 266.142761],
            [302.989594, 238.514526]
          ]
        },
        {
          subtype: "Polygon",
          page: 0,
          name: "annotation-6",
          rect: [447.99826, 225.121338, 503.333771, 266.642761],
          color: E52237,
          vertices: [
            [308.515228, 262.458984],
            [370.218292, 231.146973],
            [258.784424, 153.787964],
            [308.515228, 262.458984]
          ]
        },
        {
          subtype: "Ink",
          page: 0,
          name: "annotation-7",
          rect: [120.564209, 336.055206, 198.08139, 345.422729],
          color: E52237,
          inkList: [
            [
              [121.564209, 339.818024],
              [122.485153, 341.659912],
              [124.327042, 344.422729],
              [197.08139, 337.055206]
            ]
          ]
        },
        { subtype: "Stamp", page: 0, name: "annotation-8", rect: [54.987381, 671.039063, 216.486893, 718.539551], color: [1, 0, 0], iconName: "SBApproved" }
      ])
    })
  )

  it.effect("reads Apryse WebViewer's XFDF export (vendor elements skipped, state reply folded in)", () =>
    Effect.gen(function* () {
      expect(yield* parseXfdf(fixture("apryse-webviewer.xfdf"))).toStrictEqual([
        {
          subtype: "Redact",
          page: 0,
          name: "d4cdfa05-5b67-94ac-6fc4-d63ba8cb650d",
          rect: [56.8, 654.046, 516.43, 698.794],
          color: [1, 0, 0],
          interiorColor: [0, 0, 0],
          author: "Thomas Winter",
          subject: "Redact",
          modified: "2022-02-25T20:57:42.000Z",
          created: "2022-02-25T20:57:39.000Z",
          flags: 4,
          lineWidth: 1.5,
          quadPoints: [
            74.8, 698.7940000000001, 516.43, 698.7940000000001, 74.8, 674.7460000000001, 516.43, 674.7460000000001, 56.8, 678.094, 289.54, 678.094,
            56.8, 654.046, 289.54, 654.046
          ],
          contents: "Lorem ipsum dolor sit amet, consectetur adipiscing\n        elit. Nunc ac faucibus odio.",
          fontSize: 17.25,
          fontColor: [1, 0, 0]
        },
        {
          subtype: "Text",
          page: 0,
          name: "32d38690-104f-fbaa-2fc0-70be1f5eb27d",
          rect: [126.91, 606.72, 157.91, 637.72],
          color: [1, 1, 0],
          author: "Guest",
          subject: "Note",
          modified: "2021-05-17T21:22:00.000Z",
          created: "2021-05-17T21:22:00.000Z",
          flags: 28,
          iconName: "Comment",
          contents: "Please check the totals",
          state: "Accepted",
          replies: [
            { name: "f2ca2ebd-adf3-1080-44a7-9cc17f62f5b6", author: "Dami Animashaun", contents: "rep 1", modified: "2022-03-04T17:48:00.000Z", created: "2022-03-04T17:48:00.000Z" }
          ]
        },
        {
          subtype: "Ink",
          page: 0,
          name: "ccc55d16-53fd-1711-a9dc-d1421e2c4ade",
          rect: [382.79, 377.34, 581.18, 487.82],
          color: [0, 0, 0],
          author: "1",
          subject: "Signature",
          modified: "2020-05-05T18:17:47.000Z",
          created: "2020-05-05T18:17:46.000Z",
          flags: 4,
          inkList: [
            [[578.76, 386.21]],
            [
              [581.18, 398.31],
              [581.18, 400.72],
              [573.12, 433.79],
              [523.12, 475.72],
              [461.02, 487.82],
              [389.25, 457.18],
              [382.79, 410.4],
              [405.37, 377.34]
            ]
          ]
        }
      ])
    })
  )

  it.effect("reads Acrobat's FDF export (popups skipped, reply and review state threaded)", () =>
    Effect.gen(function* () {
      expect(yield* parseFdf(fixture("acrobat-comments.fdf"))).toStrictEqual([
        {
          subtype: "Highlight",
          page: 0,
          name: "12345678-1234-1234-1234567890123456",
          rect: [36, 756, 180, 792],
          color: [1, 1, 0],
          contents: "Hello World!",
          modified: "2023-03-01T00:00:00.000Z",
          flags: 4,
          quadPoints: [36, 792, 180, 792, 36, 756, 180, 756]
        },
        {
          subtype: "Text",
          page: 1,
          name: "5c4e2d3a-9a0b-4f57-8d39-2b9ff1c0c7a1",
          rect: [420, 700, 444, 724],
          color: [1, 0.819611, 0],
          opacity: 1,
          author: "Jörg Müller",
          subject: "Sticky Note",
          contents: "First line\rSecond line",
          modified: "2024-01-15T08:35:44.000Z",
          created: "2024-01-15T08:30:12.000Z",
          flags: 28,
          iconName: "Comment",
          state: "Completed",
          replies: [
            { name: "8b2f1e5a-1d3c-4a2b-9e8f-7c6d5e4f3a2b", author: "Ana", contents: "Fixed in v2 ✓", modified: "2024-01-16T07:15:00.000Z", created: "2024-01-16T07:15:00.000Z" }
          ]
        },
        {
          subtype: "FreeText",
          page: 1,
          name: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
          rect: [72, 90.5, 230.25, 106.75],
          lineWidth: 0,
          author: "Jörg Müller",
          subject: "Typewritten Text",
          contents: "Approved as corrected",
          modified: "2024-01-15T08:40:10.000Z",
          created: "2024-01-15T08:40:01.000Z",
          flags: 4,
          fontSize: 12,
          fontColor: [0, 0, 1]
        }
      ])
    })
  )

  it.effect("takes the text of rich text when a file has no plain contents (FDF /RC)", () =>
    Effect.gen(function* () {
      const fdf = `%FDF-1.2
1 0 obj <</FDF <</Annots [2 0 R]>> >> endobj
2 0 obj <</Type/Annot/Subtype/Text/Page 0/Rect [10 10 30 30]/NM (rc)/RC (<?xml version="1.0"?><body xmlns="http://www.w3.org/1999/xhtml"><p dir="ltr">First <b>bold</b> line</p><p>Second<br/>third</p></body>)>> endobj
trailer <</Root 1 0 R>>
%%EOF`
      const [note] = yield* parseFdf(bytesOf(fdf))
      expect(note?.contents).toBe("First bold line\nSecond\nthird")
    })
  )
})

describe("threads", () => {
  const xfdf = (annots: string) => `<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>${annots}</annots></xfdf>`

  it.effect("keeps a reply whose parent is missing, and a group member, as annotations of their own", () =>
    Effect.gen(function* () {
      const annotations = yield* parseXfdf(
        xfdf(`<square page="0" rect="0,0,10,10" name="a"/>
          <text page="0" rect="1,1,2,2" name="orphan" inreplyto="nowhere"><contents>lost parent</contents></text>
          <circle page="0" rect="3,3,4,4" name="member" inreplyto="a" replyType="group"/>
          <text inreplyto="a"><contents>unnamed reply</contents></text>
          <text page="0" rect="1,1,2,2" name="stray-state" inreplyto="a-caret-not-kept" state="Accepted" statemodel="Review"/>`)
      )
      // the review state of an annotation that is not in the file is dropped, not shown as a note
      expect(annotations.map((annotation) => annotation.name)).toStrictEqual(["a", "orphan", "member"])
      expect(annotations[0]?.replies).toStrictEqual([{ name: "annotation-4", contents: "unnamed reply" }])
      expect(annotations[1]?.contents).toBe("lost parent")
    })
  )

  it.effect("threads a long chain of replies to replies in linear time", () =>
    Effect.gen(function* () {
      const chain = Array.from({ length: 50_000 }, (_, i) => `<text name="r${i + 1}" inreplyto="${i === 0 ? "a" : `r${i}`}"><contents>${i + 1}</contents></text>`).join("")
      const started = performance.now()
      const [parent] = yield* parseXfdf(xfdf(`<square page="0" rect="0,0,10,10" name="a"/>${chain}`))
      expect(performance.now() - started).toBeLessThan(2_000)
      expect(parent?.replies).toHaveLength(50_000)
      expect(parent?.replies?.at(-1)).toStrictEqual({ name: "r50000", contents: "50000" })
    })
  )

  it.effect("refuses replies that answer each other in a circle, and annotations without page or rectangle", () =>
    Effect.gen(function* () {
      yield* refusal(parseXfdf(xfdf(`<text page="0" rect="0,0,1,1" name="x" inreplyto="y"/><text page="0" rect="0,0,1,1" name="y" inreplyto="x"/>`)))
      const noPage = yield* refusal(parseXfdf(xfdf(`<square rect="0,0,10,10" name="a"/>`)))
      expect(noPage.message).toContain("no page")
      const noRect = yield* refusal(parseXfdf(xfdf(`<square page="0" name="a"/>`)))
      expect(noRect.message).toContain("no rectangle")
      yield* refusal(parseXfdf(xfdf(`<square page="-1" rect="0,0,10,10"/>`)))
      yield* refusal(parseXfdf(xfdf(`<highlight page="0" rect="0,0,10,10" coords="1,2,3"/>`)))
    })
  )
})

describe("hostile and broken files", () => {
  const passwd = existsSync("/etc/passwd") ? readFileSync("/etc/passwd", "utf8") : "root:x:0:0:root:/root:/bin/bash\n"
  const secretLines = passwd.split("\n").filter((line) => line.trim().length > 3)
  const leaksNothing = (value: unknown) => {
    const shown = JSON.stringify(value) + String(value)
    for (const line of secretLines) expect(shown).not.toContain(line)
    expect(shown).not.toContain("root:")
  }

  it.effect("refuses a DOCTYPE with an external entity, and the entity's file never shows", () =>
    Effect.gen(function* () {
      const xxe = `<?xml version="1.0"?>
<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>
<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots><text page="0" rect="0,0,10,10" name="n" title="&e;"><contents>&e;</contents></text></annots></xfdf>`
      for (const input of [xxe, bytesOf(xxe)]) {
        const error = yield* refusal(parseXfdf(input))
        expect(error.message).toMatch(/DOCTYPE/)
        leaksNothing(error)
      }
      // an entity that was never declared is not expanded either
      leaksNothing(
        yield* refusal(parseXfdf(`<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots><text page="0" rect="0,0,1,1"><contents>&e;</contents></text></annots></xfdf>`))
      )
    })
  )

  it.effect("fetches nothing: external DTDs and parameter entities are refused unread", () =>
    Effect.gen(function* () {
      const requests: Array<string> = []
      const server = createServer((request, response) => {
        requests.push(request.url ?? "")
        response.end(`<!ENTITY e "fetched">`)
      })
      yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)))
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/evil.dtd`
      const files = [
        `<?xml version="1.0"?><!DOCTYPE xfdf SYSTEM "${url}"><xfdf xmlns="http://ns.adobe.com/xfdf/"><annots/></xfdf>`,
        `<?xml version="1.0"?><!DOCTYPE xfdf [<!ENTITY % p SYSTEM "${url}"> %p;]><xfdf><annots/></xfdf>`,
        `<?xml version="1.0"?><!DOCTYPE xfdf PUBLIC "-//X//Y" "${url}"><xfdf/>`
      ]
      for (const file of files) {
        const error = yield* refusal(parseXfdf(file))
        expect(JSON.stringify(error)).not.toContain("fetched")
      }
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      yield* Effect.promise(() => new Promise((resolve) => server.close(resolve)))
      expect(requests).toStrictEqual([])
    })
  )

  it.effect("refuses a billion laughs at once", () =>
    Effect.gen(function* () {
      const levels = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join("\n")
      const bomb = `<?xml version="1.0"?>
<!DOCTYPE lolz [
<!ENTITY lol0 "lol">
${levels}
]>
<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots><text page="0" rect="0,0,1,1"><contents>&lol9;</contents></text></annots></xfdf>`
      const started = performance.now()
      yield* refusal(parseXfdf(bomb))
      expect(performance.now() - started).toBeLessThan(250)
      // the quadratic variant: one large entity used many times
      const quadratic = `<!DOCTYPE x [<!ENTITY a "${"a".repeat(50_000)}">]><xfdf><annots><text page="0" rect="0,0,1,1"><contents>${"&a;".repeat(50_000)}</contents></text></annots></xfdf>`
      const again = performance.now()
      yield* refusal(parseXfdf(quadratic))
      expect(performance.now() - again).toBeLessThan(250)
    })
  )

  it.effect("refuses what is not XML, or not XFDF", () =>
    Effect.gen(function* () {
      let seed = 42
      const junk = Uint8Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256)
      const inputs: Array<string | Uint8Array> = [
        junk,
        new Uint8Array(),
        "",
        "hello, world",
        `{"annots": [{"page": 0}]}`,
        fixture("all-subtypes.fdf"),
        Uint8Array.from([0x3c, 0x78, 0x66, 0x64, 0x66, 0x3e, 0xc3, 0x28, 0x3c, 0x2f, 0x78, 0x66, 0x64, 0x66, 0x3e]), // <xfdf>, invalid UTF-8, </xfdf>
        `<html><body><p>not an annotation file</p></body></html>`,
        `<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots><text page="0" rect="0,0,1,1">`,
        `<xfdf><annots></xfdf></annots>`,
        `<xfdf/><xfdf/>`,
        `<xfdf a=b/>`,
        `<xfdf><annots><square page="0" rect="0,0,1,1" page="1"/></annots></xfdf>`,
        `<xfdf><annots>a < b</annots></xfdf>`,
        `<xfdf>\u0001</xfdf>`,
        `<xfdf>&#0;</xfdf>`,
        `<xfdf><![CDATA[ never closed </xfdf>`,
        `<xfdf/><?xml version="1.0"?>`,
        text(fixture("all-subtypes.xfdf")).slice(0, 2000)
      ]
      for (const input of inputs) yield* refusal(parseXfdf(input))
    })
  )

  it.effect("refuses what is not FDF", () =>
    Effect.gen(function* () {
      const all = fixture("all-subtypes.fdf")
      const inputs: Array<Uint8Array> = [
        new Uint8Array(),
        bytesOf("hello, world"),
        fixture("all-subtypes.xfdf"),
        bytesOf("%PDF-1.7\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n"),
        bytesOf("%FDF-1.2\n"),
        bytesOf("%FDF-1.2\nthis is not PDF syntax at all\n%%EOF\n"),
        bytesOf("%FDF-1.2\n1 0 obj <</Fields []>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n"),
        bytesOf("%FDF-1.2\n1 0 obj <</FDF <</Annots 7>> >> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n"),
        all.subarray(0, Math.floor(all.length / 2)),
        Uint8Array.from({ length: 2048 }, (_, i) => (i * 7919) % 256)
      ]
      for (const input of inputs) yield* refusal(parseFdf(input))
    })
  )

  it.effect("refuses nesting deep enough to exhaust a recursive reader", () =>
    Effect.gen(function* () {
      const deepXml = `<xfdf><annots><text page="0" rect="0,0,1,1"><contents-richtext>${"<span>".repeat(100_000)}x${"</span>".repeat(100_000)}</contents-richtext></text></annots></xfdf>`
      expect((yield* refusal(parseXfdf(deepXml))).message).toContain("deep")
      const deepFdf = `%FDF-1.2\n1 0 obj <</FDF <</Annots [2 0 R]>> >> endobj\n2 0 obj <</Type/Annot/Subtype/Square/Page 0/Rect [0 0 1 1]/X ${"[".repeat(200_000)}${"]".repeat(200_000)}>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n`
      yield* refusal(parseFdf(bytesOf(deepFdf)))
    })
  )

  it.effect("refuses more than 100,000 annotations", () =>
    Effect.gen(function* () {
      const squares = (n: number) =>
        `<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>${`<square page="0" rect="0,0,1,1"/>`.repeat(n)}</annots></xfdf>`
      expect(yield* parseXfdf(squares(100_000))).toHaveLength(100_000)
      expect((yield* refusal(parseXfdf(squares(100_001)))).message).toContain("100000")
      const fdf = `%FDF-1.2\n1 0 obj <</FDF <</Annots [${"2 0 R ".repeat(100_001)}]>> >> endobj\n2 0 obj <</Type/Annot/Subtype/Square/Page 0/Rect [0 0 1 1]>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n`
      expect((yield* refusal(parseFdf(bytesOf(fdf)))).message).toContain("100000")
    }),
    30_000
  )
})

describe("text beyond ASCII", () => {
  const INTERNATIONAL: ReadonlyArray<PdfAnnotation> = [
    {
      subtype: "FreeText",
      page: 0,
      name: "texte-é-日本-😀",
      rect: [10, 20, 200, 80],
      author: "Zoë Ångström",
      subject: "日本語のテキスト",
      contents: "Café — naïve façade\n日本語の注釈\nemoji 😀👍🏽🇫🇷 and (parentheses) \\ backslash",
      fontSize: 11,
      fontColor: [0.2, 0.2, 0.2],
      replies: [{ name: "réponse-1", author: "José Núñez", contents: "D’accord 👌 — 了解しました", created: "2024-05-06T07:08:09.000Z" }]
    },
    { subtype: "Stamp", page: 1, name: "stamp-ü", rect: [0, 0, 100, 50], iconName: "Geprüft ✓", contents: "Geprüft" },
    { subtype: "Redact", page: 1, name: "r", rect: [0, 100, 100, 120], quadPoints: [0, 120, 100, 120, 0, 100, 100, 100], overlayText: "CONFIDENTIEL — 機密 🔒" }
  ]

  it.effect("é, 日本語 and emoji survive XFDF, as text and as UTF-8 bytes", () =>
    Effect.gen(function* () {
      const xfdf = writeXfdf(INTERNATIONAL, { fileName: "rapport-été.pdf" })
      expect(xfdf).toContain("日本語の注釈")
      expect(xfdf).toContain(`<f href="rapport-été.pdf"/>`)
      expect(yield* parseXfdf(xfdf)).toStrictEqual(INTERNATIONAL)
      expect(yield* parseXfdf(bytesOf(xfdf))).toStrictEqual(INTERNATIONAL)
    })
  )

  it.effect("é, 日本語 and emoji survive FDF, written as UTF-16BE with a BOM", () =>
    Effect.gen(function* () {
      const fdf = writeFdf(INTERNATIONAL, { fileName: "rapport-été.pdf" })
      const source = latin1(fdf)
      expect(source).toContain("/T <FEFF005A006F00EB")
      // apart from the binary comment of the header, an FDF written by the broker is 7-bit
      expect([...fdf.subarray(16)].every((byte) => byte < 0x80)).toBe(true)
      expect(yield* parseFdf(fdf)).toStrictEqual(INTERNATIONAL)
      expect(yield* parseXfdf(writeXfdf(yield* parseFdf(fdf)))).toStrictEqual(INTERNATIONAL)
    })
  )

  it.effect("reads XFDF in UTF-16 with a BOM and in the encoding its declaration names", () =>
    Effect.gen(function* () {
      const xfdf = `<?xml version="1.0" encoding="UTF-16"?><xfdf xmlns="http://ns.adobe.com/xfdf/"><annots><text page="0" rect="0,0,1,1" name="n" title="Zoë 日本"/></annots></xfdf>`
      const utf16 = Uint8Array.from([0xff, 0xfe, ...Buffer.from(xfdf, "utf16le")])
      expect((yield* parseXfdf(utf16))[0]?.author).toBe("Zoë 日本")
      const latin = Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?><xfdf><annots><text page="0" rect="0,0,1,1" title="Zoë"/></annots></xfdf>`, "latin1")
      expect((yield* parseXfdf(latin))[0]?.author).toBe("Zoë")
    })
  )
})
