/**
 * servletXFDFAnnotations against a real broker: the annotations of a real annotated PDF exported
 * as XFDF and FDF, imported into other documents (as either), exported again unchanged; a
 * document without annotations; the 400s and 404s.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { BrokerUrl } from "../../src/layers/Test.ts"
import { corpusFile, uploadOk } from "../support/http.ts"
import { servlet, viewerAndBroker } from "./support.ts"

/** What a user sees of each annotation of an XFDF file: type, page, rectangle, colour, author. */
const annotationsOf = (xfdf: string) => {
  const annots = /<annots>([\s\S]*?)<\/annots>|<annots\/>/.exec(xfdf)
  expect(annots, xfdf).not.toBeNull()
  return [...(annots![1] ?? "").matchAll(/<(\w+)\s([^>]*?)\/?>/g)]
    .filter(([, element]) => element !== "contents")
    .map(([, element, attributes]) => {
      const attribute = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(` ${attributes}`)?.[1]
      return {
        element,
        page: attribute("page"),
        rect: attribute("rect")?.split(",").map((n) => Number(Number(n).toFixed(2))),
        color: attribute("color"),
        title: attribute("title")
      }
    })
}

const importFile = (uuid: string, bytes: Uint8Array, name = "annotations.xfdf") => {
  const form = new FormData()
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), name)
  return servlet(`servletXFDFAnnotations?uuid=${uuid}`, { method: "POST", body: form })
}

describe("servletXFDFAnnotations", () => {
  it.layer(viewerAndBroker(), { timeout: 120_000 })((it) => {
    it.effect("exports a PDF's annotations, imports them into another document, which exports the same", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const annotated = yield* uploadOk(broker, corpusFile("pdf/annotation-highlight.pdf"))
        const exported = yield* servlet(`servletXFDFAnnotations?uuid=${annotated}`)
        expect(exported.status).toBe(200)
        expect(exported.contentType).toContain("application/vnd.adobe.xfdf")
        const original = annotationsOf(exported.text)
        expect(original.length).toBeGreaterThan(0)
        expect(original.every((a) => a.element === "highlight" && a.page === "0" && a.rect?.length === 4)).toBe(true)

        const other = yield* uploadOk(broker, corpusFile("pdf/basicapi.pdf"))
        const empty = yield* servlet(`servletXFDFAnnotations?uuid=${other}`)
        expect(empty.status).toBe(200)
        expect(empty.text).toContain(`<xfdf xmlns="http://ns.adobe.com/xfdf/"`)
        expect(annotationsOf(empty.text)).toEqual([])

        // Named by content, not by its file name.
        const imported = yield* importFile(other, exported.bytes, "annotations.fdf")
        expect(imported.status, imported.text).toBe(200)
        expect(imported.text).toBe("OK")
        const again = yield* servlet(`servletXFDFAnnotations?uuid=${other}`)
        expect(annotationsOf(again.text)).toEqual(original)

        // Its own export sent back changes what it names, adds nothing.
        expect((yield* importFile(other, again.bytes)).status).toBe(200)
        expect(annotationsOf((yield* servlet(`servletXFDFAnnotations?uuid=${other}`)).text)).toEqual(original)
      }))

    it.effect("type=FDF exports FDF, and an FDF file imports as the same annotations", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const annotated = yield* uploadOk(broker, corpusFile("pdf/annotation-highlight.pdf"))
        const original = annotationsOf((yield* servlet(`servletXFDFAnnotations?uuid=${annotated}`)).text)
        const fdf = yield* servlet(`servletXFDFAnnotations?uuid=${annotated}&type=FDF`)
        expect(fdf.status).toBe(200)
        expect(fdf.contentType).toContain("application/vnd.fdf")
        expect(fdf.text.startsWith("%FDF-")).toBe(true)

        const target = yield* uploadOk(broker, corpusFile("pdf/tracemonkey.pdf"))
        const imported = yield* importFile(target, fdf.bytes, "annotations.xfdf")
        expect(imported.status, imported.text).toBe(200)
        expect(annotationsOf((yield* servlet(`servletXFDFAnnotations?uuid=${target}`)).text)).toEqual(original)

        const none = yield* servlet(
          `servletXFDFAnnotations?uuid=${yield* uploadOk(broker, corpusFile("pdf/basicapi.pdf"))}&type=FDF`
        )
        expect(none.status).toBe(200)
        expect(none.text.startsWith("%FDF-")).toBe(true)
      }))

    it.effect("refuses a missing uuid or file, an unreadable file, a page the document lacks; 404 for an unknown document", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const id = yield* uploadOk(broker, corpusFile("pdf/basicapi.pdf"))
        const xfdf = new TextEncoder().encode(
          `<?xml version="1.0"?><xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>` +
            `<square page="7" rect="10,10,50,50" color="#FF0000" title="ann"/></annots></xfdf>`
        )
        expect((yield* servlet("servletXFDFAnnotations")).status).toBe(400)
        expect((yield* importFile("", xfdf)).status).toBe(400)
        const noFile = yield* servlet(`servletXFDFAnnotations?uuid=${id}`, { method: "POST", body: new FormData() })
        expect(noFile.status).toBe(400)
        const garbage = yield* importFile(id, new TextEncoder().encode("not an annotation file"))
        expect(garbage.status).toBe(400)
        expect(garbage.json.message).toContain("neither XFDF nor FDF")
        const pastEnd = yield* importFile(id, xfdf)
        expect(pastEnd.status).toBe(400)
        expect(pastEnd.json.message).toContain("page 7")
        // Nothing was applied.
        expect(annotationsOf((yield* servlet(`servletXFDFAnnotations?uuid=${id}`)).text)).toEqual([])

        expect((yield* servlet("servletXFDFAnnotations?uuid=b64_nothing")).status).toBe(404)
        expect((yield* importFile("b64_nothing", xfdf)).status).toBe(404)
      }))
  })
})
