/**
 * Annotations as a client of the broker sees them: create, list, change and delete them (the
 * broker's own and those of the PDF file), every field kept, the errors of the spec, the creation
 * policy (default and from a file), the XFDF export and the FDF ↔ XFDF conversion, annotated
 * downloads and printouts.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { zipSync } from "fflate"
import { execFileSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { PDFDocument } from "pdf-lib"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, uploadOk } from "../../support/http.ts"
import { json } from "./annotation-http-support.ts"

/** Every field a client can give, on one annotation of each kind that needs its own geometry. */
const highlight = {
  type: "Highlight",
  page: 0,
  position: { x: 72, y: 100, w: 200, h: 24 },
  quadPoints: [{ x: 72, y: 100, w: 200, h: 12 }, { x: 72, y: 112, w: 120, h: 12 }],
  color: { r: 255, g: 230, b: 0 },
  opacity: 0.5,
  creator: "Alice",
  subject: "Important",
  contents: "Check this",
  flags: { hidden: false, readonly: false, locked: true, print: true }
}
const note = {
  type: "Text",
  page: 1,
  position: { x: 300, y: 50, w: 20, h: 20 },
  color: { r: 255, g: 200, b: 0 },
  creator: "Bob",
  contents: "Is this right?",
  status: "Accepted",
  stampName: "Comment",
  replies: [{ id: "r1", creator: "Alice", date: "2026-11-20T10:00:00.000Z", contents: "Yes" }, {
    creator: "Bob",
    contents: "Thanks"
  }]
}
const ink = {
  type: "Ink",
  page: 0,
  position: { x: 100, y: 300, w: 100, h: 50 },
  inkList: [[{ x: 100, y: 300 }, { x: 150, y: 350 }, { x: 200, y: 300 }]],
  color: { r: 0, g: 0, b: 255 },
  lineWidth: 2
}
const line = {
  type: "Line",
  page: 0,
  position: { x: 50, y: 500, w: 100, h: 0 },
  points: [{ x: 50, y: 500 }, { x: 150, y: 500 }],
  interiorColor: { r: 255, g: 0, b: 0 }
}

const policyDir = mkdtempSync(path.join(tmpdir(), "docstack-policy-"))
const policyFile = path.join(policyDir, "policy.json")
writeFileSync(policyFile, JSON.stringify({ canCreateAnnotations: false, defaultRedactReasons: ["SECURITY"] }))

/** Small enough to be passed in a test, larger than the XFDF files the tests convert. */
const MAX_FILE_BYTES = 262_144

