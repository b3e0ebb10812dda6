/**
 * Emails (.eml) and Outlook messages (.msg) as composite documents: part 0 the message as a safe
 * UTF-8 HTML page, attachments from 1, an attached email as a text rendering. Corpus messages and
 * messages written here, against the real file-system BlobStore in a fresh data directory.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { PdfEngineLive } from "../../../src/layers/Broker.ts"
import { expandEmail } from "../../../src/services/broker/composite/Email.ts"
import type { PartEntry, PartFile } from "../../../src/services/broker/composite/Parts.ts"
import { BlobStore } from "../../../src/services/common/BlobStore.ts"
import { StorageConfig } from "../../../src/services/common/StorageConfig.ts"
import { CORPUS } from "../../support/backends.ts"

const OFFICE = path.join(CORPUS, "office")
const dataDir = mkdtempSync(path.join(tmpdir(), "docstack-email-"))
const scratch = mkdtempSync(path.join(tmpdir(), "docstack-email-files-"))

/** The blob store and the PDF engine (messages are read in its worker threads), as the broker has them. */
const ServicesLive = Layer.mergeAll(BlobStore.FileSystemLive, PdfEngineLive).pipe(
  Layer.provide(StorageConfig.Default),
  Layer.provide(NodeContext.layer),
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["DATA_DIR", dataDir]]))))
)

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const write = (name: string, text: string) => {
  const file = path.join(scratch, name)
  writeFileSync(file, text.replace(/\r?\n/g, "\r\n"))
  return file
}

const files = (parts: ReadonlyArray<PartEntry>): ReadonlyArray<PartFile> =>
  parts.map((part) => {
    if (part.kind !== "file") throw new Error("an email has no folders")
    return part
  })

/** Name, type and size of each part, in order. */
const listing = (parts: ReadonlyArray<PartEntry>) =>
  files(parts).map((part) => [part.index, part.name, part.mimeType, part.size])

const text = (part: PartFile | undefined) =>
  Effect.gen(function*() {
    const blobs = yield* BlobStore
    return new TextDecoder().decode(yield* Effect.orDie(blobs.read(part!.hash)))
  })

const expand = (file: string, format: "eml" | "msg") =>
  Effect.gen(function*() {
    const parts = files(yield* expandEmail(file, format))
    return { parts, page: yield* text(parts[0]) }
  })

/** A complete UTF-8 HTML page, as part 0 must be. */
const expectPage = (page: string) => {
  expect(page.startsWith("<!DOCTYPE html>")).toBe(true)
  expect(page).toContain(`<meta charset="utf-8">`)
  expect(page.trimEnd().endsWith("</html>")).toBe(true)
}

