/**
 * Composite documents (emails, MSG, ZIP) as a client sees them: containers with children, part IDs
 * that behave as documents, and every rule of the spec's part ID table.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { zipSync } from "fflate"
import { execFileSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { CORPUS, defaultBackend } from "../../support/backends.ts"
import { loopingCompoundFile } from "../../support/compound-files.ts"
import { call, corpusFile, pngSize, upload, uploadOk } from "../../support/http.ts"

const PREFIX = "com.docstack.viewer.client.api.document."

/** Text of each page of a PDF, as poppler extracts it. */
const pdfPageTexts = (pdf: Uint8Array) => {
  const dir = mkdtempSync(path.join(tmpdir(), "docstack-pdf-"))
  const file = path.join(dir, "file.pdf")
  writeFileSync(file, pdf)
  return execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" }).split("\f").slice(0, -1)
}

layer(brokerTestLayer({ ...defaultBackend.config, RENDER_WORKER_HEAP_MB: "256" }), { timeout: 120_000 })(
  "composite documents",
  (it) => {
    it.effect("an Outlook message whose compound-file chains loop is refused (400); the broker and its engine go on", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        // msgreader follows the looping chain without end: its worker thread runs out of memory and
        // is replaced; the broker itself is untouched.
        const reply = yield* upload(base, loopingCompoundFile("__substg1.0_0037001F"), "?documentTitle=looping.msg")
        expect(reply.status).toBe(400)
        expect(reply.json.message).toBe(
          "The Outlook message cannot be read: The PDF engine's worker stopped on this request: it ran out of memory"
        )
        // The health checks saw a worker stop; the next ones find the engine whole again.
        yield* call(`${base}/health/readiness`).pipe(
          Effect.filterOrFail((ready) => ready.status === 200),
          Effect.retry(Schedule.spaced("200 millis").pipe(Schedule.upTo("10 seconds")))
        )
        // Every worker of the engine still draws pages.
        const id = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
        for (const page of [0, 1, 2, 3]) {
          expect((yield* call(`${base}/documents/${id}/pages/${page}/image?pageImageDescription=IM_100_0`)).status)
            .toBe(200)
        }
        expect((yield* uploadOk(base, corpusFile("office/fake-email-attachment.msg"))).length).toBeGreaterThan(4)
      }))

    it.effect("ZIP with a folder: entries from 1, the folder takes an index and is expanded in place, no part 0", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, corpusFile("office/all.windows.zip"), "?documentTitle=all.windows.zip")
        const layout = (yield* call(`${base}/documents/${id}/layout`)).json
        expect(layout).toEqual({
          type: `${PREFIX}DocumentContainer`,
          documentId: id,
          documentTitle: "all.windows.zip",
          mimeType: "application/zip",
          children: [
            { type: `${PREFIX}DocumentReference`, documentId: `${id}/1`, documentTitle: "Hello.txt", mimeType: null },
            {
              type: `${PREFIX}DocumentContainer`,
              documentId: `${id}/2`,
              documentTitle: "images",
              mimeType: null,
              children: [{
                type: `${PREFIX}DocumentReference`,
                documentId: `${id}/3`,
                documentTitle: "smile.gif",
                mimeType: null
              }]
            }
          ]
        })
        // Parts behave as documents: a text file and a GIF, each with its own layout, pages and file.
        const hello = (yield* call(`${base}/documents/${id}@1/layout`)).json
        expect(hello.type).toBe(`${PREFIX}DocumentPageLayout`)
        expect(hello.mimeType).toBe("text/plain")
        expect(hello.pageDimensionsList.length).toBe(1)
        const helloText = (yield* call(`${base}/documents/${id}@1/pages/0/text/position`)).json
        expect(helloText.positionTextList.map((t: { text: string }) => t.text).join(" ")).toContain("Hello World")
        expect((yield* call(`${base}/documents/${id}@1/file`)).text).toBe(
          execFileSync("unzip", ["-p", path.join(corpusPath(), "all.windows.zip"), "Hello.txt"], { encoding: "utf8" })
        )
        const smile = (yield* call(`${base}/documents/${id}@3/layout`)).json
        expect(smile.mimeType).toBe("image/gif")
        expect(
          pngSize((yield* call(`${base}/documents/${id}@3/pages/0/image?pageImageDescription=IM_100_0`)).bytes).width
        ).toBe(100)
        // The folder is a container too.
        expect(
          (yield* call(`${base}/documents/${id}@2/layout`)).json.children.map((c: { documentId: string }) =>
            c.documentId
          )
        ).toEqual([`${id}/3`])

        expect((yield* call(`${base}/documents/${id}@0/layout`)).status).toBe(404)
        expect((yield* call(`${base}/documents/${id}@4/layout`)).status).toBe(404)
        expect((yield* call(`${base}/documents/${id}@1@1/layout`)).status).toBe(404)
        // A part's ID as the layout lists it, with slashes, is no URL: the answer says to use '@'.
        const slashes = yield* call(`${base}/documents/${id}/1/layout`)
        expect(slashes.status).toBe(404)
        expect(slashes.json.message).toContain(`/documents/b64_x@1/`)
        expect((yield* call(`${base}/documents/${id}%2F1/layout`)).status).toBe(400)
      }))

    it.effect("a page image or text of a container is a 500 with a message; its PDF merges the parts in layout order", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, corpusFile("office/all.windows.zip"))
        const image = yield* call(`${base}/documents/${id}/pages/0/image`)
        expect(image.status).toBe(500)
        expect(image.json.message).toContain("composite")
        expect((yield* call(`${base}/documents/${id}@2/pages/0/image`)).status).toBe(500)
        expect((yield* call(`${base}/documents/${id}/pages/0/text/position`)).status).toBe(500)

        const merged = yield* call(`${base}/documents/${id}/file?format=pdf`)
        expect(merged.status).toBe(200)
        expect(merged.contentType).toBe("application/pdf")
        const pages = pdfPageTexts(merged.bytes)
        // Hello.txt (one page of text), then the GIF (one page, no text).
        expect(pages).toHaveLength(2)
        expect(pages[0]).toContain("Hello World")
        expect(pages[1]!.trim()).toBe("")
        // A folder's PDF holds only its own parts.
        expect(pdfPageTexts((yield* call(`${base}/documents/${id}@2/file?format=pdf`)).bytes)).toHaveLength(1)
        // The original archive is still there to download.
        expect(
          Buffer.compare((yield* call(`${base}/documents/${id}/file`)).bytes, corpusFile("office/all.windows.zip"))
        ).toBe(0)
      }))

    it.effect("a ZIP inside a ZIP is a part that is a container in turn, at any depth", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const inner = zipSync({ "deep.txt": new TextEncoder().encode("deep inside") })
        const middle = zipSync({ "inner.zip": inner, "note.txt": new TextEncoder().encode("middle note") })
        const id = yield* uploadOk(base, zipSync({ "middle.zip": middle }))
        const root = (yield* call(`${base}/documents/${id}/layout`)).json
        expect(root.children).toEqual([{
          type: `${PREFIX}DocumentReference`,
          documentId: `${id}/1`,
          documentTitle: "middle.zip",
          mimeType: null
        }])
        const second = (yield* call(`${base}/documents/${id}@1/layout`)).json
        expect(second.type).toBe(`${PREFIX}DocumentContainer`)
        expect(
          second.children.map((c: { documentId: string; documentTitle: string }) => [c.documentId, c.documentTitle])
        ).toEqual([
          [`${id}/1/1`, "inner.zip"],
          [`${id}/1/2`, "note.txt"]
        ])
        const third = (yield* call(`${base}/documents/${id}@1@1/layout`)).json
        expect(third.children[0].documentId).toBe(`${id}/1/1/1`)
        const deep = yield* call(`${base}/documents/${id}@1@1@1/pages/0/text/position`)
        expect(deep.json.positionTextList.map((t: { text: string }) => t.text).join(" ")).toContain("deep inside")
        // The whole tree in one PDF, depth first.
        const pages = pdfPageTexts((yield* call(`${base}/documents/${id}/file?format=pdf`)).bytes)
        expect(pages.map((p) => p.trim())).toEqual(["deep inside", "middle note"])

        const nested = yield* uploadOk(base, corpusFile("office/nested.zip"))
        const nestedLayout = (yield* call(`${base}/documents/${nested}/layout`)).json
        expect(nestedLayout.children.map((c: { documentTitle: string }) => c.documentTitle)).toEqual([
          "Hello.txt",
          "zip_within_zip.zip"
        ])
        expect((yield* call(`${base}/documents/${nested}@2/layout`)).json.type).toBe(`${PREFIX}DocumentContainer`)
      }))

    it.effect("an email: part 0 is the message with its headers, attachments from 1", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, corpusFile("office/fake-email-attachment.eml"))
        const layout = (yield* call(`${base}/documents/${id}/layout`)).json
        expect(layout.type).toBe(`${PREFIX}DocumentContainer`)
        expect(layout.mimeType).toBe("message/rfc822")
        expect(layout.children.map((c: { documentId: string }) => c.documentId)).toEqual([`${id}/0`, `${id}/1`])
        expect(layout.children[1].documentTitle).toBe("fake-attachment.txt")
        const body = (yield* call(`${base}/documents/${id}@0/layout`)).json
        expect(body.type).toBe(`${PREFIX}DocumentPageLayout`)
        const bodyText = (yield* call(`${base}/documents/${id}@0/pages/0/text/position`)).json.positionTextList
          .map((t: { text: string }) => t.text).join(" ")
        expect(bodyText).toContain("Fake email with attachment")
        expect(bodyText).toContain("Mallori Harrell")
        expect(bodyText).toContain("Here's the attachments")
        const search = (yield* call(`${base}/documents/${id}@0/search?fromPage=0&searchText=whitespace`)).json
        expect(Object.keys(search.pagesResults)).toEqual(["0"])
        expect((yield* call(`${base}/documents/${id}@1/layout`)).json.type).toBe(`${PREFIX}DocumentPageLayout`)
        expect((yield* call(`${base}/documents/${id}@2/layout`)).status).toBe(404)
      }))

    it.effect("Outlook messages list their attachments and show Cc", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const withAttachment = yield* uploadOk(base, corpusFile("office/fake-email-attachment.msg"))
        const layout = (yield* call(`${base}/documents/${withAttachment}/layout`)).json
        expect(layout.children.map((c: { documentTitle: string }) => c.documentTitle).slice(1)).toEqual([
          "fake-attachment.txt"
        ])
        const cc = yield* uploadOk(base, corpusFile("office/fake-email-with-cc-and-bcc.msg"))
        const ccBody = (yield* call(`${base}/documents/${cc}@0/pages/0/text/position`)).json.positionTextList.map((
          t: { text: string }
        ) => t.text).join(" ")
        expect(ccBody).toMatch(/Cc/)
        const meta = (yield* call(`${base}/documents/${cc}`)).json
        expect(meta.format).toBe("msg")
      }))

    it.effect("an archive over a limit or a broken one is refused at upload with a 400 and a message", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const broken = corpusFile("office/all.windows.zip").subarray(0, 120)
        const reply = yield* upload(base, broken, "?documentTitle=broken.zip")
        expect(reply.status).toBe(400)
        expect(reply.json.message.length).toBeGreaterThan(10)
        // A broken archive inside a good one: the outer one opens; the inner part answers 500, every time.
        const outer = yield* uploadOk(
          base,
          zipSync({ "inner.zip": broken, "fine.txt": new TextEncoder().encode("fine") })
        )
        const first = yield* call(`${base}/documents/${outer}@1/layout`)
        expect(first.status).toBe(500)
        expect(first.json.message.length).toBeGreaterThan(10)
        // The same answer again, but for the error identifier that each answer and its log line get.
        const again = (yield* call(`${base}/documents/${outer}@1/layout`)).json
        expect({ ...again, errorId: first.json.errorId }).toEqual(first.json)
        expect(again.errorId).not.toBe(first.json.errorId)
        expect((yield* call(`${base}/documents/${outer}@2/layout`)).status).toBe(200)
      }))

    it.effect("an email attached to an email is listed as message/rfc822 and resolves to a text/plain page layout", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const inner = [
          "From: Inner Sender <inner@example.org>",
          "To: someone@example.org",
          "Subject: The forwarded quarterly note",
          "Date: Mon, 2 Jan 2023 10:00:00 +0000",
          "Content-Type: text/plain; charset=utf-8",
          "",
          "Figures are attached to the original."
        ].join("\r\n")
        const outer = [
          "From: Outer <outer@example.org>",
          "To: reader@example.org",
          "Subject: Fwd: quarterly",
          "Date: Tue, 3 Jan 2023 09:00:00 +0000",
          "MIME-Version: 1.0",
          "Content-Type: multipart/mixed; boundary=\"b1\"",
          "",
          "--b1",
          "Content-Type: text/plain; charset=utf-8",
          "",
          "See the message below.",
          "--b1",
          "Content-Type: message/rfc822",
          "Content-Disposition: attachment; filename=\"note.eml\"",
          "",
          inner,
          "--b1--",
          ""
        ].join("\r\n")
        const id = yield* uploadOk(base, new TextEncoder().encode(outer), "?documentTitle=fwd.eml")
        const layout = (yield* call(`${base}/documents/${id}/layout`)).json
        expect(layout.children[1]).toMatchObject({ documentId: `${id}/1`, mimeType: "message/rfc822" })
        const attached = (yield* call(`${base}/documents/${id}@1/layout`)).json
        expect(attached.type).toBe(`${PREFIX}DocumentPageLayout`)
        expect(attached.mimeType).toBe("text/plain")
        const text = (yield* call(`${base}/documents/${id}@1/pages/0/text/position`)).json.positionTextList.map((
          t: { text: string }
        ) => t.text).join(" ")
        expect(text).toContain("The forwarded quarterly note")
        expect(text).toContain("Figures are attached to the original.")
      }))

    it.effect("the part of a document that is not composite is a 404; DELETE of the root removes the parts", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, corpusFile("office/all.windows.zip"))
        yield* call(`${base}/documents/${id}@1/layout`)
        expect((yield* call(`${base}/documents/${id}@1@1/layout`)).status).toBe(404)
        expect((yield* call(`${base}/documents/${id}`, { method: "DELETE" })).status).toBe(200)
        expect((yield* call(`${base}/documents/${id}@1/layout`)).status).toBe(404)
      }))
  }
)

const corpusPath = () => path.join(CORPUS, "office")