layer(
  brokerTestLayer({
    ...defaultBackend.config,
    ANNOTATION_POLICY_FILE: policyFile,
    ANNOTATION_FILE_MAX_BYTES: String(MAX_FILE_BYTES)
  }),
  { timeout: 180_000 }
)("annotations", (it) => {
  it.effect("PUT creates (ids given), GET lists every field back, POST replaces, DELETE removes; errors change nothing", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      const url = `${base}/annotation?documentId=${id}`
      expect((yield* call(url)).json).toEqual({ annotations: [] })

      const created = yield* call(url, json("PUT", { annotations: [highlight, note, ink, line] }))
      expect(created.status).toBe(200)
      expect(created.text).toBe("")
      const listed = (yield* call(url)).json.annotations as Array<any>
      expect(listed).toHaveLength(4)
      const [h, n, k, l] = listed
      expect(h).toMatchObject({ ...highlight, documentId: { id }, origin: "store" })
      expect(n).toMatchObject({ ...note, replies: [note.replies[0], { creator: "Bob", contents: "Thanks" }] })
      expect(k).toMatchObject(ink)
      // Flags a client left out show as the defaults: printed, nothing else.
      expect(k.flags).toEqual({ hidden: false, readonly: false, locked: false, print: true })
      expect(l).toMatchObject(line)
      for (const a of listed) {
        expect(a.id.id).toMatch(/^a_/)
        expect(Date.parse(a.date)).not.toBeNaN()
        expect(a.creationDate).toBe(a.date)
      }

      // POST: replaced by id; the creation date stays.
      const changed = {
        ...highlight,
        id: h.id,
        color: { r: 0, g: 255, b: 0 },
        contents: "Checked",
        date: "2026-11-24T12:00:00.000Z"
      }
      expect((yield* call(url, json("POST", { annotations: [changed] }))).status).toBe(200)
      const afterUpdate = ((yield* call(url)).json.annotations as Array<any>).find((a) => a.id.id === h.id.id)
      expect(afterUpdate).toMatchObject({
        color: { r: 0, g: 255, b: 0 },
        contents: "Checked",
        date: "2026-11-24T12:00:00.000Z",
        creationDate: h.creationDate
      })

      // An unknown id: 404, and the known one in the same body is not changed either.
      const unknown = yield* call(
        url,
        json("POST", { annotations: [{ ...changed, contents: "Lost" }, { ...ink, id: { id: "nope" } }] })
      )
      expect(unknown.status).toBe(404)
      expect(unknown.json).toMatchObject({ _tag: "AnnotationNotFound" })
      expect(((yield* call(url)).json.annotations as Array<any>).find((a) => a.id.id === h.id.id).contents).toBe(
        "Checked"
      )

      // Invalid data: 400 naming the problem, nothing stored.
      const badPage = yield* call(url, json("PUT", { annotations: [{ ...ink, page: 14 }] }))
      expect(badPage.status).toBe(400)
      expect(badPage.json.message).toContain("page 14 does not exist")
      const badLine = yield* call(url, json("PUT", { annotations: [{ ...line, points: [{ x: 1, y: 1 }] }] }))
      expect(badLine.status).toBe(400)
      expect(badLine.json.message).toContain("two ends")
      expect((yield* call(url, json("PUT", { annotations: [{ ...ink, color: { r: 300, g: 0, b: 0 } }] }))).status).toBe(
        400
      )
      const sticker = yield* call(url, json("PUT", { annotations: [{ ...ink, type: "Sticker" }] }))
      expect(sticker.status).toBe(400)
      // One sentence naming the types, not one issue per type.
      expect(sticker.json.message).toMatch(
        /^The request does not match the API: annotations\.0\.type: Expected one of "Highlight", .*"RedactText", actual "Sticker"$/
      )
      // Every problem of a body is named, not only the first.
      const twoBad = yield* call(
        url,
        json("PUT", {
          annotations: [{ ...ink, color: { r: 256, g: 0, b: 0 }, opacity: 2 }, { ...ink, page: 40, inkList: [] }]
        })
      )
      expect(twoBad.status).toBe(400)
      expect(twoBad.json.message).toContain("color.r")
      expect(twoBad.json.message).toContain("opacity")
      const pageAndStrokes = yield* call(url, json("PUT", { annotations: [{ ...ink, page: 40, inkList: [] }] }))
      expect(pageAndStrokes.json.message).toMatch(/page 40 does not exist.*needs inkList/)
      const badReason = yield* call(
        url,
        json("PUT", { annotations: [{ type: "Redact", page: 0, position: ink.position, redactReason: "XYZ" }] })
      )
      expect(badReason.status).toBe(400)
      expect(badReason.json.message).toContain("redactReason 'XYZ' is not one of the policy's (PERSONAL_DATA")
      expect((yield* call(url)).json.annotations).toHaveLength(4)

      // DELETE by id: the id is all it needs; a full annotation is taken too.
      expect((yield* call(url, json("DELETE", { annotations: [{ id: k.id }] }))).status).toBe(200)
      expect(((yield* call(url)).json.annotations as Array<any>).map((a) => a.type)).toEqual([
        "Highlight",
        "Text",
        "Line"
      ])
      expect(
        (yield* call(
          url,
          json("DELETE", { annotations: [{ id: k.id, type: "Ink", page: 0, position: ink.position }] })
        )).status
      ).toBe(404)

      // Unknown document, missing documentId.
      for (
        const [method, body] of [["GET", undefined], ["PUT", { annotations: [ink] }], ["POST", { annotations: [] }], [
          "DELETE",
          { annotations: [] }
        ]] as const
      ) {
        const reply = yield* call(
          `${base}/annotation?documentId=b64_missing`,
          body === undefined ? { method } : json(method, body)
        )
        expect(reply.status).toBe(404)
        expect(reply.json._tag).toBe("DocumentNotFound")
      }
      expect((yield* call(`${base}/annotation`)).status).toBe(400)

      // A deleted document takes its annotations with it, and so does a composite one those of its parts.
      expect((yield* call(`${base}/documents/${id}`, { method: "DELETE" })).status).toBe(200)
      const again = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"), `?documentId=${id}`)
      expect((yield* call(`${base}/annotation?documentId=${again}`)).json).toEqual({ annotations: [] })
      const archive = zipSync({ "paper.pdf": corpusFile("pdf/tracemonkey.pdf") })
      const zipId = yield* uploadOk(base, archive, `?documentId=${id}-zip`)
      const partUrl = `${base}/annotation?documentId=${zipId}@1`
      expect((yield* call(partUrl, json("PUT", { annotations: [ink] }))).status).toBe(200)
      expect((yield* call(partUrl)).json.annotations).toHaveLength(1)
      expect((yield* call(`${base}/documents/${zipId}`, { method: "DELETE" })).status).toBe(200)
      yield* uploadOk(base, archive, `?documentId=${id}-zip`)
      expect((yield* call(partUrl)).json).toEqual({ annotations: [] })
    }))

  it.effect("the PDF's own annotations are listed, and can be changed and deleted without touching the file", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("pdf/annotation-highlight.pdf"))
      const url = `${base}/annotation?documentId=${id}`
      const listed = (yield* call(url)).json.annotations as Array<any>
      expect(listed.length).toBeGreaterThan(0)
      for (const a of listed) {
        expect(a).toMatchObject({ type: "Highlight", origin: "file", documentId: { id } })
        expect(a.quadPoints.length).toBeGreaterThan(0)
      }
      const [first, ...rest] = listed
      // A download with the annotations holds each once: the file's own are not added again.
      const inDownload = (query: string) =>
        call(`${base}/documents/${id}/file?format=pdf&annotations=${query}`).pipe(
          Effect.flatMap((download) => uploadOk(base, download.bytes)),
          Effect.flatMap((copy) => call(`${base}/annotation?documentId=${copy}`)),
          Effect.map((reply) => (reply.json.annotations as Array<any>).map((a) => [a.type, a.contents ?? null]))
        )
      expect(yield* inDownload("embed")).toEqual(listed.map((a) => [a.type, a.contents ?? null]))
      expect((yield* call(url, json("POST", { annotations: [{ ...first, contents: "Seen" }] }))).status).toBe(200)
      const updated = (yield* call(url)).json.annotations as Array<any>
      expect(updated.find((a) => a.id.id === first.id.id)).toMatchObject({ contents: "Seen", origin: "file" })
      expect((yield* call(url, json("DELETE", { annotations: [first] }))).status).toBe(200)
      expect(((yield* call(url)).json.annotations as Array<any>).map((a) => a.id.id)).toEqual(rest.map((a) => a.id.id))
      // The deleted one is gone from downloads too, and the edit shows in place of the original.
      expect(yield* inDownload("embed")).toEqual(rest.map((a) => [a.type, a.contents ?? null]))
      const flattened = (yield* call(`${base}/documents/${id}/file?format=pdf&annotations=flatten`)).bytes
      expect((yield* call(`${base}/annotation?documentId=${yield* uploadOk(base, flattened)}`)).json.annotations)
        .toEqual([])
      // The file itself is unchanged.
      const original = yield* call(`${base}/documents/${id}/file`)
      expect(Buffer.compare(original.bytes, corpusFile("pdf/annotation-highlight.pdf"))).toBe(0)
    }))

  it.effect("policy: the configured file over the defaults; 404 for an unknown document", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      const policy = (yield* call(`${base}/annotation/policy?documentId=${id}`)).json
      expect(policy.canCreateAnnotations).toBe(false)
      expect(policy.defaultRedactReasons).toEqual(["SECURITY"])
      expect(policy.availableRedactReasons.map((r: { symbolicName: string }) => r.symbolicName)).toContain(
        "PERSONAL_DATA"
      )
      expect(policy.annotationTemplateCatalog.annotationTemplates.length).toBeGreaterThan(0)
      expect(policy.annotationCreationRuleCatalog.annotationCreationRules[0].searchOptions.searchAction).toBe(
        "ALL_PAGES"
      )
      expect((yield* call(`${base}/annotation/policy?documentId=b64_missing`)).status).toBe(404)
    }))

  it.effect("XFDF export (404 without annotations) and FDF ↔ XFDF conversion keep every annotation", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      const exportUrl = `${base}/documents/${id}/file/annotations`
      const none = yield* call(exportUrl)
      expect(none.status).toBe(404)
      expect(none.json._tag).toBe("AnnotationNotFound")
      yield* call(`${base}/annotation?documentId=${id}`, json("PUT", { annotations: [highlight, note, ink, line] }))
      const xfdf = yield* call(exportUrl)
      expect(xfdf.status).toBe(200)
      expect(xfdf.contentType).toContain("application/vnd.adobe.xfdf")
      expect(xfdf.text).toContain("<highlight")
      expect(xfdf.text).toContain("Check this")
      expect(xfdf.text).toContain("<ink")

      const convert = (
        source: string,
        target: string,
        body: Uint8Array,
        headers: Record<string, string> = { accept: "*/*", "content-type": "application/octet-stream" }
      ) =>
        call(`${base}/annotations/conversion?sourceType=${source}&targetType=${target}&documentId=${id}`, {
          method: "POST",
          headers,
          body: body as Uint8Array<ArrayBuffer>
        })
      const fdf = yield* convert("XFDF", "FDF", xfdf.bytes)
      expect(fdf.status).toBe(200)
      expect(fdf.contentType).toContain("application/vnd.fdf")
      expect(fdf.text.startsWith("%FDF-")).toBe(true)
      const back = yield* convert("FDF", "XFDF", fdf.bytes)
      expect(back.status).toBe(200)
      // The same annotations, field for field: the XFDF made from the FDF equals the exported one, ignoring formatting.
      const normalised = (text: string) => text.replace(/>\s+</g, "><").replace(/\s+/g, " ").trim()
      expect(normalised(back.text)).toBe(normalised(xfdf.text))

      expect((yield* convert("XFDF", "PDF", xfdf.bytes)).status).toBe(400)
      // No Accept header (fetch always sends one, so node:http): 400.
      const withoutAccept = yield* Effect.promise(() =>
        new Promise<number>((resolve, reject) => {
          const request = http.request(
            `${base}/annotations/conversion?sourceType=XFDF&targetType=FDF&documentId=${id}`,
            {
              method: "POST",
              headers: { "content-type": "application/octet-stream" }
            },
            (response) => {
              response.resume()
              resolve(response.statusCode ?? 0)
            }
          )
          request.on("error", reject)
          request.end(xfdf.bytes)
        })
      )
      expect(withoutAccept).toBe(400)
      for (const type of ["text/xml", "application/xml"]) {
        expect((yield* convert("XFDF", "FDF", xfdf.bytes, { accept: "*/*", "content-type": type })).status).toBe(400)
      }
      // Past ANNOTATION_FILE_MAX_BYTES: refused, however well-formed the file would be.
      const tooLarge = yield* convert("XFDF", "FDF", new Uint8Array(MAX_FILE_BYTES + 1).fill(0x20))
      expect(tooLarge.status).toBe(400)
      expect(tooLarge.json.message).toContain("ANNOTATION_FILE_MAX_BYTES")
      const hostile = new TextEncoder().encode(
        `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><xfdf xmlns="http://ns.adobe.com/xfdf/"><annots><text page="0" rect="0,0,1,1"><contents>&e;</contents></text></annots></xfdf>`
      )
      const refused = yield* convert("XFDF", "FDF", hostile)
      expect(refused.status).toBe(400)
      expect(refused.text).not.toContain("root:")
      const missing = yield* call(
        `${base}/annotations/conversion?sourceType=XFDF&targetType=FDF&documentId=b64_missing`,
        {
          method: "POST",
          headers: { accept: "*/*", "content-type": "application/octet-stream" },
          body: xfdf.bytes as Uint8Array<ArrayBuffer>
        }
      )
      expect(missing.status).toBe(404)
    }))

  it.effect("downloads: annotations embedded as objects or drawn in; a printout draws them; redactions applied for real", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
      const stamp = {
        type: "Stamp",
        page: 0,
        position: { x: 400, y: 40, w: 150, h: 40 },
        stampName: "Approved",
        contents: "APPROVED",
        color: { r: 0, g: 128, b: 0 }
      }
      // The title's first word on page 0 of the paper, "Trace-based".
      const text = (yield* call(`${base}/documents/${id}/pages/0/text/position`)).json.positionTextList as Array<
        { text: string; individualWidths: Array<number>; position: { x: number; y: number; w: number; h: number } }
      >
      const run = text.find((t) => t.text.includes("Trace-based"))!
      const start = run.text.indexOf("Trace-based")
      const sum = (from: number, to: number) => run.individualWidths.slice(from, to).reduce((a, b) => a + b, 0)
      const word = {
        x: run.position.x + sum(0, start),
        y: run.position.y,
        w: sum(start, start + "Trace-based".length),
        h: run.position.h
      }
      const redaction = { type: "Redact", page: 0, position: word }
      yield* call(`${base}/annotation?documentId=${id}`, json("PUT", { annotations: [stamp, redaction] }))

      const embedded = yield* call(`${base}/documents/${id}/file?format=pdf&annotations=embed`)
      expect(embedded.status).toBe(200)
      const pdf = yield* Effect.promise(() => PDFDocument.load(embedded.bytes))
      expect(pdf.getPageCount()).toBe(14)
      expect(pdf.getPage(0).node.Annots()?.size() ?? 0).toBeGreaterThan(0)

      const printable = yield* call(`${base}/documents/${id}/printable`)
      expect(printable.status).toBe(200)
      const dir = mkdtempSync(path.join(tmpdir(), "docstack-print-"))
      for (const [name, bytes] of [["embedded.pdf", embedded.bytes], ["printable.pdf", printable.bytes]] as const) {
        writeFileSync(path.join(dir, name), bytes)
        const page0 = execFileSync("pdftotext", ["-f", "1", "-l", "1", path.join(dir, name), "-"], { encoding: "utf8" })
        expect(page0).not.toContain("Trace-based")
        expect(page0).toContain("Just-in-Time")
      }
      const printed = execFileSync("pdftotext", ["-f", "1", "-l", "1", path.join(dir, "printable.pdf"), "-"], {
        encoding: "utf8"
      })
      expect(printed).toContain("APPROVED")
      const printablePdf = yield* Effect.promise(() => PDFDocument.load(printable.bytes))
      expect(printablePdf.getPage(0).node.Annots()?.size() ?? 0).toBe(0)

      expect((yield* call(`${base}/documents/${id}/printable?annotations=none`)).bytes.byteLength).toBe(
        corpusFile("pdf/tracemonkey.pdf").byteLength
      )
      expect((yield* call(`${base}/documents/${id}/file?format=compressed&annotations=embed`)).status).toBe(400)
    }))
})
