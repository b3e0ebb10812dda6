import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { BrokerUrl } from "../../src/layers/Test.ts"
import { corpusFile, uploadOk } from "../support/http.ts"
import { servlet, viewerAndBroker } from "./support.ts"

const LAYOUT_TYPE = "com.docstack.viewer.client.api.document."

describe("documentLayout, flatDocumentLayout and pageContent", () => {
  it.layer(viewerAndBroker(), { timeout: 120_000 })((it) => {
    it.effect("documentLayout gives every page's size, and makes the document the session's current one", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/tracemonkey.pdf"))
        const reply = yield* servlet(`documentLayout?uuid=${id}`)
        expect(reply.status).toBe(200)
        expect(reply.json.type).toBe(`${LAYOUT_TYPE}DocumentPageLayout`)
        // The contract's shape: documentId is {id}.
        expect(reply.json.documentId).toEqual({ id })
        expect(reply.json.pageDimensionsList).toHaveLength(14)
        expect(reply.json.pageDimensionsList[0]).toMatchObject({ width: 612, height: 792, rotation: 0 })
        expect(reply.headers.get("set-cookie")).toMatch(/^DOCSTACK_VIEWER_SESSION=[\w-]+;.*HttpOnly/)
      }))

    it.effect("flatDocumentLayout lists each page as <document>/<page>|<rotation>|<width/height>", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/hello_world_rotated.pdf"))
        const layout = yield* servlet(`documentLayout?uuid=${id}`)
        const flat = yield* servlet(`flatDocumentLayout?uuid=${id}`)
        expect(flat.status).toBe(200)
        const pages = layout.json.pageDimensionsList as Array<{ width: number; height: number; rotation: number }>
        expect(flat.json).toHaveLength(pages.length)
        pages.forEach((page, i) => {
          const [path, rotation, aspect] = (flat.json[i] as string).split("|")
          expect(path).toBe(`${id}/${i}`)
          expect(Number(rotation)).toBe(page.rotation)
          const shown = page.rotation % 180 === 0 ? page.width / page.height : page.height / page.width
          expect(Number(aspect)).toBeCloseTo(shown, 5)
        })
        // The file turns its pages: at least one is shown on its side.
        expect(pages.some((page) => page.rotation % 180 !== 0)).toBe(true)
      }))

    it.effect("a composite document's flat layout runs through its parts, each page under its part's ID", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("office/fake-email-attachment.eml"))
        const layout = yield* servlet(`documentLayout?uuid=${id}`)
        expect(layout.json.type).toBe(`${LAYOUT_TYPE}DocumentContainer`)
        const parts = layout.json.children.map((child: { documentId: { id: string } }) => child.documentId.id)
        expect(parts[0]).toBe(`${id}/0`)
        const flat = (yield* servlet(`flatDocumentLayout?uuid=${id}`)).json as Array<string>
        const partsListed = [...new Set(flat.map((entry) => entry.split("|")[0]!.replace(/\/\d+$/, "")))]
        expect(partsListed).toEqual(parts)
        // Each part's pages, numbered from 0 in that part.
        const body = (yield* servlet(`documentLayout?uuid=${parts[0].replaceAll("/", "@")}`)).json
        expect(flat.filter((entry) => entry.startsWith(`${parts[0]}/`))).toHaveLength(body.pageDimensionsList.length)
      }))

    it.effect("pageContent gives the page's words where they stand, in the contract's shape", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/tracemonkey.pdf"))
        const reply = yield* servlet(`pageContent?uuid=${id}&pagePosition=0`)
        expect(reply.status).toBe(200)
        expect(reply.json.pageNumber).toBe(0)
        const runs = reply.json.positionTextList as Array<Record<string, any>>
        const text = runs.map((run) => run.text).join(" ")
        expect(text).toContain("Trace-based Just-in-Time Type Specialization")
        const title = runs.find((run) => run.text.includes("Trace-based"))!
        expect(Object.keys(title).sort()).toEqual(
          [
            "font",
            "fontSize",
            "individualWidths",
            "pageNumber",
            "paragraphId",
            "position",
            "rightToLeftText",
            "rotation",
            "startTime",
            "text"
          ]
        )
        expect(title.startTime).toBe(0)
        // The title stands in the top part of the page (positions in points from the top left).
        expect(title.position.y).toBeLessThan(792 / 4)
        expect(title.individualWidths).toHaveLength(title.text.length)
      }))

    it.effect("pageContent answers 404 for a page past the end and 400 for a bad page number", () =>
      Effect.gen(function*() {
        const id = yield* uploadOk(yield* BrokerUrl, corpusFile("pdf/basicapi.pdf"))
        const past = yield* servlet(`pageContent?uuid=${id}&pagePosition=3`)
        expect(past.status).toBe(404)
        expect(past.json._tag).toBe("PageNotFound")
        expect(past.json.message).toContain("pages 0 to 2")
        const negative = yield* servlet(`pageContent?uuid=${id}&pagePosition=-1`)
        expect(negative.status).toBe(400)
        const unknown = yield* servlet("documentLayout?uuid=b64_nothingHere")
        expect(unknown.status).toBe(404)
        expect(unknown.json._tag).toBe("DocumentNotFound")
      }))
  })
})