layer(ServicesLive, { timeout: 120_000 })("expandEmail", (it) => {
  describe("the corpus messages", () => {
    it.effect("fake-email-attachment.eml: the body page, then the text attachment", () =>
      Effect.gen(function*() {
        const { parts, page } = yield* expand(path.join(OFFICE, "fake-email-attachment.eml"), "eml")
        expect(listing(parts)).toEqual([
          [0, "Fake email with attachment", "text/html", parts[0]!.size],
          [1, "fake-attachment.txt", "text/plain", 30]
        ])
        expect(yield* text(parts[1])).toBe("Hey this is a fake attachment!")
        expectPage(page)
        expect(page).toContain("Mallori Harrell &lt;mallori@unstructured.io&gt;")
        expect(page).toContain("<title>Fake email with attachment</title>")
        expect(page).toMatch(/<th[^>]*>Subject:<\/th><td[^>]*>Fake email with attachment<\/td>/)
        expect(page).toContain("Fri, 23 Dec 2022 12:08:48 -0600")
        expect(page).toContain("Lots of whitespace") // the HTML body, not the text one
        expect(page).toContain(`<li style="margin-left:15px">`)
      }))

    it.effect("email-with-image.eml: the logo is an attachment (the body does not show it), not inlined", () =>
      Effect.gen(function*() {
        const source = readFileSync(path.join(OFFICE, "email-with-image.eml"), "latin1")
        const base64 = /X-Attachment-Id: \S+\r?\nContent-ID: <[^>]+>\r?\n\r?\n([\s\S]*?)\r?\n--/.exec(source)![1]!
        const logo = Buffer.from(base64.replace(/\s+/g, ""), "base64")
        const { parts, page } = yield* expand(path.join(OFFICE, "email-with-image.eml"), "eml")
        expect(listing(parts)).toEqual([
          [0, "email-with-image", "text/html", parts[0]!.size],
          [1, "unstructured_logo.png", "image/png", logo.length]
        ])
        expect(parts[1]!.hash).toBe(sha256(logo))
        expect(page).toContain("The unstructured logo is attached to this email.")
        expect(page).not.toContain("data:image")
      }))

    it.effect("fake-email-attachment.msg: the same message from Outlook, body from its HTML property", () =>
      Effect.gen(function*() {
        const { parts, page } = yield* expand(path.join(OFFICE, "fake-email-attachment.msg"), "msg")
        expect(listing(parts)).toEqual([
          [0, "Fake email with attachment", "text/html", parts[0]!.size],
          [1, "fake-attachment.txt", "text/plain", 30]
        ])
        expect(yield* text(parts[1])).toBe("Hey this is a fake attachment!")
        expectPage(page)
        expect(page).toContain("Mallori Harrell &lt;mallori@unstructured.io&gt;")
        expect(page).toContain("the attachments!")
        expect(page).toContain("Lots of whitespace")
      }))

    it.effect("fake-email-with-cc-and-bcc.msg: Cc shown, Bcc not, the text body in a <pre>", () =>
      Effect.gen(function*() {
        const { parts, page } = yield* expand(path.join(OFFICE, "fake-email-with-cc-and-bcc.msg"), "msg")
        expect(listing(parts)).toEqual([[0, "Fake email with cc and bcc recipients", "text/html", parts[0]!.size]])
        expectPage(page)
        expect(page).toMatch(/<th[^>]*>Cc:<\/th><td[^>]*>steve@unstructured\.io<\/td>/)
        expect(page).toContain("John Jennings &lt;john-ctr@unstructured.io&gt;")
        expect(page).toContain("John &lt;johnjennings702@gmail.com&gt;")
        expect(page).not.toContain("hello@unstructured.io") // the Bcc recipient
        expect(page).toMatch(/<pre style="white-space:pre-wrap">This is a test email\. Please ignore\./)
      }))
  })

  describe("written messages", () => {
    const forwarded = (disposition: string) =>
      `From: Outer <outer@example.com>
To: someone@example.com
Subject: Outer message
Date: Tue, 2 Jan 2024 10:00:00 +0000
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="outer"

--outer
Content-Type: text/plain; charset=utf-8

See the forwarded message & <its> attachment.
--outer
Content-Type: message/rfc822
${disposition}
From: Inner Sender <inner@example.com>
To: outer@example.com
Cc: watcher@example.com
Subject: Inner subject
Date: Mon, 1 Jan 2024 09:00:00 +0000
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="inner"

--inner
Content-Type: text/html; charset=utf-8

<html><head><style>p { color: red }</style></head><body><p>Inner <b>body</b> text</p><ul><li>one</li><li>two</li></ul></body></html>
--inner
Content-Type: application/pdf; name="report.pdf"
Content-Disposition: attachment; filename="report.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQK
--inner--
--outer--
`

    it.effect("an attached email is listed as message/rfc822 and stored as a text rendering of it", () =>
      Effect.gen(function*() {
        const { parts, page } = yield* expand(
          write("forward.eml", forwarded(`Content-Disposition: attachment; filename="forwarded.eml"\n`)),
          "eml"
        )
        expect(listing(parts).map(([index, name, mimeType]) => [index, name, mimeType])).toEqual([
          [0, "Outer message", "text/html"],
          [1, "forwarded.eml", "message/rfc822"]
        ])
        expect(page).toContain(
          `<pre style="white-space:pre-wrap">See the forwarded message &amp; &lt;its&gt; attachment.`
        )
        const rendering = yield* text(parts[1])
        expect(rendering).toBe(
          [
            "From: Inner Sender <inner@example.com>",
            "To: outer@example.com",
            "Cc: watcher@example.com",
            "Date: Mon, 1 Jan 2024 09:00:00 +0000",
            "Subject: Inner subject",
            "",
            "Inner body text",
            "",
            "- one",
            "- two",
            "",
            "Attachments: report.pdf",
            ""
          ].join("\n")
        )
      }))

    it.effect("an attached email without a file name takes its subject as title", () =>
      Effect.gen(function*() {
        const { parts } = yield* expand(write("forward-inline.eml", forwarded("")), "eml")
        expect(listing(parts).map(([index, name, mimeType]) => [index, name, mimeType])).toEqual([
          [0, "Outer message", "text/html"],
          [1, "Inner subject", "message/rfc822"]
        ])
        expect(yield* text(parts[1])).toContain("Subject: Inner subject")
      }))

    it.effect("an image the HTML shows by cid: is embedded as a data: URI and not listed; an unreferenced one is", () =>
      Effect.gen(function*() {
        const shown = randomBytes(48)
        const unshown = randomBytes(40)
        const file = write(
          "related.eml",
          `From: a@example.com
To: b@example.com
Subject: Inline
MIME-Version: 1.0
Content-Type: multipart/related; boundary="rel"

--rel
Content-Type: text/html; charset=utf-8

<p>Logo: <img src="cid:logo@example" alt="logo"></p>
--rel
Content-Type: image/png
Content-ID: <logo@example>
Content-Disposition: inline; filename="logo.png"
Content-Transfer-Encoding: base64

${shown.toString("base64")}
--rel
Content-Type: image/gif
Content-ID: <other@example>
Content-Disposition: inline; filename="other.gif"
Content-Transfer-Encoding: base64

${unshown.toString("base64")}
--rel--
`
        )
        const { parts, page } = yield* expand(file, "eml")
        expect(listing(parts)).toEqual([[0, "Inline", "text/html", parts[0]!.size], [
          1,
          "other.gif",
          "image/gif",
          unshown.length
        ]])
        expect(page).toContain(`<img src="data:image/png;base64,${shown.toString("base64")}" alt="logo" />`)
        expect(page).not.toContain("cid:")
      }))

    it.effect("scripts, handlers, frames and every remote or local reference are gone from part 0", () =>
      Effect.gen(function*() {
        const file = write(
          "hostile.eml",
          `From: x@example.com
To: y@example.com
Subject: <Hostile> & "quoted"
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8

<html><head><link rel="stylesheet" href="http://evil.example/s.css"><base href="http://evil.example/">
<meta http-equiv="refresh" content="0; url=http://evil.example/">
<style>@import url("http://evil.example/i.css"); @\\69mport "http://evil.example/j.css"; body { background: url(http://evil.example/bg.png) } p { color: red } .x { background: \\75rl(http://evil.example/esc.png) }</style>
<script>alert(1)</script></head>
<body onload="alert(2)" background="http://evil.example/body.png"><p onclick="alert(3)">Visible text</p>
<img src="http://evil.example/track.gif"><img src="//evil.example/x.gif"><img src="file:///etc/passwd"><img src="local.png">
<img srcset="http://evil.example/a.png 1x"><iframe src="http://evil.example/"></iframe><object data="http://evil.example/x.swf"></object>
<embed src="http://evil.example/e"><a href="javascript:alert(4)">js link</a> <a href="https://example.com/page">web link</a>
<div style="background-image: url('http://evil.example/div.png')">styled</div><img src="data:image/png;base64,iVBORw0KGgo=">
<svg><image href="http://evil.example/svg.png"/></svg><!--[if mso]><img src="http://evil.example/mso.png"><![endif]-->
<form action="http://evil.example/post"><input type="image" src="http://evil.example/btn.png"></form>
<table background="http://evil.example/t.png"><tr><td>cell</td></tr></table></body></html>
`
        )
        const { parts, page } = yield* expand(file, "eml")
        expect(parts).toHaveLength(1)
        expectPage(page)
        for (
          const forbidden of [
            "evil.example",
            "<script",
            "alert(",
            "onload",
            "onclick",
            "<iframe",
            "<object",
            "<embed",
            "@import",
            "javascript:",
            "file:",
            "local.png",
            "<link",
            "<base",
            "refresh",
            "<svg",
            "srcset"
          ]
        ) {
          expect(page, forbidden).not.toContain(forbidden)
        }
        expect(page).toContain("<title>&lt;Hostile&gt; &amp; &quot;quoted&quot;</title>")
        expect(page).toContain("Visible text")
        expect(page).toContain("cell")
        expect(page).toContain(`<a href="https://example.com/page">web link</a>`)
        expect(page).toContain("p { color: red }")
        expect(page).toContain(`<img src="data:image/png;base64,iVBORw0KGgo=" />`)
      }))

    it.effect("CSS cannot close its <style> through an escape, and a commented-out style sheet still applies", () =>
      Effect.gen(function*() {
        const file = write(
          "style-escape.eml",
          `From: x@example.com
To: y@example.com
Subject: Styles
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8

<html><head><style><!-- p { color: blue } --></style></head><body>
<style>.a { content: "\\3c/style\\3e\\3cimg src=http://evil.example/x.png\\3e" }</style><p class="a">text</p></body></html>
`
        )
        const { page } = yield* expand(file, "eml")
        // The would-be markup stays text inside the second style sheet: only the two sheets' own end tags end a sheet.
        expect(page).toContain(`content: "<\\/style><img src=http://evil.example/x.png>"`)
        expect(page.match(/<\/style>/g)).toHaveLength(2)
        expect(page).toContain("<!-- p { color: blue } -->")
        expect(page).toContain(`<p class="a">text</p>`)
      }))

    it.effect("an image referenced by cid: from an element that is dropped stays listed as an attachment", () =>
      Effect.gen(function*() {
        const image = randomBytes(32)
        const file = write(
          "dropped-cid.eml",
          `From: a@example.com
To: b@example.com
Subject: Dropped
MIME-Version: 1.0
Content-Type: multipart/related; boundary="rel"

--rel
Content-Type: text/html; charset=utf-8

<p>Text</p><svg><image href="cid:pic@example"/></svg><input type="image" src="cid:pic@example">
--rel
Content-Type: image/png
Content-ID: <pic@example>
Content-Disposition: inline; filename="pic.png"
Content-Transfer-Encoding: base64

${image.toString("base64")}
--rel--
`
        )
        const { parts, page } = yield* expand(file, "eml")
        expect(listing(parts)).toEqual([[0, "Dropped", "text/html", parts[0]!.size], [
          1,
          "pic.png",
          "image/png",
          image.length
        ]])
        expect(page).not.toContain("data:image/png")
      }))

    it.effect("a message without a subject is titled (no subject)", () =>
      Effect.gen(function*() {
        const { parts, page } = yield* expand(
          write("bare.eml", "From: a@example.com\nTo: b@example.com\n\nJust text.\n"),
          "eml"
        )
        expect(parts[0]!.name).toBe("(no subject)")
        expect(page).toContain("Just text.")
      }))

    it.effect("an unreadable Outlook message is rejected, saying so", () =>
      Effect.gen(function*() {
        const file = path.join(scratch, "broken.msg")
        writeFileSync(file, randomBytes(2048))
        const result = yield* Effect.either(expandEmail(file, "msg"))
        expect(Either.isLeft(result) && result.left._tag).toBe("EmailRejected")
        expect(Either.isLeft(result) && result.left.message).toMatch(/Outlook message cannot be read/)
        const truncated = path.join(scratch, "truncated.msg")
        writeFileSync(truncated, readFileSync(path.join(OFFICE, "fake-email-attachment.msg")).subarray(0, 1024))
        expect(Either.isLeft(yield* Effect.either(expandEmail(truncated, "msg")))).toBe(true)
      }))
  })
})
