/**
 * What the annotation-file tests share: the fixtures, how a refusal is read, and the annotations
 * of all-subtypes.xfdf and all-subtypes.fdf (every type, every field it can carry), written by hand
 * after the XFDF 3.0 specification and PDF 32000-1 12.7.8.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { AnnotationFileInvalid } from "../../../src/services/broker/annotations/AnnotationFileInvalid.ts"
import type { PdfAnnotation, PdfColor } from "../../../src/services/broker/annotations/PdfAnnotation.ts"

export const fixture = (name: string): Uint8Array => readFileSync(new URL(`./fixtures/${name}`, import.meta.url))
export const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
export const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1")
export const bytesOf = (value: string) => new TextEncoder().encode(value)

/** XFDF colours are bytes: #RRGGBB. */
export const hex = (r: number, g: number, b: number): PdfColor => [r / 255, g / 255, b / 255]

/** The error a parse fails with (the test fails if it succeeds). */
export const refusal = <A>(effect: Effect.Effect<A, AnnotationFileInvalid>) =>
  Effect.flip(effect).pipe(
    Effect.tap((error) =>
      Effect.sync(() => {
        expect(error).toBeInstanceOf(AnnotationFileInvalid)
        expect(error._tag).toBe("AnnotationFileInvalid")
      })
    )
  )

export const D1 = "2024-03-01T09:15:30.000Z"
export const D0 = "2024-03-01T09:00:00.000Z"
export const ann = { author: "Ann Reviewer", modified: D1, created: D0 } as const

/** The annotations of all-subtypes.xfdf and all-subtypes.fdf: every type, every field it can carry. */
export const ALL: ReadonlyArray<PdfAnnotation> = [
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
      {
        name: "hl-1-r1",
        author: "Bob",
        contents: "Agreed, will fix.",
        modified: "2024-03-02T08:00:00.000Z",
        created: "2024-03-02T08:00:00.000Z"
      },
      // In reply to hl-1-r1: kept in the thread of hl-1.
      {
        name: "hl-1-r2",
        author: "Ann Reviewer",
        contents: "Thanks",
        modified: "2024-03-02T09:00:00.000Z",
        created: "2024-03-02T09:00:00.000Z"
      }
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
    replies: [{
      name: "note-1-r1",
      author: "Zoë",
      contents: "Merci — déjà vu, 日本語 😀",
      modified: "2024-03-02T09:00:00.000Z",
      created: "2024-03-02T09:00:00.000Z"
    }]
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
    ],
    lineEndings: ["None", "ClosedArrow"]
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
