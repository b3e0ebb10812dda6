/**
 * Byte-mutated copies of real corpus files (PDFs, emails, an Outlook message, ZIPs, an image)
 * through upload, layout, page image and text, as a mutation fuzzer feeds them: every answer is one
 * the contract documents, a 500 always says why (an error body with a message and an identifier),
 * nothing hangs, and the broker stays ready. Seeded and bounded (test/support/fuzz.ts).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { brokerTestLayer, BrokerUrl } from "../../src/layers/Test.ts"
import { defaultBackend } from "../support/backends.ts"
import { fuzzParameters, mutate, mutations, Tally } from "../support/fuzz.ts"
import { call, corpusFile, type Reply } from "../support/http.ts"

/** Small and medium files of each kind the broker opens at upload time (office files go to conversion orders, tested apart). */
const SOURCES = [
  "pdf/tracemonkey.pdf",
  "pdf/basicapi.pdf",
  "pdf/annotation-highlight.pdf",
  "pdf/nested_outline.pdf",
  "pdf/labelled_pages.pdf",
  "pdf/hello_world_rotated.pdf",
  "pdf/bug_jpx.pdf",
  "pdf/cmykjpeg.pdf",
  "pdf/noembed-sjis.pdf",
  "office/fake-email-attachment.eml",
  "office/fake-email-attachment.msg",
  "office/all.windows.zip",
  "office/nested.zip",
  "office/english-and-korean.png"
] as const
const originals = new Map(SOURCES.map((name) => [name, corpusFile(name)]))

/** Longer than the broker's own render timeout (set below): a call still unanswered then is a hang. */
const CALL_TIMEOUT_MS = 45_000
const timed = (url: string, init: RequestInit = {}) =>
  call(url, { ...init, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) })

const tally = new Tally()

/** An answer of `step`: a documented status, and a 500 that says why. */
const expectDocumented = (step: string, reply: Reply, allowed: ReadonlyArray<number>) => {
  tally.count(step, reply.status)
  expect(allowed, `${step} answered ${reply.status}: ${reply.text.slice(0, 300)}`).toContain(reply.status)
  if (reply.status >= 500) {
    expect(reply.json?._tag, `${step}: ${reply.text.slice(0, 300)}`).toMatch(/^[A-Z]\w+$/)
    expect(reply.json.message).not.toBe("The request failed with status 500")
    expect(reply.json.message.length).toBeGreaterThan(10)
    expect(reply.json.errorId).toMatch(/^[0-9a-f]{12}$/)
  }
}

/** Layout, page image and text of a document with pages; a container's first part instead. */
const readDocument = (base: string, id: string, depth = 0): Effect.Effect<void> =>
  Effect.gen(function*() {
    const layout = yield* timed(`${base}/documents/${id}/layout`)
    expectDocumented("layout", layout, [200, 500])
    if (layout.status !== 200) return
    if (Array.isArray(layout.json.children)) {
      const first = layout.json.children[0]?.documentId as string | undefined
      if (first !== undefined && depth < 3) yield* readDocument(base, first.replaceAll("/", "@"), depth + 1)
      return
    }
    if (layout.json.pageDimensionsList.length === 0) return
    const image = yield* timed(`${base}/documents/${id}/pages/0/image?pageImageDescription=IM_200_0`)
    expectDocumented("page image", image, [200, 500])
    if (image.status === 200) expect(image.contentType).toBe("image/png")
    expectDocumented("text", yield* timed(`${base}/documents/${id}/pages/0/text/position`), [200, 500])
  })

const config = { ...defaultBackend.config, RENDER_TIMEOUT: "20 seconds", CONVERSION_WAIT_TIMEOUT: "30 seconds" }

layer(brokerTestLayer(config), { timeout: 900_000 })("fuzz: mutated corpus files", (it) => {
  it.effect("upload, layout, page image and text answer as documented; the broker stays ready", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const property = fc.asyncProperty(
        fc.constantFrom(...SOURCES),
        mutations,
        (source, plan) =>
          Effect.runPromise(Effect.gen(function*() {
            const bytes = mutate(originals.get(source)!, plan) as Uint8Array<ArrayBuffer>
            const uploaded = yield* timed(`${base}/documents`, {
              method: "POST",
              headers: { "content-type": "application/octet-stream" },
              body: bytes
            })
            expectDocumented("upload", uploaded, [200, 400])
            if (uploaded.status === 200) yield* readDocument(base, uploaded.json.id)
          }))
      )
      yield* Effect.promise(() => fc.assert(property, fuzzParameters(150, 420_000)))
      tally.report("Mutated corpus files: what each step answered")
      expect(tally.total).toBeGreaterThan(0)
      expect((yield* call(`${base}/health/readiness`)).status).toBe(200)
    }))
})
