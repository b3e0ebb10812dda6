/**
 * Every file of the office corpus through the broker: converted (a layout with a plausible page
 * count and a first page image) or expanded (a container listing its parts), or refused with the
 * documented error. Page counts come from this stack's fonts; long documents get a margin.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, pngSize, upload } from "../../support/http.ts"

const pages = (min: number, max = min) => ({ pages: [min, max] as const })
const parts = (...titles: ReadonlyArray<string>) => ({ parts: titles })

/** What each file becomes: a page count range, the titles of its parts, or a 400 whose message matches. */
const expected: Record<
  string,
  & { format: string; text?: string }
  & ({ pages: readonly [number, number] } | { parts: ReadonlyArray<string> } | { refused: RegExp })
> = {
  "2023-half-year-analyses-by-segment.xlsx": { format: "xlsx", ...pages(4, 7) },
  "AntarcticaTemps.ods": { format: "ods", ...pages(6, 10) },
  "Outlook2007_Calendar.xps": { format: "xps", ...pages(1) },
  "all.windows.zip": { format: "zip", ...parts("Hello.txt", "images") },
  "book-war-and-peace-1225p.txt": { format: "text", ...pages(900, 1250), text: "Prince Vasili" },
  "contains-pictures.docx": { format: "docx", ...pages(1) },
  "docx-hdrftr.docx": { format: "docx", ...pages(1) },
  "docx-tables.docx": { format: "docx", ...pages(1), text: "Nested Table" },
  "double-column-A.jpg": { format: "jpeg", ...pages(1) },
  "email-with-image.eml": { format: "eml", ...parts("email-with-image", "unstructured_logo.png") },
  "eng_spa_mult.rtf": { format: "rtf", ...pages(1, 2) },
  "english-and-korean.png": { format: "png", ...pages(1) },
  "example-10k.html": { format: "html", ...pages(40, 65) },
  "example-steelJIS-datasheet-utf-16.html": { format: "html", ...pages(1, 3) },
  "fake-doc-emphasized-text.doc": { format: "doc", ...pages(1) },
  "fake-email-attachment.eml": { format: "eml", ...parts("Fake email with attachment", "fake-attachment.txt") },
  "fake-email-attachment.msg": { format: "msg", ...parts("Fake email with attachment", "fake-attachment.txt") },
  "fake-email-with-cc-and-bcc.msg": { format: "msg", ...parts("Fake email with cc and bcc recipients") },
  "fake-html-with-base64-image.html": { format: "html", ...pages(1) },
  "fake-power-point-table.pptx": { format: "pptx", ...pages(1) },
  "fake-power-point.ppt": { format: "ppt", ...pages(1) },
  "fake-text-utf-16-be.txt": { format: "text", ...pages(1), text: "Hamburgers are delicious" },
  "fake.odt": { format: "odt", ...pages(1) },
  "handbook-872p.docx": { format: "docx", ...pages(380, 480) },
  "jpn-vert.jpeg": { format: "jpeg", ...pages(1) },
  "layout-parser-paper-combined.tiff": { format: "tiff", ...pages(2) },
  "nested.zip": { format: "zip", ...parts("Hello.txt", "zip_within_zip.zip") },
  "password_protected.xlsx": { format: "xlsx", refused: /protected by a password/ },
  "science-exploration-1p.pptx": { format: "pptx", ...pages(1) },
  "tests-example.xls": { format: "xls", ...pages(3, 5) },
  "winter-sports.epub": { format: "epub", ...pages(120, 170) }
}

layer(brokerTestLayer(defaultBackend.config), { timeout: 300_000 })("office corpus", (it) => {
  for (const [name, expectation] of Object.entries(expected)) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const reply = yield* upload(base, corpusFile(`office/${name}`), `?documentTitle=${encodeURIComponent(name)}`)
        if ("refused" in expectation) {
          expect(reply.status).toBe(400)
          expect(reply.json.message).toMatch(expectation.refused)
          return
        }
        expect(reply.status, reply.text).toBe(200)
        const id = reply.json.id as string
        expect((yield* call(`${base}/documents/${id}`)).json.format).toBe(expectation.format)
        const layout = yield* call(`${base}/documents/${id}/layout`)
        expect(layout.status, layout.text).toBe(200)
        if ("parts" in expectation) {
          expect(layout.json.children.map((c: { documentTitle: string }) => c.documentTitle)).toEqual(expectation.parts)
          return
        }
        const count = layout.json.pageDimensionsList.length
        expect(count).toBeGreaterThanOrEqual(expectation.pages[0])
        expect(count).toBeLessThanOrEqual(expectation.pages[1])
        const image = yield* call(`${base}/documents/${id}/pages/0/image?pageImageDescription=IM_300_0`)
        expect(image.status).toBe(200)
        expect(pngSize(image.bytes).width).toBe(300)
        if (expectation.text) {
          // The first pages are enough to show the text came through (searching 1000 pages is the benchmark's job).
          const found = (yield* call(
            `${base}/documents/${id}/search?fromPage=0&toPage=9&searchText=${encodeURIComponent(expectation.text)}`
          )).json
          expect(Object.keys(found.pagesResults).length).toBeGreaterThan(0)
        }
      }))
  }
})
