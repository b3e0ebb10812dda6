/**
 * Annotation files that are odd or hostile: replies threaded however they come (missing parents,
 * long chains, circles), and files that try to make a reader expand, fetch or recurse (XXE, billion
 * laughs, deep nesting, junk), refused without reading, expanding or fetching anything.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { parseFdf, writeFdf } from "../../../src/services/broker/annotations/Fdf.ts"
import type { PdfAnnotation } from "../../../src/services/broker/annotations/PdfAnnotation.ts"
import { parseXfdf, writeXfdf } from "../../../src/services/broker/annotations/Xfdf.ts"
import { bytesOf, fixture, latin1, refusal, text } from "./annotation-files-support.ts"

describe("threads", () => {
  const xfdf = (annots: string) => `<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>${annots}</annots></xfdf>`

  it.effect("keeps a reply whose parent is missing, and a group member, as annotations of their own", () =>
    Effect.gen(function*() {
      const annotations = yield* parseXfdf(
        xfdf(`<square page="0" rect="0,0,10,10" name="a"/>
          <text page="0" rect="1,1,2,2" name="orphan" inreplyto="nowhere"><contents>lost parent</contents></text>
          <circle page="0" rect="3,3,4,4" name="member" inreplyto="a" replyType="group"/>
          <text inreplyto="a"><contents>unnamed reply</contents></text>
          <text page="0" rect="1,1,2,2" name="stray-state" inreplyto="a-caret-not-kept" state="Accepted" statemodel="Review"/>`)
      )
      // the review state of an annotation that is not in the file is dropped, not shown as a note
      expect(annotations.map((annotation) => annotation.name)).toStrictEqual(["a", "orphan", "member"])
      expect(annotations[0]?.replies).toStrictEqual([{ name: "annotation-4", contents: "unnamed reply" }])
      expect(annotations[1]?.contents).toBe("lost parent")
    }))

  it.effect("threads a long chain of replies to replies without hanging", () =>
    Effect.gen(function*() {
      const chain = Array.from({ length: 50_000 }, (_, i) =>
        `<text name="r${i + 1}" inreplyto="${i === 0 ? "a" : `r${i}`}"><contents>${i + 1}</contents></text>`).join("")
      // A bound against a hang (threading that walks the chain again for each reply would take many
      // minutes here), not a speed figure: speed is the benchmarks' business.
      const [parent] = yield* parseXfdf(xfdf(`<square page="0" rect="0,0,10,10" name="a"/>${chain}`)).pipe(
        Effect.timeoutFail({
          duration: "30 seconds",
          onTimeout: () =>
            new Error("threading 50,000 replies hung")
        })
      )
      expect(parent?.replies).toHaveLength(50_000)
      expect(parent?.replies?.at(-1)).toStrictEqual({ name: "r50000", contents: "50000" })
    }))

  it.effect("refuses replies that answer each other in a circle, and annotations without page or rectangle", () =>
    Effect.gen(function*() {
      yield* refusal(
        parseXfdf(
          xfdf(
            `<text page="0" rect="0,0,1,1" name="x" inreplyto="y"/><text page="0" rect="0,0,1,1" name="y" inreplyto="x"/>`
          )
        )
      )
      const noPage = yield* refusal(parseXfdf(xfdf(`<square rect="0,0,10,10" name="a"/>`)))
      expect(noPage.message).toContain("no page")
      const noRect = yield* refusal(parseXfdf(xfdf(`<square page="0" name="a"/>`)))
      expect(noRect.message).toContain("no rectangle")
      yield* refusal(parseXfdf(xfdf(`<square page="-1" rect="0,0,10,10"/>`)))
      yield* refusal(parseXfdf(xfdf(`<highlight page="0" rect="0,0,10,10" coords="1,2,3"/>`)))
    }))
})

describe("hostile and broken files", () => {
  const passwd = existsSync("/etc/passwd") ? readFileSync("/etc/passwd", "utf8") : "root:x:0:0:root:/root:/bin/bash\n"
  const secretLines = passwd.split("\n").filter((line) => line.trim().length > 3)
  const leaksNothing = (value: unknown) => {
    const shown = JSON.stringify(value) + String(value)
    for (const line of secretLines) expect(shown).not.toContain(line)
    expect(shown).not.toContain("root:")
  }

  it.effect("refuses a DOCTYPE with an external entity, and the entity's file never shows", () =>
    Effect.gen(function*() {
      const xxe = `<?xml version="1.0"?>
<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>
<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots><text page="0" rect="0,0,10,10" name="n" title="&e;"><contents>&e;</contents></text></annots></xfdf>`
      for (const input of [xxe, bytesOf(xxe)]) {
        const error = yield* refusal(parseXfdf(input))
        expect(error.message).toMatch(/DOCTYPE/)
        leaksNothing(error)
      }
      // an entity that was never declared is not expanded either
      leaksNothing(
        yield* refusal(
          parseXfdf(
            `<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots><text page="0" rect="0,0,1,1"><contents>&e;</contents></text></annots></xfdf>`
          )
        )
      )
    }))

  it.effect("fetches nothing: external DTDs and parameter entities are refused unread", () =>
    Effect.gen(function*() {
      const requests: Array<string> = []
      const server = createServer((request, response) => {
        requests.push(request.url ?? "")
        response.end(`<!ENTITY e "fetched">`)
      })
      yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)))
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/evil.dtd`
      const files = [
        `<?xml version="1.0"?><!DOCTYPE xfdf SYSTEM "${url}"><xfdf xmlns="http://ns.adobe.com/xfdf/"><annots/></xfdf>`,
        `<?xml version="1.0"?><!DOCTYPE xfdf [<!ENTITY % p SYSTEM "${url}"> %p;]><xfdf><annots/></xfdf>`,
        `<?xml version="1.0"?><!DOCTYPE xfdf PUBLIC "-//X//Y" "${url}"><xfdf/>`
      ]
      for (const file of files) {
        const error = yield* refusal(parseXfdf(file))
        expect(JSON.stringify(error)).not.toContain("fetched")
      }
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      yield* Effect.promise(() => new Promise((resolve) => server.close(resolve)))
      expect(requests).toStrictEqual([])
    }))

  it.effect("refuses a billion laughs at once", () =>
    Effect.gen(function*() {
      const levels = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join("\n")
      const bomb = `<?xml version="1.0"?>
<!DOCTYPE lolz [
<!ENTITY lol0 "lol">
${levels}
]>
<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots><text page="0" rect="0,0,1,1"><contents>&lol9;</contents></text></annots></xfdf>`
      // Refused for its DOCTYPE, before any entity is expanded.
      const refused = yield* refusal(parseXfdf(bomb))
      expect(refused.message).toMatch(/DOCTYPE/i)
      // the quadratic variant: one large entity used many times
      const quadratic = `<!DOCTYPE x [<!ENTITY a "${
        "a".repeat(50_000)
      }">]><xfdf><annots><text page="0" rect="0,0,1,1"><contents>${
        "&a;".repeat(50_000)
      }</contents></text></annots></xfdf>`
      expect((yield* refusal(parseXfdf(quadratic))).message).toMatch(/DOCTYPE/i)
    }))

  it.effect("refuses what is not XML, or not XFDF", () =>
    Effect.gen(function*() {
      let seed = 42
      const junk = Uint8Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256)
      const inputs: Array<string | Uint8Array> = [
        junk,
        new Uint8Array(),
        "",
        "hello, world",
        `{"annots": [{"page": 0}]}`,
        fixture("all-subtypes.fdf"),
        Uint8Array.from([0x3c, 0x78, 0x66, 0x64, 0x66, 0x3e, 0xc3, 0x28, 0x3c, 0x2f, 0x78, 0x66, 0x64, 0x66, 0x3e]), // <xfdf>, invalid UTF-8, </xfdf>
        `<html><body><p>not an annotation file</p></body></html>`,
        `<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots><text page="0" rect="0,0,1,1">`,
        `<xfdf><annots></xfdf></annots>`,
        `<xfdf/><xfdf/>`,
        `<xfdf a=b/>`,
        `<xfdf><annots><square page="0" rect="0,0,1,1" page="1"/></annots></xfdf>`,
        `<xfdf><annots>a < b</annots></xfdf>`,
        `<xfdf>\u0001</xfdf>`,
        `<xfdf>&#0;</xfdf>`,
        `<xfdf><![CDATA[ never closed </xfdf>`,
        `<xfdf/><?xml version="1.0"?>`,
        text(fixture("all-subtypes.xfdf")).slice(0, 2000)
      ]
      for (const input of inputs) yield* refusal(parseXfdf(input))
    }))

  it.effect("refuses what is not FDF", () =>
    Effect.gen(function*() {
      const all = fixture("all-subtypes.fdf")
      const inputs: Array<Uint8Array> = [
        new Uint8Array(),
        bytesOf("hello, world"),
        fixture("all-subtypes.xfdf"),
        bytesOf("%PDF-1.7\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n"),
        bytesOf("%FDF-1.2\n"),
        bytesOf("%FDF-1.2\nthis is not PDF syntax at all\n%%EOF\n"),
        bytesOf("%FDF-1.2\n1 0 obj <</Fields []>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n"),
        bytesOf("%FDF-1.2\n1 0 obj <</FDF <</Annots 7>> >> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n"),
        all.subarray(0, Math.floor(all.length / 2)),
        Uint8Array.from({ length: 2048 }, (_, i) => (i * 7919) % 256)
      ]
      for (const input of inputs) yield* refusal(parseFdf(input))
    }))

  it.effect("refuses nesting deep enough to exhaust a recursive reader", () =>
    Effect.gen(function*() {
      const deepXml = `<xfdf><annots><text page="0" rect="0,0,1,1"><contents-richtext>${"<span>".repeat(100_000)}x${
        "</span>".repeat(100_000)
      }</contents-richtext></text></annots></xfdf>`
      expect((yield* refusal(parseXfdf(deepXml))).message).toContain("deep")
      const deepFdf =
        `%FDF-1.2\n1 0 obj <</FDF <</Annots [2 0 R]>> >> endobj\n2 0 obj <</Type/Annot/Subtype/Square/Page 0/Rect [0 0 1 1]/X ${
          "[".repeat(200_000)
        }${"]".repeat(200_000)}>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n`
      yield* refusal(parseFdf(bytesOf(deepFdf)))
    }))

  it.effect("refuses more than 100,000 annotations", () =>
    Effect.gen(function*() {
      const squares = (n: number) =>
        `<xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>${
          `<square page="0" rect="0,0,1,1"/>`.repeat(n)
        }</annots></xfdf>`
      expect(yield* parseXfdf(squares(100_000))).toHaveLength(100_000)
      expect((yield* refusal(parseXfdf(squares(100_001)))).message).toContain("100000")
      const fdf = `%FDF-1.2\n1 0 obj <</FDF <</Annots [${
        "2 0 R ".repeat(100_001)
      }]>> >> endobj\n2 0 obj <</Type/Annot/Subtype/Square/Page 0/Rect [0 0 1 1]>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n`
      expect((yield* refusal(parseFdf(bytesOf(fdf)))).message).toContain("100000")
    }), 30_000)
})

describe("text beyond ASCII", () => {
  const INTERNATIONAL: ReadonlyArray<PdfAnnotation> = [
    {
      subtype: "FreeText",
      page: 0,
      name: "texte-é-日本-😀",
      rect: [10, 20, 200, 80],
      author: "Zoë Ångström",
      subject: "日本語のテキスト",
      contents: "Café — naïve façade\n日本語の注釈\nemoji 😀👍🏽🇫🇷 and (parentheses) \\ backslash",
      fontSize: 11,
      fontColor: [0.2, 0.2, 0.2],
      replies: [{
        name: "réponse-1",
        author: "José Núñez",
        contents: "D’accord 👌 — 了解しました",
        created: "2024-05-06T07:08:09.000Z"
      }]
    },
    { subtype: "Stamp", page: 1, name: "stamp-ü", rect: [0, 0, 100, 50], iconName: "Geprüft ✓", contents: "Geprüft" },
    {
      subtype: "Redact",
      page: 1,
      name: "r",
      rect: [0, 100, 100, 120],
      quadPoints: [0, 120, 100, 120, 0, 100, 100, 100],
      overlayText: "CONFIDENTIEL — 機密 🔒"
    }
  ]

  it.effect("é, 日本語 and emoji survive XFDF, as text and as UTF-8 bytes", () =>
    Effect.gen(function*() {
      const xfdf = writeXfdf(INTERNATIONAL, { fileName: "rapport-été.pdf" })
      expect(xfdf).toContain("日本語の注釈")
      expect(xfdf).toContain(`<f href="rapport-été.pdf"/>`)
      expect(yield* parseXfdf(xfdf)).toStrictEqual(INTERNATIONAL)
      expect(yield* parseXfdf(bytesOf(xfdf))).toStrictEqual(INTERNATIONAL)
    }))

  it.effect("é, 日本語 and emoji survive FDF, written as UTF-16BE with a BOM", () =>
    Effect.gen(function*() {
      const fdf = writeFdf(INTERNATIONAL, { fileName: "rapport-été.pdf" })
      const source = latin1(fdf)
      expect(source).toContain("/T <FEFF005A006F00EB")
      // apart from the binary comment of the header, an FDF written by the broker is 7-bit
      expect([...fdf.subarray(16)].every((byte) => byte < 0x80)).toBe(true)
      expect(yield* parseFdf(fdf)).toStrictEqual(INTERNATIONAL)
      expect(yield* parseXfdf(writeXfdf(yield* parseFdf(fdf)))).toStrictEqual(INTERNATIONAL)
    }))

  it.effect("reads XFDF in UTF-16 with a BOM and in the encoding its declaration names", () =>
    Effect.gen(function*() {
      const xfdf =
        `<?xml version="1.0" encoding="UTF-16"?><xfdf xmlns="http://ns.adobe.com/xfdf/"><annots><text page="0" rect="0,0,1,1" name="n" title="Zoë 日本"/></annots></xfdf>`
      const utf16 = Uint8Array.from([0xff, 0xfe, ...Buffer.from(xfdf, "utf16le")])
      expect((yield* parseXfdf(utf16))[0]?.author).toBe("Zoë 日本")
      const latin = Buffer.from(
        `<?xml version="1.0" encoding="ISO-8859-1"?><xfdf><annots><text page="0" rect="0,0,1,1" title="Zoë"/></annots></xfdf>`,
        "latin1"
      )
      expect((yield* parseXfdf(latin))[0]?.author).toBe("Zoë")
    }))
})
