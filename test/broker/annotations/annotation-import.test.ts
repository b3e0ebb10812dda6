/**
 * POST /documents/{id}/file/annotations as a client sees it: the XFDF a real annotated PDF exports,
 * imported into another document (one whose crop box does not start at 0,0, one of whose pages is
 * turned) lands where it was in PDF user space, shows in that page's displayed space, and exports
 * the same again; sent back, a file replaces what it names; FDF is read by its header; the 400s
 * (nothing written) and the 404.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { zipSync } from "fflate"
import { degrees, PDFDocument } from "pdf-lib"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { parseXfdf } from "../../../src/services/broker/annotations/Xfdf.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, uploadOk } from "../../support/http.ts"

/** Small enough to be passed in a test, larger than the files the tests import. */
const MAX_FILE_BYTES = 65_536

const importFile = (base: string, documentId: string, bytes: Uint8Array) =>
  call(`${base}/documents/${documentId}/file/annotations`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: bytes as Uint8Array<ArrayBuffer>
  })

const exported = (base: string, documentId: string) => call(`${base}/documents/${documentId}/file/annotations`)

/** What a user sees of each annotation of an XFDF file: its type, page, box, colour and author. */
const seen = (xfdf: Uint8Array) =>
  parseXfdf(xfdf).pipe(
    Effect.map((annotations) =>
      annotations.map((a) => ({
        subtype: a.subtype,
        page: a.page,
        rect: a.rect.map((n) => Number(n.toFixed(2))),
        color: a.color?.map((c) => Number(c.toFixed(2))),
        author: a.author
      }))
    )
  )

const listed = (base: string, documentId: string) =>
  call(`${base}/annotation?documentId=${documentId}`).pipe(Effect.map((reply) => reply.json.annotations as Array<any>))

/** Crop box of the target's pages: starts at (50, 80), 512 × 632; the second page turned 90°. */
const CROP = { x: 50, y: 80, width: 512, height: 632 }

/** Two pages of tracemonkey.pdf (612 × 792) with CROP as crop box; the second turned by 90°. */
const croppedPdf = Effect.promise(async () => {
  const source = await PDFDocument.load(corpusFile("pdf/tracemonkey.pdf"))
  const pdf = await PDFDocument.create()
  const pages = await pdf.copyPages(source, [0, 1])
  for (const page of pages) {
    page.setCropBox(CROP.x, CROP.y, CROP.width, CROP.height)
    pdf.addPage(page)
  }
  pages[1]!.setRotation(degrees(90))
  return await pdf.save()
})

