/**
 * Calls to the gateway as a client makes them: trusted identity headers, JSON bodies, SSE answers
 * read with eventsource-parser, and the spec's error body checked exactly.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { createParser, type EventSourceMessage } from "eventsource-parser"
import { GatewayUrl } from "../../src/layers/Test.ts"
import { FakeLlmServer } from "./fake-llm.ts"
import { call } from "./http.ts"

/** Trusted headers for a tenant, a user and (comma-separated) roles. */
export const as = (tenant: string, user: string, roles = "") => ({
  "x-tenant-id": tenant,
  "x-user-id": user,
  ...(roles ? { "x-user-roles": roles } : {})
})

export const json = (headers: Record<string, string>, body: unknown, method = "POST") => ({
  method,
  headers: { ...headers, "content-type": "application/json" },
  body: JSON.stringify(body)
})

/** Every error answer is exactly the spec's body. */
export const expectErrorBody = (reply: { status: number; json: any }, status: number, code: string) => {
  expect(reply.status).toBe(status)
  expect(Object.keys(reply.json).sort()).toEqual(["code", "message", "status"])
  expect(reply.json).toMatchObject({ code, status })
  expect(reply.json.message.length).toBeGreaterThan(5)
}

/** Reads an SSE answer as the events arrive; `onEvent` may stop reading by returning true. */
export const readEvents = (
  url: string,
  init: RequestInit,
  onEvent: (event: EventSourceMessage, all: Array<EventSourceMessage>) => boolean | void = () => {}
) =>
  Effect.promise(async () => {
    const controller = new AbortController()
    const response = await fetch(url, { ...init, signal: controller.signal })
    const events: Array<EventSourceMessage> = []
    let stop = false
    const parser = createParser({
      onEvent: (event) => {
        events.push(event)
        if (onEvent(event, events) === true) stop = true
      }
    })
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    while (!stop) {
      const { done, value } = await reader.read()
      if (done) break
      parser.feed(decoder.decode(value, { stream: true }))
    }
    if (stop) controller.abort()
    return { status: response.status, headers: response.headers, events }
  })

/** Makes the fake LLM provider the tenant's default provider configuration, `local` (model llama3). */
export const useFakeProvider = (
  base: string,
  fakeUrl: string,
  headers: Record<string, string>,
  extra: Record<string, unknown> = {}
) =>
  call(
    `${base}/api/v1/admin/llm/provider-conf`,
    json(headers, {
      id: "local",
      type: "openai-compatible",
      model: "llama3",
      baseUrl: `${fakeUrl}/v1`,
      isDefault: true,
      ...extra
    })
  )

/** Tenant `tenant` with the MCP server at `url` (offered in requests) and the fake provider (tools on). */
export const mcpTenant = (tenant: string, serverId: string, url: string) =>
  Effect.gen(function*() {
    const base = yield* GatewayUrl
    const fake = yield* FakeLlmServer
    const headers = as(tenant, "admin")
    const server = yield* call(
      `${base}/api/v1/admin/mcp/mcp-conf`,
      json(headers, { id: serverId, url, useInRequests: true })
    )
    expect(server.status, server.text).toBe(201)
    const provider = yield* useFakeProvider(base, fake.url, headers, { capabilities: { tools: true } })
    expect(provider.status, provider.text).toBe(201)
    const ask = (question: string) =>
      Effect.gen(function*() {
        const reply = yield* call(
          `${base}/api/v1/requests`,
          json(headers, { inputs: [{ role: "user", content: [{ type: "text", value: question }] }] })
        )
        expect(reply.status, reply.text).toBe(201)
        return reply.json
      })
    return { base, fake, headers, ask }
  })
