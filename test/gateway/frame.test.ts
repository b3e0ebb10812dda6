/**
 * The gateway's frame as a client sees it: the error body on every error path, tenant and user
 * resolution, admin role enforcement, tenant isolation and masked keys of LLM provider configs,
 * the actuator and the API description.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SignJWT } from "jose"
import { gatewayTestLayer, GatewayUrl } from "../../src/layers/Test.ts"
import { defaultBackend } from "../support/backends.ts"
import { as, expectErrorBody, json } from "../support/gateway.ts"
import { call } from "../support/http.ts"

const provider = { id: "main", type: "openai", model: "gpt-4o-mini", apiKey: "sk-test-0123456789-WXYZ" }

describe("gateway", () => {
  layer(gatewayTestLayer(defaultBackend.config), { timeout: 120_000 })("with trusted headers", (it) => {
    it.effect("resolves tenant and user; MISSING_TENANT and MISSING_USER otherwise", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const details = yield* call(`${base}/api/v1/users/details`, { headers: as("acme", "alice", "admin,editor") })
        expect(details.status).toBe(200)
        expect(details.json).toMatchObject({
          tenantId: "acme",
          userId: "alice",
          roles: ["admin", "editor"],
          admin: true,
          authentication: "headers"
        })
        expectErrorBody(yield* call(`${base}/api/v1/users/details`), 400, "MISSING_TENANT")
        expectErrorBody(
          yield* call(`${base}/api/v1/users/details`, { headers: { "x-tenant-id": "acme" } }),
          400,
          "MISSING_USER"
        )
      }))

    it.effect("every error path answers {code, message, status}", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const admin = as("acme", "alice")
        expectErrorBody(yield* call(`${base}/api/v1/nothing-here`, { headers: admin }), 404, "RESOURCE_NOT_FOUND")
        expectErrorBody(
          yield* call(`${base}/api/v1/admin/llm/provider-conf`, {
            method: "POST",
            headers: { ...admin, "content-type": "application/json" },
            body: "{"
          }),
          400,
          "BAD_REQUEST"
        )
        expectErrorBody(
          yield* call(`${base}/api/v1/admin/llm/provider-conf`, json(admin, { id: "x", type: "nope", model: "m" })),
          400,
          "BAD_REQUEST"
        )
        // What `curl -d` sends: a form, answered with what is wrong (not JSON), not with the fields it lacks.
        const form = yield* call(`${base}/api/v1/requests`, {
          method: "POST",
          headers: { ...admin, "content-type": "application/x-www-form-urlencoded" },
          body: JSON.stringify({ inputs: [] })
        })
        expectErrorBody(form, 400, "BAD_REQUEST")
        expect(form.json.message).toContain("Content-Type: application/json")
        expectErrorBody(
          yield* call(`${base}/api/v1/admin/llm/provider-conf/absent`, { headers: admin }),
          404,
          "LLM_PROVIDER_NOT_FOUND"
        )
        expectErrorBody(
          yield* call(`${base}/api/v1/admin/llm/providers/nope/extra-params`, { headers: admin }),
          404,
          "LLM_PROVIDER_NOT_FOUND"
        )
      }))

    it.effect("LLM provider configurations: CRUD, 409 on an existing ID, the key masked on every read, one tenant never sees another's", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const conf = `${base}/api/v1/admin/llm/provider-conf`
        const acme = as("acme", "alice")
        const globex = as("globex", "bob")
        expect((yield* call(`${base}/api/v1/admin/llm/providers`, { headers: acme })).json).toEqual([
          "openai",
          "anthropic",
          "gemini",
          "openai-compatible"
        ])
        const anthropicParams =
          (yield* call(`${base}/api/v1/admin/llm/providers/anthropic/extra-params`, { headers: acme })).json
        expect(anthropicParams.find((p: { name: string }) => p.name === "maxTokens")).toMatchObject({ required: true })

        const created = yield* call(conf, json(acme, provider))
        expect(created.status).toBe(201)
        expect(created.json).toMatchObject({ id: "main", type: "openai", model: "gpt-4o-mini", apiKey: "****WXYZ" })
        expect(JSON.stringify(created.json)).not.toContain("0123456789")
        expectErrorBody(yield* call(conf, json(acme, provider)), 409, "CONFLICT")

        // Another tenant: nothing to see, and the same ID is free there.
        expect((yield* call(conf, { headers: globex })).json).toEqual([])
        expectErrorBody(yield* call(`${conf}/main`, { headers: globex }), 404, "LLM_PROVIDER_NOT_FOUND")
        expectErrorBody(
          yield* call(`${conf}/main`, { method: "DELETE", headers: globex }),
          404,
          "LLM_PROVIDER_NOT_FOUND"
        )
        expect((yield* call(conf, json(globex, { ...provider, apiKey: "other-tenant-key-9999" }))).json.apiKey).toBe(
          "****9999"
        )

        // An update without a key keeps the key; reads never show it.
        const updated = yield* call(
          `${conf}/main`,
          json(acme, { id: "main", type: "openai", model: "gpt-4.1", capabilities: { vision: true } }, "PUT")
        )
        expect(updated.status).toBe(200)
        expect(updated.json).toMatchObject({
          model: "gpt-4.1",
          apiKey: "****WXYZ",
          capabilities: { vision: true, tools: false }
        })
        expect((yield* call(conf, { headers: acme })).json.map((c: { apiKey: string }) => c.apiKey)).toEqual([
          "****WXYZ"
        ])
        expectErrorBody(
          yield* call(`${conf}/main`, json(acme, { ...provider, id: "other" }, "PUT")),
          400,
          "BAD_REQUEST"
        )
        // The path names the configuration; the body need not repeat it.
        expect((yield* call(`${conf}/main`, json(acme, { type: "openai", model: "gpt-4.1-mini" }, "PUT"))).json)
          .toMatchObject({ id: "main", model: "gpt-4.1-mini" })
        expectErrorBody(
          yield* call(`${conf}/no%20such`, json(acme, { type: "openai", model: "m" }, "PUT")),
          404,
          "LLM_PROVIDER_NOT_FOUND"
        )
        expectErrorBody(
          yield* call(conf, json(acme, { id: "local", type: "openai-compatible", model: "llama3" })),
          400,
          "BAD_REQUEST"
        )

        expect((yield* call(`${conf}/main`, { method: "DELETE", headers: acme })).status).toBe(204)
        expectErrorBody(yield* call(`${conf}/main`, { headers: acme }), 404, "LLM_PROVIDER_NOT_FOUND")
        expect((yield* call(`${conf}/main`, { headers: globex })).status).toBe(200)
      }))

    it.effect("actuator: health public, info public, loggers for admins and changeable at run time; the API described", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        expect((yield* call(`${base}/actuator/health`)).json).toMatchObject({ status: "UP" })
        expect((yield* call(`${base}/actuator/info`)).json.app.name).toContain("gateway")
        expectErrorBody(yield* call(`${base}/actuator/loggers`), 400, "MISSING_TENANT")
        const admin = as("acme", "alice")
        expect((yield* call(`${base}/actuator/loggers`, { headers: admin })).json.loggers.ROOT).toEqual({
          configuredLevel: null,
          effectiveLevel: "INFO"
        })
        expect((yield* call(`${base}/actuator/loggers/ROOT`, json(admin, { configuredLevel: "WARN" }))).status).toBe(
          204
        )
        expect((yield* call(`${base}/actuator/loggers`, { headers: admin })).json.loggers.http).toEqual({
          configuredLevel: null,
          effectiveLevel: "WARN"
        })
        expect((yield* call(`${base}/actuator/loggers/ROOT`, { headers: admin })).json).toEqual({
          configuredLevel: "WARN",
          effectiveLevel: "WARN"
        })
        expect((yield* call(`${base}/actuator/loggers/anything.else`, { headers: admin })).json).toEqual({
          configuredLevel: null,
          effectiveLevel: "WARN"
        })
        expect((yield* call(`${base}/actuator/loggers/ROOT`, json(admin, { configuredLevel: null }))).status).toBe(204)
        const api = (yield* call(`${base}/v3/api-docs`)).json
        expect(Object.keys(api.paths)).toEqual(
          expect.arrayContaining(["/actuator/health", "/api/v1/users/details", "/api/v1/admin/llm/provider-conf"])
        )
        // The explorer can send the identity headers: every /api operation names them.
        expect(api.components.securitySchemes.tenant).toEqual(
          expect.objectContaining({ type: "apiKey", in: "header", name: "x-tenant-id" })
        )
        expect(api.paths["/api/v1/requests"].post.security).toContainEqual({ tenant: [], user: [] })
        expect(api.paths["/actuator/health"].get.security).toEqual([])
        expect((yield* call(`${base}/swagger-ui/index.html`)).status).toBe(200)
      }))
  })

  layer(gatewayTestLayer({ ...defaultBackend.config, GATEWAY_ROLE_SECURITY: "true", ADMIN_ROLE: "gw-admin" }), {
    timeout: 120_000
  })("with role-based security", (it) => {
    it.effect("admin endpoints need the admin role (403); user endpoints do not", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        expectErrorBody(
          yield* call(`${base}/api/v1/admin/llm/provider-conf`, { headers: as("acme", "carol", "editor") }),
          403,
          "FORBIDDEN"
        )
        expect(
          (yield* call(`${base}/api/v1/admin/llm/provider-conf`, { headers: as("acme", "dave", "editor,gw-admin") }))
            .status
        ).toBe(200)
        expect((yield* call(`${base}/api/v1/users/details`, { headers: as("acme", "carol", "editor") })).json.admin)
          .toBe(false)
      }))
  })

  const secret = "a-test-secret-that-is-long-enough-for-hs256"
  layer(
    gatewayTestLayer({ ...defaultBackend.config, GATEWAY_AUTH: "jwt", JWT_SECRET: secret, JWT_TENANT_CLAIM: "org.id" }),
    { timeout: 120_000 }
  )("with JWT", (it) => {
    const token = (claims: Record<string, unknown>, key = secret) =>
      Effect.promise(() =>
        new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime("5m").sign(
          new TextEncoder().encode(key)
        )
      )

    it.effect("takes tenant, user and roles from a verified token; refuses others with UNAUTHORIZED", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const good = yield* token({ sub: "erin", org: { id: "initech" }, roles: ["admin"] })
        const details = yield* call(`${base}/api/v1/users/details`, { headers: { authorization: `Bearer ${good}` } })
        expect(details.json).toMatchObject({
          tenantId: "initech",
          userId: "erin",
          roles: ["admin"],
          admin: true,
          authentication: "jwt"
        })
        expectErrorBody(yield* call(`${base}/api/v1/users/details`), 401, "UNAUTHORIZED")
        expect((yield* call(`${base}/v3/api-docs`)).json.paths["/api/v1/users/details"].get.security).toEqual([{
          bearer: []
        }])
        expectErrorBody(
          yield* call(`${base}/api/v1/users/details`, {
            headers: {
              authorization: `Bearer ${yield* token(
                { sub: "erin", org: { id: "x" } },
                "another-secret-of-enough-length-000"
              )}`
            }
          }),
          401,
          "UNAUTHORIZED"
        )
        expectErrorBody(
          yield* call(`${base}/api/v1/users/details`, {
            headers: { authorization: `Bearer ${yield* token({ sub: "erin" })}` }
          }),
          400,
          "MISSING_TENANT"
        )
        // Trusted headers mean nothing in this mode.
        expectErrorBody(
          yield* call(`${base}/api/v1/users/details`, { headers: as("acme", "alice") }),
          401,
          "UNAUTHORIZED"
        )
      }))
  })
})
