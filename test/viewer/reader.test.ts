/**
 * The browser viewer's JSON routes (search, bookmarks, documentState) in front of a real broker and
 * the reference provider, on corpus files: hits with one box per line in pageContent's space, the
 * page range bounded by VIEWER_SEARCH_MAX_PAGES, outlines as pages and tops, and a document's state
 * while it converts, once ready, and when it failed, a password-protected PDF told apart by `reason`.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { zipSync } from "fflate"
import { copyFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { BrokerUrl } from "../../src/layers/Test.ts"
import { makeProviderRoot } from "../broker/providers/support.ts"
import { CORPUS } from "../support/backends.ts"
import { corpusFile, uploadOk } from "../support/http.ts"
import { servlet, viewerBrokerAndProvider } from "./support.ts"

const root = makeProviderRoot()
copyFileSync(`${CORPUS}pdf/password.pdf`, path.join(root, "password.pdf"))

/** A web server on loopback: the password-protected PDF at /password.pdf. */
const server = createServer((request, response) => {
  if (request.url === "/password.pdf") {
    response.writeHead(200, { "content-type": "application/pdf" }).end(corpusFile("pdf/password.pdf"))
  } else response.writeHead(404).end()
})
await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
afterAll(() => void server.close())
const web = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

interface Box {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}
interface Hit {
  readonly pageNumber: number
  readonly text: string
  readonly rects: ReadonlyArray<Box>
}

const search = (uuid: string, query: string) => servlet(`search?uuid=${encodeURIComponent(uuid)}&${query}`)

const hitsOf = (uuid: string, query: string) =>
  Effect.map(search(uuid, query), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return reply.json.hits as ReadonlyArray<Hit>
  })

const pageRuns = (uuid: string, page: number) =>
  Effect.map(
    servlet(`pageContent?uuid=${encodeURIComponent(uuid)}&pagePosition=${page}`),
    (reply) => reply.json.positionTextList as ReadonlyArray<{ text: string; position: Box }>
  )

const state = (uuid: string) => servlet(`documentState?uuid=${encodeURIComponent(uuid)}`)

/** A part's ID in URLs, as the other servlets take it. */
const inUrl = (partId: string) => partId.replaceAll("/", "@")

