/**
 * The annotations of documents opened through the reference provider, which keeps them: the
 * annotations routes through the broker's proxy (an annotation of another shape in the provider's
 * file skipped and counted; a folder's IDs naming their file), and the annotation servlets
 * (servletXFDFAnnotations, downloadDocumentWithAnnotations) and transformations showing them.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { BrokerUrl } from "../../src/layers/Test.ts"
import { makeProviderRoot, openOk } from "../broker/providers/support.ts"
import { call, uploadOk } from "../support/http.ts"
import { annotationsCall, listed, pageText, processedOrder, square, transformed } from "./editing-support.ts"
import { servlet, viewerBrokerAndProvider } from "./support.ts"

const root = makeProviderRoot()
const keptFile = path.join(root, ".annotations", "tracemonkey.pdf.json")
const kept = () => JSON.parse(readFileSync(keptFile, "utf8")) as Array<Record<string, unknown>>

/** The first run of page 0 holding `text`, and its box. */
const runOf = (uuid: string, text: string) =>
  Effect.map(servlet(`pageContent?uuid=${uuid}&pagePosition=0`), (reply) => {
    const run = (reply.json.positionTextList as ReadonlyArray<{ text: string; position: any }>).find((r) =>
      r.text.includes(text)
    )
    expect(run).toBeDefined()
    return run!.position as { x: number; y: number; w: number; h: number }
  })

