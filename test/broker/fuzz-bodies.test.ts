/**
 * Property-based JSON bodies with arbitrary Unicode (NUL, unpaired surrogates, very long strings)
 * through annotations, transformations and comparisons, on every storage backend: never a 500,
 * and what was accepted reads back as stored text is kept (docs/storage.md, "What text may hold").
 * Seeded and bounded (test/support/fuzz.ts).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { brokerTestLayer, BrokerUrl } from "../../src/layers/Test.ts"
import { storableText } from "../../src/services/common/sql/StorableText.ts"
import { backends } from "../support/backends.ts"
import { fuzzParameters, hostileText, hostileTextSometimesLong, Tally } from "../support/fuzz.ts"
import { call, corpusFile, type Reply, uploadOk } from "../support/http.ts"

const send = (url: string, method: string, body: unknown) =>
  call(url, {
    method,
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000)
  })

/** Mostly valid, now and then not: the bodies' text is what is under test. */
const mostly = <A, B>(valid: fc.Arbitrary<A>, invalid: fc.Arbitrary<B>) =>
  fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: invalid })

const annotation = fc.record({
  type: mostly(fc.constantFrom("Highlight", "Text", "FreeText", "Square", "Stamp", "Redact"), fc.constant("Sticker")),
  page: mostly(fc.integer({ min: 0, max: 2 }), fc.constantFrom(-1, 3)),
  position: fc.record({
    x: fc.integer({ min: -10, max: 700 }),
    y: fc.integer({ min: 0, max: 800 }),
    w: fc.integer({ min: 0, max: 300 }),
    h: fc.integer({ min: 0, max: 300 })
  }),
  subject: hostileTextSometimesLong(),
  contents: hostileTextSometimesLong(),
  creator: hostileText(),
  replies: fc.array(fc.record({ creator: hostileText(), contents: hostileText() }), { maxLength: 2 })
}, { requiredKeys: ["type", "page", "position"] })

/** JSON of any shape, its strings hostile: what a broken or malicious client sends. */
const anyJson = fc.jsonValue({ maxDepth: 3, stringUnit: fc.constantFrom("\u0000", "\ud800", "a", "é", "\u202e", "\"") })
  .map((value) => JSON.stringify(value))

const expectNo500 = (tally: Tally, step: string, reply: Reply, allowed: ReadonlyArray<number>) => {
  tally.count(step, reply.status)
  expect(allowed, `${step} answered ${reply.status}: ${reply.text.slice(0, 300)}`).toContain(reply.status)
}