layer(
  brokerTestLayer({ ...defaultBackend.config, ANNOTATION_FILE_MAX_BYTES: String(MAX_FILE_BYTES) }),
  { timeout: 180_000 }
)("importing an annotation file", (it) => {
  it.effect("an exported XFDF lands on a cropped page where it was, shows in its space, exports the same; sent back it replaces", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const source = yield* uploadOk(base, corpusFile("pdf/annotation-square-circle-without-appearance.pdf"))
      const file = yield* exported(base, source)
      expect(file.status).toBe(200)
      const original = yield* seen(file.bytes)
      expect([...new Set(original.map((a) => a.subtype))]).toEqual(["Square", "Circle"])

      const target = yield* uploadOk(base, yield* croppedPdf)
      const imported = yield* importFile(base, target, file.bytes)
      expect(imported.status, imported.text).toBe(200)
      const ids = (imported.json as Array<{ id: string }>).map((ref) => ref.id)
      expect(ids).toHaveLength(original.length)

      // In the target's displayed space: the crop box's top left corner is the origin.
      const shown = yield* listed(base, target)
      expect(shown.map((a) => a.id.id)).toEqual(ids)
      const [square] = yield* parseXfdf(file.bytes)
      const [x1, , x2, y2] = square!.rect
      expect(shown[0].page).toBe(0)
      expect(shown[0].position.x).toBeCloseTo(x1 - CROP.x, 2)
      expect(shown[0].position.y).toBeCloseTo(CROP.y + CROP.height - y2, 2)
      expect(shown[0].position.w).toBeCloseTo(x2 - x1, 2)

      const again = yield* exported(base, target)
      expect(yield* seen(again.bytes)).toEqual(original)

      // Its own export sent back replaces what it names: the same IDs, nothing added.
      const back = yield* importFile(base, target, again.bytes)
      expect(back.status, back.text).toBe(200)
      expect((back.json as Array<{ id: string }>).map((ref) => ref.id)).toEqual(ids)
      expect((yield* listed(base, target)).map((a) => a.id.id)).toEqual(ids)
      expect(yield* seen((yield* exported(base, target)).bytes)).toEqual(original)
    }))

  it.effect("on a turned cropped page, the file's box is kept in user space and shown turned", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const source = yield* uploadOk(base, corpusFile("pdf/annotation-highlight.pdf"))
      const file = yield* exported(base, source)
      const original = yield* seen(file.bytes)
      expect(original.length).toBeGreaterThan(0)
      // The same annotations, on the target's second (turned) page.
      const onSecondPage = new TextEncoder().encode(file.text.replaceAll(`page="0"`, `page="1"`))

      const target = yield* uploadOk(base, yield* croppedPdf)
      const imported = yield* importFile(base, target, onSecondPage)
      expect(imported.status, imported.text).toBe(200)
      const again = yield* seen((yield* exported(base, target)).bytes)
      expect(again).toEqual(original.map((a) => ({ ...a, page: 1 })))

      // Turned by 90°, the page shows 632 wide and 512 high: a box's user-space height is its shown width.
      const [first] = yield* listed(base, target)
      const [x1, y1, x2, y2] = original[0]!.rect
      expect(first.position.w).toBeCloseTo(y2! - y1!, 1)
      expect(first.position.h).toBeCloseTo(x2! - x1!, 1)
    }))

  it.effect("an FDF file (told by its %FDF- header) imports as the same annotations", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const source = yield* uploadOk(base, corpusFile("pdf/annotation-highlight.pdf"))
      const xfdf = yield* exported(base, source)
      const fdf = yield* call(
        `${base}/annotations/conversion?sourceType=XFDF&targetType=FDF&documentId=${source}`,
        {
          method: "POST",
          headers: { "content-type": "application/octet-stream", accept: "application/vnd.fdf" },
          body: xfdf.bytes as Uint8Array<ArrayBuffer>
        }
      )
      expect(fdf.text.startsWith("%FDF-")).toBe(true)

      const target = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      const imported = yield* importFile(base, target, fdf.bytes)
      expect(imported.status, imported.text).toBe(200)
      expect(yield* seen((yield* exported(base, target)).bytes)).toEqual(yield* seen(xfdf.bytes))
    }))

  it.effect("400 and nothing written: a page the document lacks, an unreadable, empty or too large file, a composite document; 404: an unknown one", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const target = yield* uploadOk(base, corpusFile("pdf/basicapi.pdf"))
      const square = (page: number) =>
        `<square page="${page}" rect="10,10,50,50" color="#FF0000" title="ann" name="sq-${page}"/>`
      const file = (annots: string) =>
        new TextEncoder().encode(
          `<?xml version="1.0"?><xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>${annots}</annots></xfdf>`
        )

      // One annotation on a page past the end: the valid one before it is not written either.
      const pastEnd = yield* importFile(base, target, file(square(0) + square(7)))
      expect(pastEnd.status).toBe(400)
      expect(pastEnd.json.message).toContain("page 7")
      const garbage = yield* importFile(base, target, new TextEncoder().encode("not an annotation file"))
      expect(garbage.status).toBe(400)
      expect(garbage.json.message).toContain("neither XFDF nor FDF")
      expect((yield* importFile(base, target, new Uint8Array())).status).toBe(400)
      const tooLarge = yield* importFile(base, target, file(square(0).repeat(MAX_FILE_BYTES / 60)))
      expect(tooLarge.status).toBe(400)
      expect(tooLarge.json.message).toContain("ANNOTATION_FILE_MAX_BYTES")
      expect(yield* listed(base, target)).toEqual([])

      const archive = yield* uploadOk(base, zipSync({ "paper.pdf": corpusFile("pdf/basicapi.pdf") }))
      const composite = yield* importFile(base, archive, file(square(0)))
      expect(composite.status).toBe(400)
      expect(composite.json.message).toContain("composite")

      expect((yield* importFile(base, "no-such-document", file(square(0)))).status).toBe(404)

      // The same file with its page fixed goes in.
      const fixed = yield* importFile(base, target, file(square(0)))
      expect(fixed.status, fixed.text).toBe(200)
      expect((yield* listed(base, target)).map((a) => a.type)).toEqual(["Square"])
    }))
})