describe("annotations of provider-backed documents", () => {
  it.layer(viewerBrokerAndProvider(root), { timeout: 300_000 })((it) => {
    it.effect("kept by the provider: listed, created, changed and deleted through the broker's proxy", () =>
      Effect.gen(function*() {
        const opened = yield* servlet("uploadServlet?uuid=tracemonkey.pdf")
        expect(opened.status, opened.text).toBe(200)
        const id = opened.text
        expect(yield* listed(id)).toEqual({ annotations: [], store: "provider", skipped: 0 })

        const created = yield* annotationsCall("POST", id, {
          annotations: [
            square(1, { x: 100, y: 100, w: 80, h: 40 }, { creator: "Alice", origin: "file" }),
            { type: "Text", page: 0, position: { x: 10, y: 10, w: 20, h: 20 }, contents: "Hello", id: "ignored-id" }
          ]
        })
        expect(created.status, created.text).toBe(200)
        const [made, note] = created.json.annotations
        // The provider names them; the viewer dates them, as the broker does its own.
        expect(made.id).toMatch(/^an_/)
        expect(note.id).toMatch(/^an_/)
        expect(made).toMatchObject({ type: "Square", page: 1, creator: "Alice", position: { x: 100, y: 100 } })
        expect(made).not.toHaveProperty("origin")
        expect(Date.parse(made.date)).not.toBeNaN()
        expect(made.creationDate).toBe(made.date)
        expect(kept().map((a) => [a.id, a.type, a.page])).toEqual([[made.id, "Square", 1], [note.id, "Text", 0]])

        // Something the provider keeps that is no annotation of the viewer's shape is left out, counted.
        writeFileSync(keptFile, JSON.stringify([...kept(), { id: "an_scribble", type: "Scribble", page: 0 }]))
        const listing = yield* listed(id)
        expect(listing.store).toBe("provider")
        expect(listing.skipped).toBe(1)
        expect(listing.annotations.map((a) => a.id)).toEqual([made.id, note.id])

        const changed = yield* annotationsCall("PUT", id, { annotations: [{ ...made, contents: "Changed" }] })
        expect(changed.status, changed.text).toBe(200)
        expect(changed.json.annotations[0]).toMatchObject({
          id: made.id,
          contents: "Changed",
          creationDate: made.creationDate
        })
        expect(kept().find((a) => a.id === made.id)).toMatchObject({ contents: "Changed" })

        const removed = yield* annotationsCall("DELETE", id, { ids: [note.id] })
        expect([removed.status, removed.json]).toEqual([200, { ids: [note.id] }])
        expect(kept().map((a) => a.id)).toEqual([made.id, "an_scribble"])
        const unknown = yield* annotationsCall("DELETE", id, { ids: ["an_nothing"] })
        expect(unknown.status).toBe(404)
        const past = yield* annotationsCall("POST", id, { annotations: [square(99, { x: 1, y: 1, w: 5, h: 5 })] })
        expect(past.status).toBe(400)
      }))

    it.effect("a folder's annotations are named by their file, IDs with ':' reaching the provider intact", () =>
      Effect.gen(function*() {
        const folder = yield* openOk({ id: "case-42" }, { contentType: "application/json" })
        const created = yield* annotationsCall("POST", folder, { annotations: [square(4, { x: 5, y: 5, w: 9, h: 9 })] })
        expect(created.status, created.text).toBe(200)
        const made = created.json.annotations[0]
        expect(made.id).toMatch(/^\d+:an_/)
        const changed = yield* annotationsCall("PUT", folder, { annotations: [{ ...made, contents: "In a folder" }] })
        expect(changed.status, changed.text).toBe(200)
        expect(changed.json.annotations[0]).toMatchObject({ id: made.id, page: 4, contents: "In a folder" })
        expect((yield* annotationsCall("DELETE", folder, { ids: [made.id] })).status).toBe(200)
        expect((yield* listed(folder)).annotations).toEqual([])
      }))

    it.effect("the annotation servlets and transformations show the provider's annotations", () =>
      Effect.gen(function*() {
        const id = (yield* servlet("uploadServlet?uuid=tracemonkey.pdf")).text
        const title = yield* runOf(id, "Trace-based")
        const created = yield* annotationsCall("POST", id, {
          annotations: [
            square(1, { x: 100, y: 300, w: 80, h: 40 }, { contents: "Provider square" }),
            { type: "Redact", page: 0, position: title, redactReason: "PERSONAL_DATA" }
          ]
        })
        expect(created.status, created.text).toBe(200)

        // The XFDF export holds them, the redaction a mark.
        const xfdf = yield* servlet(`servletXFDFAnnotations?uuid=${id}`)
        expect(xfdf.status).toBe(200)
        expect(xfdf.text).toContain("Provider square")
        expect(xfdf.text).toMatch(/<redact\b/)

        // Downloaded with them: as annotation objects, the redaction applied for real.
        const broker = yield* BrokerUrl
        const embedded = yield* servlet(`downloadDocumentWithAnnotations?operationName=renderFDFAnnotations&uuid=${id}`)
        expect(embedded.status).toBe(200)
        expect(embedded.contentType).toBe("application/pdf")
        const reopened = yield* uploadOk(broker, embedded.bytes)
        const inFile = (yield* call(`${broker}/annotation?documentId=${reopened}`)).json.annotations
        // (The first test's square is on tracemonkey.pdf too.)
        expect(inFile.filter((a: any) => a.type === "Square").map((a: any) => [a.page, a.contents])).toContainEqual(
          [1, "Provider square"]
        )
        expect(yield* pageText(reopened, 0)).not.toContain("Trace-based")
        const flattened = yield* servlet(`downloadDocumentWithAnnotations?operationName=renderAnnotations&uuid=${id}`)
        expect(flattened.status).toBe(200)
        expect(yield* pageText(yield* uploadOk(broker, flattened.bytes), 0)).not.toContain("Trace-based")
        // The provider's document itself is untouched, and the copy gone.
        expect(yield* pageText(id, 0)).toContain("Trace-based")

        // A transformation carries them with their pages; with redact, it applies the mark.
        const started = yield* transformed({ parts: [{ uuid: id, pages: [{ from: 0, to: 1 }] }], redact: true })
        const result = (yield* processedOrder(id, "transformation", started.orderId)).result
        expect((yield* listed(result)).annotations.map((a) => [a.type, a.page, a.contents])).toContainEqual(
          ["Square", 1, "Provider square"]
        )
        expect(yield* pageText(result, 0)).not.toContain("Trace-based")
      }))

    it.effect("an XFDF file imported into it: the broker places each annotation, the provider keeps them", () =>
      Effect.gen(function*() {
        const id = (yield* servlet("uploadServlet?uuid=tracemonkey.pdf")).text
        const before = (yield* listed(id)).annotations.length
        const form = new FormData()
        const file = `<?xml version="1.0" encoding="UTF-8"?>
<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>
<square page="0" rect="100,600,200,700" name="from-elsewhere" title="Carol" color="#0000FF"><contents>Imported square</contents></square>
</annots></xfdf>`
        form.append("file", new Blob([file]), "review.xfdf")
        const imported = yield* servlet(`servletXFDFAnnotations?uuid=${id}`, { method: "POST", body: form })
        expect(imported.status, imported.text).toBe(200)
        const after = (yield* listed(id)).annotations
        expect(after).toHaveLength(before + 1)
        const square = after.find((a: any) => a.contents === "Imported square")!
        // PDF space (y up from the bottom of the 792-point page) turned into the displayed page's.
        expect(square).toMatchObject({ type: "Square", page: 0, creator: "Carol", color: { r: 0, g: 0, b: 255 } })
        expect(square.position.x).toBeCloseTo(100, 1)
        expect(square.position.y).toBeCloseTo(92, 1)
        expect(square.id).toMatch(/^an_/)
        expect(kept().some((a) => a.contents === "Imported square")).toBe(true)
      }))
  })
})
