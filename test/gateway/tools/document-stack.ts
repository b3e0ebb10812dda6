/**
 * What the tool-loop tests stand on: a real broker, a gateway that reaches it (its tool loop bounded
 * at MAX_CYCLES), the fake LLM provider, and per test a tenant of its own with a provider
 * configuration and a conversation about nested_outline.pdf (page 2 "Background", page 3
 * "Motivation").
 */
import { expect } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { brokerTestLayer, BrokerUrl, gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { type FakeLlm, FakeLlmServer } from "../../support/fake-llm.ts"
import { as, json, readEvents } from "../../support/gateway.ts"
import { call, corpusFile, uploadOk } from "../../support/http.ts"

export const MAX_CYCLES = 2

/** A broker, then a gateway that reaches it, and the fake provider. */
export const documentToolsStack = (config: Readonly<Record<string, string>>) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const broker = Context.get(yield* Layer.build(brokerTestLayer()), BrokerUrl)
    return Layer.merge(
      gatewayTestLayer({
        ...config,
        GATEWAY_BROKER_URL: broker,
        GATEWAY_TOOL_MAX_CYCLES: String(MAX_CYCLES),
        PLAN_EXECUTION_POLL_INTERVAL: "100 millis",
        LLM_RETRY_BASE_DELAY: "10 millis"
      }),
      Layer.succeed(BrokerUrl, broker)
    )
  })).pipe(Layer.provideMerge(FakeLlmServer.layer))

/**
 * Tenant `tenant`'s default provider (the fields `provider` gives for the fake) and a conversation
 * about nested_outline.pdf; `ask` sends a question in it.
 */
export const documentConversation = (tenant: string, provider: (fake: FakeLlm) => Record<string, unknown>) =>
  Effect.gen(function*() {
    const base = yield* GatewayUrl
    const broker = yield* BrokerUrl
    const fake = yield* FakeLlmServer
    const user = as(tenant, "alice")
    const created = yield* call(`${base}/api/v1/admin/llm/provider-conf`, json(user, provider(fake)))
    expect(created.status, created.text).toBe(201)
    const documentId = yield* uploadOk(broker, corpusFile("pdf/nested_outline.pdf"))
    const conversation = yield* call(`${base}/api/v1/conversations`, json(user, { documentId }))
    expect(conversation.status, conversation.text).toBe(201)
    expect(conversation.json.documentId).toBe(documentId)
    const ask = (question: string, query = "") =>
      call(
        `${base}/api/v1/requests${query}`,
        json(user, {
          conversation: conversation.json.id,
          inputs: [{ role: "user", content: [{ type: "text", value: question }] }]
        })
      )
    return { base, fake, user, documentId, conversationId: conversation.json.id as string, ask }
  })

/** What the model answers once it has searched for "Motivation". */
export const MOTIVATION_ANSWER = "It is discussed under its own heading [p. 3]."

/**
 * Asks `question` with `ask` (documentConversation's), the model searching for "Motivation" and
 * then answering MOTIVATION_ANSWER, and checks what the client gets whatever the provider's
 * protocol: 201, the answer, its one search with the hits of page 3, and its citation of page 3 of
 * `documentId`. The reply, for a test's own checks.
 */
export const askAboutMotivation = (
  ask: (question: string) => Effect.Effect<{ status: number; text: string; json: any }>,
  documentId: string,
  question: string
) =>
  Effect.gen(function*() {
    const reply = yield* ask(question)
    expect(reply.status, reply.text).toBe(201)
    expect(reply.json.response).toBe(MOTIVATION_ANSWER)
    expect(reply.json.toolCalls).toHaveLength(1)
    expect(reply.json.toolCalls[0]).toMatchObject({
      cycle: 1,
      tool: "document_search",
      arguments: { query: "Motivation" }
    })
    expect(reply.json.toolCalls[0].result.hits).toContainEqual({ pageNumber: 3, text: "Motivation" })
    expect(reply.json.citations.map((c: { documentId: string; pageNumber: number }) => [c.documentId, c.pageNumber]))
      .toEqual([[documentId, 3]])
    return reply
  })

/** What the streamed tests' model answers once it has searched for "Background". */
export const BACKGROUND_ANSWER = "See the background [p. 2]."

/**
 * Asks `question` streamed in the conversation, the model searching for "Background" and then
 * answering BACKGROUND_ANSWER, and checks what the client sees whatever the provider's protocol:
 * start, the tool call, its result, the answer's deltas, the citation of page 2, done. The events,
 * for a test's own checks.
 */
export const askStreamedAboutBackground = (
  asker: { readonly base: string; readonly conversationId: string; readonly user: Record<string, string> },
  question: string
) =>
  Effect.gen(function*() {
    const { events, status } = yield* readEvents(
      `${asker.base}/api/v1/requests/stream`,
      json(asker.user, {
        conversation: asker.conversationId,
        inputs: [{ role: "user", content: [{ type: "text", value: question }] }]
      })
    )
    expect(status).toBe(200)
    const names = events.map((e) => e.event)
    expect(names.filter((n) => n !== "delta" && n !== "usage")).toEqual([
      "start",
      "tool-call",
      "tool-result",
      "citations",
      "done"
    ])
    expect(JSON.parse(events[names.indexOf("tool-call")]!.data)).toEqual({
      cycle: 1,
      tool: "document_search",
      arguments: { query: "Background" }
    })
    expect(JSON.parse(events[names.indexOf("tool-result")]!.data)).toEqual({
      cycle: 1,
      tool: "document_search",
      failed: false
    })
    const text = events.filter((e) => e.event === "delta").map((e) => JSON.parse(e.data).text).join("")
    expect(text).toBe(BACKGROUND_ANSWER)
    const citations = JSON.parse(events[names.indexOf("citations")]!.data).citations
    expect(citations.map((c: { pageNumber: number }) => c.pageNumber)).toEqual([2])
    return events
  })
