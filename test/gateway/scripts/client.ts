/**
 * Scripts as an admin and a page reach them, for the scripts suites: a tenant with the provider
 * configuration scans use ("scanner", on the fake LLM), and calls to the script endpoints.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { GatewayUrl } from "../../../src/layers/Test.ts"
import { FakeLlmServer } from "../../support/fake-llm.ts"
import { as, json } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"

/** The provider configuration ID the suites set as SCRIPT_SCAN_PROVIDER. */
export const SCANNER = "scanner"

/** A verdict as the model is asked to give it. */
export const verdict = (value: "SAFE" | "UNSAFE", ...reasons: Array<string>) =>
  JSON.stringify({ verdict: value, reasons })

export const scriptsOf = (tenant: string, options: { readonly scanner?: boolean } = {}) =>
  Effect.gen(function*() {
    const base = yield* GatewayUrl
    const fake = yield* FakeLlmServer
    const admin = as(tenant, "alice")
    /** A user of the tenant without any role: what a page sends. */
    const page = as(tenant, "bob")
    if (options.scanner !== false) {
      const provider = yield* call(
        `${base}/api/v1/admin/llm/provider-conf`,
        json(admin, { id: SCANNER, type: "openai-compatible", model: "reviewer", baseUrl: `${fake.url}/v1` })
      )
      expect(provider.status, provider.text).toBe(201)
    }
    const scripts = `${base}/api/v1/admin/scripts`
    const served = `${base}/api/v1/scripts`
    const post = (id: string, action: "scan" | "publish" | "force-publish") =>
      call(`${scripts}/${id}/${action}`, { method: "POST", headers: admin })
    const setDraft = (id: string, draftContent: string) =>
      call(`${scripts}/${id}`, json(admin, { draftContent }, "PUT"))
    /** A new script with `draft` as its draft; its ID. */
    const create = (name: string, draft?: string) =>
      Effect.gen(function*() {
        const created = yield* call(scripts, json(admin, { name }))
        expect(created.status, created.text).toBe(201)
        const id = created.json.id as string
        if (draft !== undefined) expect((yield* setDraft(id, draft)).status).toBe(200)
        return id
      })
    const read = (id: string) => call(`${scripts}/${id}`, { headers: admin }).pipe(Effect.map((reply) => reply.json))
    return { admin, base, create, fake, page, post, read, scripts, served, setDraft }
  })