describe("the browser viewer's JSON routes", () => {
  it.layer(
    viewerBrokerAndProvider(root, { VIEWER_SEARCH_MAX_PAGES: "10" }, { ALLOW_PRIVATE_URLS: "true" }),
    { timeout: 300_000 }
  )((it) => {
    it.effect("search: hits with their page, text and boxes in pageContent's space; a hit over two lines has two", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/tracemonkey.pdf"))
        const reply = yield* search(id, "searchText=trace%20tree&fromPage=0&toPage=3")
        expect(reply.status, reply.text).toBe(200)
        expect(Object.keys(reply.json).sort()).toEqual(["fromPage", "hits", "pageCount", "searchText", "toPage"])
        expect(reply.json).toMatchObject({ searchText: "trace tree", fromPage: 0, toPage: 3, pageCount: 14 })
        const hits = reply.json.hits as ReadonlyArray<Hit>
        expect(hits.length).toBeGreaterThan(5)
        for (const hit of hits) {
          expect(Object.keys(hit).sort()).toEqual(["pageNumber", "rects", "text"])
          expect(hit.text.toLowerCase()).toBe("trace tree")
          expect(hit.pageNumber).toBeGreaterThanOrEqual(0)
          expect(hit.pageNumber).toBeLessThanOrEqual(3)
        }
        expect(hits.map((hit) => hit.pageNumber)).toEqual([...hits.map((hit) => hit.pageNumber)].sort((a, b) => a - b))
        // Page 1 has "trace" ending a line and "tree" starting the next: one hit, one box per line.
        const twoLines = hits.filter((hit) => hit.rects.length === 2)
        expect(twoLines).toHaveLength(1)
        const [first, second] = twoLines[0]!.rects
        expect(second!.y).toBeGreaterThan(first!.y + first!.h / 2)

        // Every box lies on a run of pageContent, in the same units: same line, inside the run (a
        // hit's width adds up its characters' widths, each rounded to 0.01 point).
        for (const hit of hits) {
          const runs = yield* pageRuns(id, hit.pageNumber)
          for (const rect of hit.rects) {
            const run = runs.find((r) =>
              Math.abs(r.position.y - rect.y) < 0.01 && Math.abs(r.position.h - rect.h) < 0.01 &&
              rect.x >= r.position.x - 0.01 && rect.x + rect.w <= r.position.x + r.position.w + 0.1
            )
            expect(run, JSON.stringify(rect)).toBeDefined()
          }
        }
      }))

    it.effect("search: a word cut by a hyphen at a line end is found whole; case, regex and accents options", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/tracemonkey.pdf"))
        // "Zimbra Col-" ends a line of page 0, "laboration Suite" starts the next.
        const cut = yield* hitsOf(id, "searchText=Collaboration%20Suite&fromPage=0&toPage=0")
        expect(cut).toHaveLength(1)
        expect(cut[0]!.text).toBe("Collaboration Suite")
        expect(cut[0]!.rects).toHaveLength(2)

        const anyCase = yield* hitsOf(id, "searchText=TRACE%20TREE&fromPage=3&toPage=3")
        const exactCase = yield* hitsOf(id, "searchText=Trace%20Tree&fromPage=3&toPage=3&caseSensitive=true")
        expect(exactCase.length).toBeGreaterThan(0)
        expect(exactCase.length).toBeLessThan(anyCase.length)
        expect(exactCase.every((hit) => hit.text === "Trace Tree")).toBe(true)

        // The same hits by a regular expression, the one over two lines (page 1) grouped alike.
        const literal = yield* hitsOf(id, "searchText=trace%20tree&fromPage=0&toPage=3")
        const regex = yield* hitsOf(
          id,
          `searchText=${encodeURIComponent("trace\\s+tree")}&regex=true&fromPage=0&toPage=3`
        )
        expect(regex).toEqual(literal)

        const accented = "searchText=tr%C3%A1ce%20tree&fromPage=3&toPage=3"
        expect(yield* hitsOf(id, accented)).toEqual(anyCase)
        expect(yield* hitsOf(id, `${accented}&accentSensitive=true`)).toEqual([])

        const bad = yield* search(id, "searchText=(&regex=true&fromPage=0&toPage=0")
        expect(bad.status).toBe(400)
        expect(bad.json._tag).toBe("InvalidRequest")
        expect(bad.json.message).toContain("not a valid regular expression")
      }))

    it.effect("search: in chunks of at most VIEWER_SEARCH_MAX_PAGES pages, toPage clamped to the last page; 400s", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/tracemonkey.pdf"))
        const query = "searchText=trace"
        const whole = [
          ...(yield* hitsOf(id, `${query}&fromPage=0&toPage=9`)),
          ...(yield* hitsOf(id, `${query}&fromPage=10&toPage=13`))
        ]
        const chunks = []
        for (let from = 0; from < 14; from += 5) {
          const reply = yield* search(id, `${query}&fromPage=${from}&toPage=${from + 4}`)
          expect(reply.json.toPage).toBe(Math.min(from + 4, 13))
          chunks.push(...reply.json.hits)
        }
        expect(chunks).toEqual(whole)
        expect(whole.length).toBeGreaterThan(50)

        // Without toPage: to the last page, if that is within the bound.
        const rest = yield* search(id, `${query}&fromPage=4`)
        expect(rest.status).toBe(200)
        expect(rest.json.toPage).toBe(13)

        const cases: ReadonlyArray<[string, string]> = [
          [`${query}&fromPage=0`, "VIEWER_SEARCH_MAX_PAGES"],
          [`${query}&fromPage=0&toPage=10`, "at most 10 pages"],
          [`${query}&fromPage=14`, "pages 0 to 13"],
          [`${query}&fromPage=5&toPage=4`, "before fromPage"],
          ["searchText=trace&fromPage=-1", "fromPage"],
          ["fromPage=0", "searchText"]
        ]
        for (const [params, message] of cases) {
          const reply = yield* search(id, params)
          expect(reply.status, params).toBe(400)
          expect(reply.text, params).toContain(message)
        }
        const unknown = yield* search("b64_nothingHere", `${query}&fromPage=0`)
        expect(unknown.status).toBe(404)
        expect(unknown.json._tag).toBe("DocumentNotFound")
      }))

    it.effect("search: a turned page's hits in its displayed space; an email's part by <id>@0; a container is a 400", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const turned = yield* uploadOk(broker, corpusFile("pdf/hello_world_rotated.pdf"))
        const layout = (yield* servlet(`documentLayout?uuid=${turned}`)).json.pageDimensionsList[0]
        expect(layout).toMatchObject({ width: 612, height: 792, rotation: 90 })
        const [hit] = yield* hitsOf(turned, "searchText=world&fromPage=0&toPage=0")
        const [run] = yield* pageRuns(turned, 0)
        // A vertical run's hit is the run's box; the page is shown 792 points wide, 612 high.
        expect(hit!.rects).toEqual([run!.position])
        expect(hit!.rects[0]!.x + hit!.rects[0]!.w).toBeLessThanOrEqual(792)
        expect(hit!.rects[0]!.y + hit!.rects[0]!.h).toBeLessThanOrEqual(612)

        const mail = yield* uploadOk(broker, corpusFile("office/fake-email-attachment.eml"))
        const body = `${mail}@0`
        const word = (yield* pageRuns(body, 0)).map((r) => r.text).join(" ").match(/\p{L}{5,}/u)![0]
        const found = yield* hitsOf(body, `searchText=${encodeURIComponent(word)}&fromPage=0`)
        expect(found.length).toBeGreaterThan(0)
        const container = yield* search(mail, "searchText=a&fromPage=0")
        expect(container.status).toBe(400)
        expect(container.json.message).toContain("composite document")
      }))

    it.effect("bookmarks: the nested outline with 0-based pages and tops in the page's points; none → []", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const nested = yield* uploadOk(broker, corpusFile("pdf/nested_outline.pdf"))
        const reply = yield* servlet(`bookmarks?uuid=${nested}`)
        expect(reply.status, reply.text).toBe(200)
        const outline = reply.json.bookmarks
        expect(outline.map((b: { title: string }) => b.title)).toEqual([
          "1. Introduction",
          "2. Main Content",
          "3. Conclusion"
        ])
        expect(outline[0]).toMatchObject({ pageNumber: 0, open: true })
        expect(Object.keys(outline[0]).sort()).toEqual(["children", "open", "pageNumber", "title", "top"])
        const background = outline[0].children[0]
        expect(background).toMatchObject({ title: "1.1 Background", pageNumber: 1, open: false, children: [] })
        // The destination's top stands just above the heading it leads to, in pageContent's space.
        const heading = (yield* pageRuns(nested, 1)).find((run) => run.text === "Background")!
        expect(background.top).toBeGreaterThanOrEqual(0)
        expect(background.top).toBeLessThanOrEqual(heading.position.y)
        expect(heading.position.y - background.top).toBeLessThan(20)

        const basic = (yield* servlet(`bookmarks?uuid=${yield* uploadOk(broker, corpusFile("pdf/basicapi.pdf"))}`)).json
        expect(basic.bookmarks[1]).toMatchObject({
          title: "Chapter 1",
          pageNumber: 1,
          top: 0,
          children: [{ title: "Paragraph 1.1", pageNumber: 2, top: 0, children: [] }]
        })

        const none = yield* servlet(`bookmarks?uuid=${yield* uploadOk(broker, corpusFile("pdf/tracemonkey.pdf"))}`)
        expect(none.status).toBe(200)
        expect(none.json).toEqual({ bookmarks: [] })
        expect((yield* servlet("bookmarks?uuid=b64_nothingHere")).status).toBe(404)
      }))

    it.effect("documentState: converting at once while an office file converts, then ready; 404 for no document", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const id = yield* uploadOk(broker, corpusFile("office/docx-tables.docx"))
        const started = Date.now()
        const converting = yield* state(id)
        expect(Date.now() - started).toBeLessThan(2_000)
        expect(converting.status, converting.text).toBe(200)
        expect(converting.json).toMatchObject({ state: "converting", message: null, reason: null })
        expect(["QUEUED", "PROCESSING"]).toContain(converting.json.conversion.currentState)
        expect(converting.json.conversion.errorMessage).toBeNull()

        let now = converting.json
        while (now.state === "converting" && Date.now() - started < 120_000) {
          yield* Effect.sleep("200 millis")
          now = (yield* state(id)).json
        }
        expect(now).toMatchObject({ state: "ready", message: null, reason: null })
        expect(now.conversion).toMatchObject({ currentState: "PROCESSED", errorMessage: null })
        expect(now.conversion.processingTime).toBeGreaterThan(0)
        expect(typeof now.conversion.queuedTime).toBe("number")

        const pdf = yield* state(yield* uploadOk(broker, corpusFile("pdf/tracemonkey.pdf")))
        expect(pdf.json).toEqual({ state: "ready", conversion: null, message: null, reason: null })
        const unknown = yield* state("b64_nothingHere")
        expect(unknown.status).toBe(404)
        expect(unknown.json._tag).toBe("DocumentNotFound")
      }))

    it.effect("a password-protected PDF: refused when opened (400), reason password in documentState for a part", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        // Opened by itself, through the provider or a URL: the broker refuses it at once.
        for (const url of ["loadingQuery?id=password.pdf", `${web}/password.pdf`]) {
          const opened = yield* servlet(`openExternalDocument?url=${encodeURIComponent(url)}`)
          expect(opened.status, url).toBe(400)
          expect(opened.json).toEqual({
            _tag: "InvalidRequest",
            message: "The PDF is protected by a password; upload it without the password protection"
          })
        }

        // A part of a container built from the provider: opened on first use, and refused then.
        const created = yield* servlet("compositeAccessorServlet", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ references: [{ queryUrl: "loadingQuery?id=password.pdf" }] })
        })
        expect(created.status, created.text).toBe(200)
        const linked = `${created.text}@0`
        const linkedLayout = yield* servlet(`documentLayout?uuid=${linked}`)
        expect(linkedLayout.status).toBe(500)
        expect(linkedLayout.json._tag).toBe("DocumentProcessingFailed")
        const linkedState = yield* state(linked)
        expect(linkedState.status).toBe(200)
        expect(linkedState.json).toEqual({
          state: "failed",
          conversion: null,
          message: linkedLayout.json.message,
          reason: "password"
        })

        // Parts of an archive: converted by an order, which fails.
        const archive = yield* uploadOk(
          broker,
          zipSync({
            "password.pdf": new Uint8Array(corpusFile("pdf/password.pdf")),
            "broken.pdf": new TextEncoder().encode("%PDF-1.4\nnot a PDF after all\n%%EOF\n"),
            "notes.bin": new Uint8Array([1, 2, 3, 4, 0, 0, 9])
          })
        )
        const parts = (yield* servlet(`documentLayout?uuid=${archive}`)).json.children.map((child: any) =>
          inUrl(child.documentId.id)
        )
        for (const part of parts) expect((yield* servlet(`documentLayout?uuid=${part}`)).status).toBe(500)
        const [locked, broken, unknown] = yield* Effect.forEach(
          parts as Array<string>,
          (part) => Effect.map(state(part), (reply) => reply.json)
        )
        expect(locked).toMatchObject({ state: "failed", reason: "password" })
        expect(locked.conversion).toMatchObject({ currentState: "FAILED" })
        expect(locked.message).toBe(locked.conversion.errorMessage)
        expect(broken).toMatchObject({ state: "failed", reason: null, conversion: { currentState: "FAILED" } })
        expect(broken.message).toContain("cannot be read as a PDF")
        expect(unknown).toEqual({
          state: "failed",
          conversion: null,
          message: "The unknown file of this document cannot be shown as pages",
          reason: null
        })
      }))
  })
})
