/**
 * The annotation files of POST /annotations/conversion and GET /documents/{id}/file/annotations:
 * XFDF and FDF read into the PdfAnnotation model and written back, as a user moving comments between
 * Acrobat, other viewers and the broker would see them: every type with every field survives both
 * formats and the crossing between them; files written by Acrobat and Apryse WebViewer read as the
 * annotations they show. Hostile files: hostile-annotation-files.test.ts.
 *
 * Fixtures (test/broker/annotations/fixtures): all-subtypes.xfdf and all-subtypes.fdf hold the same
 * annotations (annotation-files-support.ts); the real-world files say in their header comment where
 * their content comes from.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseFdf, writeFdf } from "../../../src/services/broker/annotations/Fdf.ts"
import type { PdfAnnotation } from "../../../src/services/broker/annotations/PdfAnnotation.ts"
import { parseXfdf, writeXfdf } from "../../../src/services/broker/annotations/Xfdf.ts"
import { ALL, bytesOf, fixture, hex, latin1 } from "./annotation-files-support.ts"

describe("every annotation type, both formats, both ways", () => {
  it.effect("reads every type with every field from XFDF", () =>
    Effect.gen(function*() {
      expect(yield* parseXfdf(fixture("all-subtypes.xfdf"))).toStrictEqual(ALL)
    }))

  it.effect("reads the same annotations from FDF (literal, octal, nested-parenthesis, hex and UTF-16 strings)", () =>
    Effect.gen(function*() {
      expect(yield* parseFdf(fixture("all-subtypes.fdf"))).toStrictEqual(ALL)
    }))

  it.effect("XFDF → model → XFDF → model gives the same model", () =>
    Effect.gen(function*() {
      const first = yield* parseXfdf(fixture("all-subtypes.xfdf"))
      const second = yield* parseXfdf(writeXfdf(first, { fileName: "report.pdf" }))
      expect(second).toStrictEqual(first)
      // and once more from the bytes a client would download
      expect(yield* parseXfdf(bytesOf(writeXfdf(second)))).toStrictEqual(first)
    }))

  it.effect("FDF → model → FDF → model gives the same model", () =>
    Effect.gen(function*() {
      const first = yield* parseFdf(fixture("all-subtypes.fdf"))
      const second = yield* parseFdf(writeFdf(first, { fileName: "report.pdf" }))
      expect(second).toStrictEqual(first)
    }))

  it.effect("XFDF → FDF → XFDF gives the same model", () =>
    Effect.gen(function*() {
      const fromXfdf = yield* parseXfdf(fixture("all-subtypes.xfdf"))
      const viaFdf = yield* parseFdf(writeFdf(fromXfdf))
      const back = yield* parseXfdf(writeXfdf(viaFdf))
      expect(viaFdf).toStrictEqual(fromXfdf)
      expect(back).toStrictEqual(fromXfdf)
    }))

  it.effect("FDF → XFDF → FDF keeps everything; colours only to the byte XFDF has room for", () =>
    Effect.gen(function*() {
      const odd: ReadonlyArray<PdfAnnotation> = [
        {
          subtype: "Square",
          page: 4,
          name: "odd",
          rect: [0.125, 1, 2.5, 3],
          color: [0.123, 0.456, 0.789],
          interiorColor: [0.5, 0.25, 1 / 3],
          opacity: 0.37
        }
      ]
      const model = yield* parseFdf(writeFdf(odd))
      expect(model).toStrictEqual(odd)
      const [back] = yield* parseFdf(writeFdf(yield* parseXfdf(writeXfdf(model))))
      const { color, interiorColor, ...rest } = back ?? odd[0]!
      const { color: _c, interiorColor: _i, ...expected } = odd[0]!
      expect(rest).toStrictEqual(expected)
      odd[0]!.color!.forEach((component, i) => expect(color?.[i]).toBeCloseTo(component, 2))
      odd[0]!.interiorColor!.forEach((component, i) => expect(interiorColor?.[i]).toBeCloseTo(component, 2))
    }))

  it("writes XFDF as Acrobat imports it", () => {
    const xfdf = writeXfdf(ALL.slice(0, 1), { fileName: "report.pdf" })
    expect(
      xfdf.startsWith(
        `<?xml version="1.0" encoding="UTF-8"?>\n<xfdf xmlns="http://ns.adobe.com/xfdf/" xml:space="preserve">`
      )
    ).toBe(true)
    expect(xfdf).toContain(
      `<highlight page="0" rect="72,700,300,714" color="#FFFF00" flags="print" name="hl-1" title="Ann Reviewer" subject="Highlight"`
    )
    expect(xfdf).toContain(
      `date="D:20240301091530Z" creationdate="D:20240301090000Z" opacity="0.5" coords="72,714,300,714,72,700,300,700"><contents>Check this figure</contents></highlight>`
    )
    // replies point at their parent by name; the review state is a hidden reply, as Acrobat records it
    expect(xfdf).toMatch(
      /<text [^>]*flags="print,nozoom,norotate" name="hl-1-r1" title="Bob"[^>]*icon="Comment" inreplyto="hl-1"><contents>Agreed, will fix.<\/contents><\/text>/
    )
    expect(xfdf).toMatch(
      /<text [^>]*flags="hidden,print,nozoom,norotate" name="hl-1-state"[^>]*inreplyto="hl-1" state="Completed" statemodel="Review"\/>/
    )
    expect(xfdf).toContain(`<f href="report.pdf"/>`)
  })

  it("writes FDF as PDF 32000-1 12.7.8 has it", () => {
    const fdf = latin1(writeFdf(ALL.slice(4, 6), { fileName: "report.pdf" }))
    expect(fdf.startsWith("%FDF-1.2\n")).toBe(true)
    expect(fdf).toMatch(
      /1 0 obj\n<<\n\/FDF <<\n\/Annots \[ 2 0 R 3 0 R 4 0 R 5 0 R \]\n\/F \(report\.pdf\)\n>>\n>>\nendobj/
    )
    expect(fdf).toMatch(
      /2 0 obj\n<<\n\/Type \/Annot\n\/Subtype \/Text\n\/Page 1\n\/Rect \[ 500 700 520 720 \]\n\/NM \(note-1\)/
    )
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
    Effect.gen(function*() {
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
          ],
          lineEndings: ["None", "OpenArrow"]
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
        {
          subtype: "Stamp",
          page: 0,
          name: "annotation-8",
          rect: [54.987381, 671.039063, 216.486893, 718.539551],
          color: [1, 0, 0],
          iconName: "SBApproved"
        }
      ])
    }))

  it.effect("reads Apryse WebViewer's XFDF export (vendor elements skipped, state reply folded in)", () =>
    Effect.gen(function*() {
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
            74.8,
            698.7940000000001,
            516.43,
            698.7940000000001,
            74.8,
            674.7460000000001,
            516.43,
            674.7460000000001,
            56.8,
            678.094,
            289.54,
            678.094,
            56.8,
            654.046,
            289.54,
            654.046
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
            {
              name: "f2ca2ebd-adf3-1080-44a7-9cc17f62f5b6",
              author: "Dami Animashaun",
              contents: "rep 1",
              modified: "2022-03-04T17:48:00.000Z",
              created: "2022-03-04T17:48:00.000Z"
            }
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
    }))

  it.effect("reads Acrobat's FDF export (popups skipped, reply and review state threaded)", () =>
    Effect.gen(function*() {
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
            {
              name: "8b2f1e5a-1d3c-4a2b-9e8f-7c6d5e4f3a2b",
              author: "Ana",
              contents: "Fixed in v2 ✓",
              modified: "2024-01-16T07:15:00.000Z",
              created: "2024-01-16T07:15:00.000Z"
            }
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
    }))

  it.effect("takes the text of rich text when a file has no plain contents (FDF /RC)", () =>
    Effect.gen(function*() {
      const fdf = `%FDF-1.2
1 0 obj <</FDF <</Annots [2 0 R]>> >> endobj
2 0 obj <</Type/Annot/Subtype/Text/Page 0/Rect [10 10 30 30]/NM (rc)/RC (<?xml version="1.0"?><body xmlns="http://www.w3.org/1999/xhtml"><p dir="ltr">First <b>bold</b> line</p><p>Second<br/>third</p></body>)>> endobj
trailer <</Root 1 0 R>>
%%EOF`
      const [note] = yield* parseFdf(bytesOf(fdf))
      expect(note?.contents).toBe("First bold line\nSecond\nthird")
    }))
})