for (const backend of backends) {
  const tally = new Tally()
  layer(brokerTestLayer(backend.config), { timeout: 600_000 })(`fuzz: request bodies (${backend.name})`, (it) => {
    it.effect("annotations: 200 or 400, never 500; accepted ones read back with their text as stored text is kept", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const documentId = yield* uploadOk(base, corpusFile("pdf/basicapi.pdf"))
        const url = `${base}/annotation?documentId=${documentId}`
        const property = fc.asyncProperty(
          fc.oneof({
            weight: 4,
            arbitrary: fc.array(annotation, { minLength: 1, maxLength: 3 }).map((annotations) => ({ annotations }))
          }, { weight: 1, arbitrary: anyJson }),
          (body) =>
            Effect.runPromise(Effect.gen(function*() {
              const created = yield* send(url, "PUT", body)
              expectNo500(tally, "PUT /annotation", created, [200, 400])
              if (created.status !== 200 || typeof body === "string") return
              const listed = yield* call(url)
              expectNo500(tally, "GET /annotation", listed, [200])
              for (const sent of body.annotations) {
                const match = listed.json.annotations.find((a: { contents?: string; subject?: string }) =>
                  a.contents === (sent.contents === undefined ? undefined : storableText(sent.contents)) &&
                  a.subject === (sent.subject === undefined ? undefined : storableText(sent.subject))
                )
                expect(match, `an accepted ${sent.type} annotation is listed with its text`).toBeDefined()
              }
              expect(
                (yield* send(`${base}/annotation?documentId=${documentId}`, "DELETE", {
                  annotations: listed.json.annotations.filter((a: { origin?: string }) => a.origin !== "file").map((
                    a: { id: unknown }
                  ) => ({ id: a.id }))
                })).status
              ).toBe(200)
            }))
        )
        yield* Effect.promise(() => fc.assert(property, fuzzParameters(60, 120_000)))
      }))

    it.effect("transformations: 200, 400 or 404, never 500; an accepted order is PROCESSED, its result titled with stored text", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const documentId = yield* uploadOk(base, corpusFile("pdf/basicapi.pdf"))
        const pages = mostly(
          fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 })).map(([a, b]) => ({
            minPage: Math.min(a, b),
            maxPage: Math.max(a, b)
          })),
          fc.record({ minPage: fc.integer({ min: -1, max: 3 }), maxPage: fc.integer({ min: -1, max: 3 }) })
        )
        const element = fc.record({
          documentId: mostly(fc.constant(documentId), hostileText(12)),
          documentTitle: hostileText(),
          pagesSelectionList: fc.array(pages, { minLength: 1, maxLength: 2 })
        })
        const redaction = fc.record({
          type: fc.constant("Redact"),
          page: fc.integer({ min: 0, max: 3 }),
          position: fc.constant({ x: 50, y: 50, w: 100, h: 20 }),
          redactReason: hostileText(16)
        })
        const request = fc.record({
          transformationDetails: fc.array(
            fc.record({
              documentTitle: hostileTextSometimesLong(5_000),
              transformationElements: fc.array(element, { minLength: 1, maxLength: 2 })
            }),
            { minLength: 1, maxLength: 2 }
          ),
          annotations: fc.option(
            fc.record({ documentId: fc.constant(documentId), annotations: fc.array(redaction, { maxLength: 1 }) }),
            { nil: undefined }
          )
        }, { requiredKeys: ["transformationDetails"] })
        const property = fc.asyncProperty(
          fc.oneof({ weight: 4, arbitrary: request }, { weight: 1, arbitrary: anyJson }),
          (body) =>
            Effect.runPromise(Effect.gen(function*() {
              const created = yield* send(`${base}/transformations`, "POST", body)
              expectNo500(tally, "POST /transformations", created, [200, 400, 404])
              if (created.status !== 200) return
              const order = yield* call(
                `${base}/transformations/${created.json.transformationOrderId.id}?timeoutMs=60000`
              )
              expectNo500(tally, "GET /transformations/{id}", order, [200])
              expect(["PROCESSED", "FAILED"]).toContain(order.json.currentState)
              tally.count("transformation order", order.json.currentState)
              // Every accepted body is one the broker can carry out (a failure would be a defect the POST should have refused).
              expect(order.json.currentState, order.json.errorMessage).toBe("PROCESSED")
              if (typeof body === "string") return
              const result = yield* call(`${base}/documents/${order.json.transformationResultDocumentIDs[0].id}`)
              expectNo500(tally, "GET result document", result, [200])
              const title = body.transformationDetails[0]!.documentTitle
              if (title) expect(result.json.documentTitle).toBe(storableText(title))
            }))
        )
        yield* Effect.promise(() => fc.assert(property, fuzzParameters(20, 180_000)))
      }))

    it.effect("comparisons: 200, 400 or 404, never 500", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const documentId = yield* uploadOk(base, corpusFile("pdf/basicapi.pdf"))
        const request = fc.record({
          leftDocumentId: mostly(fc.constant(documentId), hostileText(12)),
          rightDocumentId: mostly(fc.constant(documentId), hostileText(12)),
          fuzz: mostly(fc.integer({ min: 0, max: 100 }), fc.constantFrom(-5, 101)),
          highlightColor: mostly(fc.constantFrom("#ff0000", "red", "rgb(1,2,3)"), hostileText(10)),
          lowlightColor: mostly(fc.constantFrom("#00f", "grey"), hostileText(10))
        }, { requiredKeys: [] })
        const property = fc.asyncProperty(
          fc.oneof({ weight: 4, arbitrary: request }, { weight: 1, arbitrary: anyJson }),
          (body) =>
            Effect.runPromise(Effect.gen(function*() {
              const created = yield* send(`${base}/comparisons`, "POST", body)
              expectNo500(tally, "POST /comparisons", created, [200, 400, 404])
              // The comparison itself is tested elsewhere: the order is removed, so the suite stays quick.
              if (created.status === 200) {
                expect(
                  (yield* call(`${base}/comparisons/${created.json.comparisonOrderId.id}`, { method: "DELETE" })).status
                ).toBe(200)
              }
            }))
        )
        yield* Effect.promise(() => fc.assert(property, fuzzParameters(60, 120_000)))
        tally.report(`Broker request bodies (${backend.name}): statuses seen`)
      }))
  })
}
