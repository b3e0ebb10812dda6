/**
 * Transformation orders as a client sees them: merge, split and reorder checked by page counts and
 * page text on corpus files; real redaction (the redacted words gone from the result's text and
 * search, a neighbouring word still there, the redacted image area blank in the stored image);
 * annotations carried into the result; long-polling, listing, deleting; the errors of the spec.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { PDFDocument } from "pdf-lib"
import sharp from "sharp"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, uploadOk } from "../../support/http.ts"

const json = (method: string, body: unknown) => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body)
})

type TextRun = {
  text: string
  individualWidths: Array<number>
  position: { x: number; y: number; w: number; h: number }
}

/** The displayed box of `word` inside the first run of the page that holds it. */
const wordBox = (runs: ReadonlyArray<TextRun>, word: string) => {
  const run = runs.find((r) => r.text.includes(word))!
  const start = run.text.indexOf(word)
  const sum = (from: number, to: number) => run.individualWidths.slice(from, to).reduce((a, b) => a + b, 0)
  return { x: run.position.x + sum(0, start), y: run.position.y, w: sum(start, start + word.length), h: run.position.h }
}

layer(brokerTestLayer(defaultBackend.config), { timeout: 300_000 })("transformations", (it) => {
  const transform = (base: string, body: unknown) =>
    Effect.gen(function*() {
      const queued = yield* call(`${base}/transformations`, json("POST", body))
      expect(queued.status).toBe(200)
      const id = queued.json.transformationOrderId.id as string
      const order = (yield* call(`${base}/transformations/${id}?timeoutMs=120000`)).json
      expect(order).toMatchObject({ currentState: "PROCESSED", errorMessage: null })
      return { id, order }
    })
  const pageCount = (base: string, id: string) =>
    call(`${base}/documents/${id}/layout`).pipe(Effect.map((r) => r.json.pageDimensionsList.length as number))
  const pageText = (base: string, id: string, page: number) =>
    call(`${base}/documents/${id}/pages/${page}/text/position`).pipe(
      Effect.map((r) => (r.json.positionTextList as Array<TextRun>).map((t) => t.text).join(" "))
    )

  it.effect("merge, split and reorder: the right pages, in the right order, as ordinary documents", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const paper = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"), "?documentTitle=paper.pdf")
      const review = yield* uploadOk(base, corpusFile("pdf/TAMReview.pdf"))
      const [paperPages, reviewPages] = [yield* pageCount(base, paper), yield* pageCount(base, review)]

      const merged = yield* transform(base, {
        transformationDetails: [{
          documentTitle: "Both",
          transformationElements: [{ documentId: { id: paper } }, { documentId: review }]
        }]
      })
      const mergedId = merged.order.transformationResultDocumentID.id
      expect(merged.order.transformationResultDocumentIDs).toEqual([{ id: mergedId }])
      expect(yield* pageCount(base, mergedId)).toBe(paperPages + reviewPages)
      expect(yield* pageText(base, mergedId, 0)).toBe(yield* pageText(base, paper, 0))
      expect(yield* pageText(base, mergedId, paperPages)).toBe(yield* pageText(base, review, 0))
      expect((yield* call(`${base}/documents/${mergedId}`)).json.documentTitle).toBe("Both")

      const split = yield* transform(base, {
        transformationDetails: [
          {
            documentTitle: "First five",
            transformationElements: [{ documentId: paper, pagesSelectionList: [{ minPage: 0, maxPage: 4 }] }]
          },
          {
            transformationElements: [{
              documentId: paper,
              pagesSelectionList: [{ minPage: 5, maxPage: paperPages - 1 }]
            }]
          }
        ]
      })
      const [first, second] = split.order.transformationResultDocumentIDs.map((r: { id: string }) => r.id)
      expect(split.order.transformationResultDocumentID.id).toBe(first)
      expect([yield* pageCount(base, first), yield* pageCount(base, second)]).toEqual([5, paperPages - 5])
      expect(yield* pageText(base, second, 0)).toBe(yield* pageText(base, paper, 5))
      expect((yield* call(`${base}/documents/${second}`)).json.documentTitle).toBe("paper.pdf")

      const reordered = yield* transform(base, {
        transformationDetails: [{
          transformationElements: [{
            documentId: paper,
            pagesSelectionList: [{ minPage: 5, maxPage: 5 }, { minPage: 0, maxPage: 2 }, { minPage: 5, maxPage: 5 }]
          }]
        }]
      })
      const reorderedId = reordered.order.transformationResultDocumentID.id
      expect(yield* pageCount(base, reorderedId)).toBe(5)
      expect(yield* pageText(base, reorderedId, 0)).toBe(yield* pageText(base, paper, 5))
      expect(yield* pageText(base, reorderedId, 1)).toBe(yield* pageText(base, paper, 0))
      expect(yield* pageText(base, reorderedId, 4)).toBe(yield* pageText(base, paper, 5))

      // Orders are listed, and deleted one by one or all; their results stay. Deleting a source
      // document leaves the orders that took it (resources of their own) in place.
      const copy = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"), "?documentTitle=copy.pdf")
      const fromCopy = yield* transform(base, {
        transformationDetails: [{
          transformationElements: [{ documentId: copy, pagesSelectionList: [{ minPage: 0, maxPage: 0 }] }]
        }]
      })
      expect((yield* call(`${base}/documents/${copy}`, { method: "DELETE" })).status).toBe(200)
      expect((yield* call(`${base}/transformations/${fromCopy.id}`)).json.currentState).toBe("PROCESSED")
      const listed = (yield* call(`${base}/transformations`)).json as Array<{ transformationOrderId: { id: string } }>
      expect(listed.map((o) => o.transformationOrderId.id)).toEqual(
        expect.arrayContaining([merged.id, split.id, reordered.id, fromCopy.id])
      )
      expect((yield* call(`${base}/transformations/${merged.id}`, { method: "DELETE" })).status).toBe(200)
      expect((yield* call(`${base}/transformations/${merged.id}`)).status).toBe(404)
      expect((yield* call(`${base}/documents/${mergedId}/check`)).status).toBe(200)
      expect((yield* call(`${base}/transformations`, { method: "DELETE" })).status).toBe(200)
      expect((yield* call(`${base}/transformations`)).json).toEqual([])
    }))

  it.effect("bookmarks follow their pages: those of the pages taken, moved to where they landed; a merge has one per document", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const nested = yield* uploadOk(base, corpusFile("pdf/nested_outline.pdf"), "?documentTitle=nested.pdf")
      const paper = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"), "?documentTitle=paper.pdf")
      type Mark = { title: string; page: number; textPosition: number; children: Array<Mark> }
      const bookmarks = (id: string) =>
        call(`${base}/documents/${id}/bookmarks`).pipe(Effect.map((r) => r.json.bookmarks as Array<Mark>))
      const flat = (marks: ReadonlyArray<Mark>): Array<[string, number]> =>
        marks.flatMap((m) => [[m.title, m.page] as [string, number], ...flat(m.children)])
      const source = flat(yield* bookmarks(nested))
      expect(source.length).toBeGreaterThan(3)

      // Pages 3 to 6 (0-based 2..5): their bookmarks, three pages earlier.
      const excerpt = yield* transform(base, {
        transformationDetails: [{
          transformationElements: [{ documentId: nested, pagesSelectionList: [{ minPage: 2, maxPage: 5 }] }]
        }]
      })
      const excerptMarks = flat(yield* bookmarks(excerpt.order.transformationResultDocumentID.id))
      expect(excerptMarks).toEqual(
        source.filter(([, page]) => page >= 2 && page <= 5).map(([title, page]) => [title, page - 2])
      )

      // A merge: one bookmark per document at its first page, the document's own bookmarks under it.
      const merged = yield* transform(base, {
        transformationDetails: [{
          transformationElements: [{ documentId: paper, pagesSelectionList: [{ minPage: 0, maxPage: 1 }] }, {
            documentId: nested
          }]
        }]
      })
      const mergedMarks = yield* bookmarks(merged.order.transformationResultDocumentID.id)
      expect(mergedMarks.map((m) => [m.title, m.page])).toEqual([["paper.pdf", 0], ["nested.pdf", 2]])
      // Without a given title, a document goes by its PDF's own /Title.
      const book = yield* uploadOk(base, corpusFile("pdf/freeculture.pdf"))
      const untitled = yield* transform(base, {
        transformationDetails: [{
          transformationElements: [{ documentId: book, pagesSelectionList: [{ minPage: 0, maxPage: 9 }] }, {
            documentId: nested
          }]
        }]
      })
      const untitledMarks = yield* bookmarks(untitled.order.transformationResultDocumentID.id)
      expect(untitledMarks.map((m) => m.title)).toEqual(["Free Culture", "nested.pdf"])
      // A document with no title at all goes by its place in the merge.
      const bare = yield* uploadOk(
        base,
        yield* Effect.promise(async () => {
          const pdf = await PDFDocument.create()
          pdf.addPage()
          return pdf.save()
        })
      )
      const withBare = yield* transform(base, {
        transformationDetails: [{ transformationElements: [{ documentId: nested }, { documentId: bare }] }]
      })
      expect((yield* bookmarks(withBare.order.transformationResultDocumentID.id)).map((m) => [m.title, m.page]))
        .toEqual([["nested.pdf", 0], ["Document 2", 9]])
      expect((yield* call(`${base}/documents/${untitled.order.transformationResultDocumentID.id}`)).json.documentTitle)
        .toBe("Free Culture")
      expect(flat(mergedMarks[1]!.children)).toEqual(source.map(([title, page]) => [title, page + 2]))
      // A bookmark opens where its source opened (same place on the page).
      const sourceFirst = (yield* bookmarks(nested))[0]!
      expect(mergedMarks[1]!.children[0]!.textPosition).toBeCloseTo(sourceFirst.textPosition, 1)

      // A source with redactions gives no bookmarks: their titles could name what was redacted.
      const redacted = yield* transform(base, {
        transformationDetails: [{ transformationElements: [{ documentId: nested }] }],
        annotations: { annotations: [{ type: "Redact", page: 0, position: { x: 10, y: 10, w: 20, h: 20 } }] }
      })
      expect(yield* bookmarks(redacted.order.transformationResultDocumentID.id)).toEqual([])

      // A download with the document's annotations keeps its bookmarks and title.
      const highlight = { type: "Highlight", page: 4, position: { x: 50, y: 50, w: 100, h: 12 } }
      expect((yield* call(`${base}/annotation?documentId=${nested}`, json("PUT", { annotations: [highlight] }))).status)
        .toBe(200)
      const download = (yield* call(`${base}/documents/${nested}/file?format=pdf&annotations=embed`)).bytes
      const reopened = yield* uploadOk(base, download)
      expect(flat(yield* bookmarks(reopened))).toEqual(source)
      const dir = mkdtempSync(path.join(tmpdir(), "docstack-outline-"))
      writeFileSync(path.join(dir, "download.pdf"), download)
      expect(execFileSync("pdfinfo", [path.join(dir, "download.pdf")], { encoding: "utf8" })).toMatch(
        /^Title:\s+nested\.pdf$/m
      )
    }))

  it.effect("redaction removes the words for real, keeps their neighbours, and blanks a redacted image area in the stored image", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const paper = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      const runs = (yield* call(`${base}/documents/${paper}/pages/0/text/position`)).json.positionTextList as Array<
        TextRun
      >
      const secret = wordBox(runs, "Trace-based")
      const redacted = yield* transform(base, {
        transformationDetails: [{
          transformationElements: [{ documentId: paper, pagesSelectionList: [{ minPage: 0, maxPage: 1 }] }]
        }],
        annotations: {
          annotations: [{
            type: "RedactText",
            page: 0,
            position: secret,
            quadPoints: [secret],
            documentId: { id: paper }
          }]
        }
      })
      const result = redacted.order.transformationResultDocumentID.id
      const text = yield* pageText(base, result, 0)
      expect(text).not.toContain("Trace-based")
      expect(text).toContain("Just-in-Time")
      // The title's "Trace-based" is gone; the abstract's lower-case "trace-based" was not redacted.
      expect(
        (yield* call(`${base}/documents/${paper}/search?fromPage=0&toPage=0&searchText=Trace-based&caseSensitive=true`))
          .json.pagesResults["0"]
      ).toHaveLength(1)
      expect(
        (yield* call(`${base}/documents/${result}/search?fromPage=0&searchText=Trace-based&caseSensitive=true`)).json
          .pagesResults
      ).toEqual({})
      expect(
        Object.keys(
          (yield* call(`${base}/documents/${result}/search?fromPage=0&searchText=Specialization`)).json.pagesResults
        )
      ).toContain("0")
      // Page 1 had no redaction: its text is whole.
      expect(yield* pageText(base, result, 1)).toBe(yield* pageText(base, paper, 1))

      // A scanned page: the image area under the region is blank in the image the file stores.
      const scan = yield* uploadOk(base, corpusFile("pdf/pdf-with-ocr-text.pdf"))
      const layout = (yield* call(`${base}/documents/${scan}/layout`)).json.pageDimensionsList[0]
      const area = { x: layout.width * 0.25, y: layout.height * 0.25, w: layout.width * 0.3, h: layout.height * 0.1 }
      const ocr = (yield* call(`${base}/documents/${scan}/pages/0/text/position`)).json.positionTextList as Array<
        TextRun
      >
      const inside = ocr.filter((r) =>
        r.position.x >= area.x && r.position.x + r.position.w <= area.x + area.w && r.position.y >= area.y &&
        r.position.y + r.position.h <= area.y + area.h
      )
      const blanked = yield* transform(base, {
        transformationDetails: [{ transformationElements: [{ documentId: scan }] }],
        annotations: { annotations: [{ type: "Redact", page: 0, position: area }] }
      })
      const resultId = blanked.order.transformationResultDocumentID.id
      const resultText = yield* pageText(base, resultId, 0)
      for (const run of inside) if (run.text.trim().length > 3) expect(resultText).not.toContain(run.text.trim())
      const dir = mkdtempSync(path.join(tmpdir(), "docstack-redact-"))
      writeFileSync(path.join(dir, "result.pdf"), (yield* call(`${base}/documents/${resultId}/file`)).bytes)
      execFileSync("pdfimages", ["-png", path.join(dir, "result.pdf"), path.join(dir, "img")])
      const image = readdirSync(dir).find((f) => f.startsWith("img"))!
      const { data, info } = yield* Effect.promise(() =>
        sharp(path.join(dir, image)).greyscale().raw().toBuffer({ resolveWithObject: true })
      )
      const sx = info.width / layout.width
      const sy = info.height / layout.height
      // Inside the area (a margin in), every pixel has one value; outside it, the scan still varies.
      const values = new Set<number>()
      for (let y = Math.ceil((area.y + 2) * sy); y < (area.y + area.h - 2) * sy; y += 3) {
        for (let x = Math.ceil((area.x + 2) * sx); x < (area.x + area.w - 2) * sx; x += 3) {
          values.add(data[y * info.width + x]!)
        }
      }
      expect(values.size).toBe(1)
      const outside = new Set<number>()
      for (let y = Math.floor(info.height * 0.6); y < info.height * 0.8; y += 3) {
        for (let x = 0; x < info.width; x += 3) {
          outside.add(data[y * info.width + x]!)
        }
      }
      expect(outside.size).toBeGreaterThan(10)
    }))

  it.effect("annotations of the request are written into the result, on every page made from theirs", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const paper = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      // The document named as a string, as an element's may be.
      const stamp = {
        type: "Stamp",
        page: 1,
        position: { x: 400, y: 40, w: 150, h: 40 },
        stampName: "Approved",
        contents: "APPROVED",
        documentId: paper
      }
      const done = yield* transform(base, {
        transformationDetails: [{
          transformationElements: [{
            documentId: paper,
            pagesSelectionList: [{ minPage: 1, maxPage: 1 }, { minPage: 0, maxPage: 1 }]
          }]
        }],
        annotations: { annotations: [stamp] }
      })
      const result = done.order.transformationResultDocumentID.id
      const listed = (yield* call(`${base}/annotation?documentId=${result}`)).json.annotations as Array<any>
      expect(listed.map((a) => [a.type, a.page, a.origin])).toEqual([["Stamp", 0, "file"], ["Stamp", 2, "file"]])
      expect(listed[0].position.x).toBeCloseTo(400, 1)
      expect(listed[0].stampName).toBe("Approved")

      // A highlight given by its position alone gets the quad points PDF readers need to draw it; the
      // result carries its title in the file too.
      const box = { x: 100, y: 100, w: 80, h: 12 }
      const highlighted = yield* transform(base, {
        transformationDetails: [{
          documentTitle: "Highlighted",
          transformationElements: [{ documentId: paper, pagesSelectionList: [{ minPage: 0, maxPage: 0 }] }]
        }],
        annotations: { annotations: [{ type: "Highlight", page: 0, position: box }] }
      })
      const highlightedId = highlighted.order.transformationResultDocumentID.id
      const [highlight] = (yield* call(`${base}/annotation?documentId=${highlightedId}`)).json.annotations as Array<any>
      expect(highlight.quadPoints).toHaveLength(1)
      expect(highlight.quadPoints[0].x).toBeCloseTo(box.x, 1)
      expect(highlight.quadPoints[0].w).toBeCloseTo(box.w, 1)
      const dir = mkdtempSync(path.join(tmpdir(), "docstack-highlight-"))
      writeFileSync(path.join(dir, "result.pdf"), (yield* call(`${base}/documents/${highlightedId}/file`)).bytes)
      expect(execFileSync("pdfinfo", [path.join(dir, "result.pdf")], { encoding: "utf8" })).toMatch(
        /^Title:\s+Highlighted$/m
      )
    }))

  it.effect("errors: 400 for bad bodies and ranges, 404 for unknown documents and orders; timeoutMs answers the current state", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const paper = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      const post = (body: unknown) => call(`${base}/transformations`, json("POST", body))
      expect((yield* post({})).status).toBe(400)
      expect((yield* post({ transformationDetails: [] })).status).toBe(400)
      expect(
        (yield* post({ format: "docx", transformationDetails: [{ transformationElements: [{ documentId: paper }] }] }))
          .status
      ).toBe(400)
      const reversed = yield* post({
        transformationDetails: [{
          transformationElements: [{ documentId: paper, pagesSelectionList: [{ minPage: 3, maxPage: 1 }] }]
        }]
      })
      expect(reversed.status).toBe(400)
      expect(reversed.json.message).toContain("minPage 3 is after maxPage 1")
      const pastEnd = yield* post({
        transformationDetails: [{
          transformationElements: [{ documentId: paper, pagesSelectionList: [{ minPage: 0, maxPage: 14 }] }]
        }]
      })
      expect(pastEnd.status).toBe(400)
      expect(pastEnd.json.message).toContain("page 14 does not exist")
      const unknown = yield* post({
        transformationDetails: [{ transformationElements: [{ documentId: "b64_missing" }] }]
      })
      expect(unknown.status).toBe(404)
      // A redaction on a page the document does not have would be silently skipped: refused instead.
      const redactionPastEnd = yield* post({
        transformationDetails: [{ transformationElements: [{ documentId: paper }] }],
        annotations: { annotations: [{ type: "Redact", page: 50, position: { x: 10, y: 10, w: 50, h: 20 } }] }
      })
      expect(redactionPastEnd.status).toBe(400)
      expect(redactionPastEnd.json.message).toContain("page 50 does not exist")
      const unknownReason = yield* post({
        transformationDetails: [{ transformationElements: [{ documentId: paper }] }],
        annotations: {
          annotations: [{ type: "Redact", page: 0, position: { x: 10, y: 10, w: 50, h: 20 }, redactReason: "XYZ" }]
        }
      })
      expect(unknownReason.status).toBe(400)
      expect(unknownReason.json.message).toContain("redactReason 'XYZ' is not one of the policy's")
      // A composite document (an email) has no pages of its own: its parts do.
      const mail = yield* uploadOk(base, corpusFile("office/fake-email-attachment.eml"))
      const composite = yield* post({ transformationDetails: [{ transformationElements: [{ documentId: mail }] }] })
      expect(composite.status).toBe(400)
      expect(composite.json.message).toContain("composite document")
      expect((yield* call(`${base}/transformations/nope`)).status).toBe(404)
      expect((yield* call(`${base}/transformations/nope`, { method: "DELETE" })).status).toBe(404)

      // timeoutMs=0 answers at once, whatever the state.
      const queued =
        (yield* post({ transformationDetails: [{ transformationElements: [{ documentId: paper }] }] })).json
          .transformationOrderId.id
      const now = (yield* call(`${base}/transformations/${queued}?timeoutMs=0`)).json
      expect(["QUEUED", "PROCESSING", "PROCESSED"]).toContain(now.currentState)
      expect((yield* call(`${base}/transformations/${queued}?timeoutMs=-1`)).status).toBe(400)
      expect((yield* call(`${base}/transformations/${queued}?timeoutMs=600001`)).status).toBe(400)

      // Annotations must name one of the transformation's documents, and must name one when there are several.
      const other = yield* uploadOk(base, corpusFile("pdf/TAMReview.pdf"))
      const box = { x: 10, y: 10, w: 50, h: 20 }
      const notASource = yield* post({
        transformationDetails: [{ transformationElements: [{ documentId: paper }] }],
        annotations: { annotations: [{ type: "Redact", page: 0, position: box, documentId: other }] }
      })
      expect(notASource.status).toBe(400)
      expect(notASource.json.message).toContain("not one of the transformation's documents")
      const unnamed = yield* post({
        transformationDetails: [{ transformationElements: [{ documentId: paper }, { documentId: other }] }],
        annotations: { annotations: [{ type: "Redact", page: 0, position: box }] }
      })
      expect(unnamed.status).toBe(400)
      expect(unnamed.json.message).toContain("needs a documentId")
    }))
})
