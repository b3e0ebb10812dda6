/**
 * GET difference against a real broker: a corpus .docx and a copy with two words replaced in its
 * word/document.xml, both converted by the broker; the changed words answered with one box each,
 * where pageContent puts those words; text files for a change with one side only; the 400s and 404s.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate"
import { BrokerUrl } from "../../src/layers/Test.ts"
import { corpusFile, uploadOk } from "../support/http.ts"
import type { Rect } from "./editing-support.ts"
import { servlet, viewerAndBroker } from "./support.ts"

/** contains-pictures.docx with `tempor` and `magna` (each once in its text) replaced. */
const edited = () => {
  const files = unzipSync(corpusFile("office/contains-pictures.docx"))
  const xml = strFromU8(files["word/document.xml"]!)
  expect(xml.split("tempor").length).toBe(2)
  expect(xml.split("magna").length).toBe(2)
  files["word/document.xml"] = strToU8(xml.replace("tempor", "tempus").replace("magna", "magnum"))
  return zipSync(files)
}

interface Run {
  readonly text: string
  readonly position: Rect
  readonly individualWidths: ReadonlyArray<number>
}

/** Where pageContent puts `word` on `page`: its run's line, from its first character's left to its last's right. */
const wordBox = (uuid: string, page: number, word: string) =>
  Effect.map(servlet(`pageContent?uuid=${uuid}&pagePosition=${page}`), (reply) => {
    const runs = reply.json.positionTextList as ReadonlyArray<Run>
    const run = runs.find((r) => new RegExp(`\\b${word}\\b`).test(r.text))
    expect(run, `${word} in ${runs.map((r) => r.text).join(" | ")}`).toBeDefined()
    const start = run!.text.search(new RegExp(`\\b${word}\\b`))
    const widths = run!.individualWidths
    const x = run!.position.x + widths.slice(0, start).reduce((a, b) => a + b, 0)
    const w = widths.slice(start, start + word.length).reduce((a, b) => a + b, 0)
    return { x, y: run!.position.y, w, h: run!.position.h }
  })

const difference = (left: string, right: string) => servlet(`difference?left=${left}&right=${right}`)

describe("difference", () => {
  it.layer(viewerAndBroker(), { timeout: 300_000 })((it) => {
    it.effect("two versions of a .docx: each replaced word with its box where pageContent puts it", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const left = yield* uploadOk(broker, corpusFile("office/contains-pictures.docx"), "?documentTitle=before.docx")
        const right = yield* uploadOk(broker, edited(), "?documentTitle=after.docx")
        const reply = yield* difference(left, right)
        expect(reply.status, reply.text).toBe(200)
        expect(reply.json.left).toEqual({ uuid: left, title: "before.docx", pageCount: expect.any(Number) })
        expect(reply.json.right).toMatchObject({ uuid: right, title: "after.docx" })
        expect(reply.json.left.pageCount).toBeGreaterThan(0)

        const changes = reply.json.changes as ReadonlyArray<any>
        expect(changes.map((c) => [c.type, c.left?.text, c.right?.text])).toEqual([
          ["MODIFIED", "tempor", "tempus"],
          ["MODIFIED", "magna", "magnum"]
        ])
        for (const change of changes) {
          for (const [uuid, side] of [[left, change.left], [right, change.right]] as const) {
            expect(Object.keys(side).sort()).toEqual(["pageNumber", "rects", "text"])
            expect(side.rects).toHaveLength(1)
            const [rect] = side.rects as ReadonlyArray<Rect>
            const expected = yield* wordBox(uuid, side.pageNumber, side.text)
            expect(rect!.x).toBeCloseTo(expected.x, 1)
            expect(rect!.y).toBeCloseTo(expected.y, 1)
            expect(rect!.w).toBeCloseTo(expected.w, 1)
            expect(rect!.h).toBeCloseTo(expected.h, 1)
          }
        }
      }))

    it.effect("a change with one side only has null on the other; 400s and 404s", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const text = (body: string) => uploadOk(broker, new TextEncoder().encode(body), "?documentTitle=note.txt")
        const short = yield* text("The first line of the note.\nThe second line.\n")
        const long = yield* text("The first line of the note.\nThe second line.\nA third line added.\n")
        const added = yield* difference(short, long)
        expect(added.status, added.text).toBe(200)
        expect(added.json.changes).toHaveLength(1)
        expect(added.json.changes[0]).toMatchObject({ type: "INSERTED", left: null, right: { pageNumber: 0 } })
        expect(added.json.changes[0].right.text).toContain("third")
        const removed = yield* difference(long, short)
        expect(removed.json.changes[0]).toMatchObject({ type: "DELETED", right: null, left: { pageNumber: 0 } })
        expect((yield* difference(short, short)).json.changes).toEqual([])

        expect((yield* servlet(`difference?left=${short}`)).status).toBe(400)
        expect((yield* servlet(`difference?right=${short}`)).status).toBe(400)
        expect((yield* difference("b64_nothing", short)).status).toBe(404)
        expect((yield* difference(short, "b64_nothing")).status).toBe(404)
        const archive = yield* uploadOk(broker, corpusFile("office/nested.zip"))
        const composite = yield* difference(short, archive)
        expect(composite.status).toBe(400)
        expect(composite.json.message).toContain("composite document")
      }))
  })
})
