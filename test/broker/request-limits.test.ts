/**
 * What a request may cost the broker: a JSON body past MAX_JSON_BODY_BYTES is refused before it is
 * read, a refusal quotes a long value briefly (not once per rule it breaks), and one request names
 * at most ANNOTATIONS_PER_REQUEST annotations (docs/errors.md).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { brokerTestLayer, BrokerUrl } from "../../src/layers/Test.ts"
import { defaultBackend } from "../support/backends.ts"
import { call, corpusFile, uploadOk } from "../support/http.ts"

const json = (method: string, body: string) => ({ method, headers: { "content-type": "application/json" }, body })
const highlight = { type: "Highlight", page: 0, position: { x: 10, y: 10, w: 50, h: 10 } }

layer(
  brokerTestLayer({ ...defaultBackend.config, MAX_JSON_BODY_BYTES: "1000000", ANNOTATIONS_PER_REQUEST: "5" }),
  { timeout: 120_000 }
)("request limits", (it) => {
  it.effect("a JSON body past MAX_JSON_BODY_BYTES: 400 naming the setting; the broker goes on", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("pdf/basicapi.pdf"))
      const big = JSON.stringify({ annotations: [{ ...highlight, contents: "x".repeat(1_200_000) }] })
      const reply = yield* call(`${base}/annotation?documentId=${id}`, json("PUT", big))
      expect(reply.status).toBe(400)
      expect(reply.json).toMatchObject({ _tag: "InvalidRequest" })
      expect(reply.json.message).toContain("more than the 1000000 a request may send (MAX_JSON_BODY_BYTES)")
      expect((yield* call(`${base}/annotation?documentId=${id}`)).status).toBe(200)
    }))

  it.effect("a long value that breaks a rule is quoted briefly, however many rules it breaks", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("pdf/basicapi.pdf"))
      // A type that is none of fifteen: each of them used to quote all 300,000 characters.
      const body = JSON.stringify({ annotations: [{ ...highlight, type: "T".repeat(300_000) }] })
      const reply = yield* call(`${base}/annotation?documentId=${id}`, json("PUT", body))
      expect(reply.status).toBe(400)
      expect(reply.bytes.byteLength).toBeLessThan(20_000)
      expect(reply.json.message).toContain("(300000 characters)")
      expect(reply.json.message).toMatch(
        /^The request does not match the API: annotations\.0\.type: Expected one of "Highlight"/
      )
    }))

  it.effect("more annotations than ANNOTATIONS_PER_REQUEST in one request: 400, nothing written", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const id = yield* uploadOk(base, corpusFile("pdf/basicapi.pdf"))
      const url = `${base}/annotation?documentId=${id}`
      const six = JSON.stringify({ annotations: Array.from({ length: 6 }, () => highlight) })
      const reply = yield* call(url, json("PUT", six))
      expect(reply.status).toBe(400)
      expect(reply.json.message).toContain("6 annotations, more than 5 (ANNOTATIONS_PER_REQUEST)")
      expect((yield* call(url)).json.annotations).toEqual([])
      const five = JSON.stringify({ annotations: Array.from({ length: 5 }, () => highlight) })
      expect((yield* call(url, json("PUT", five))).status).toBe(200)
    }))
})
