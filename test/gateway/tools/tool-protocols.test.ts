/**
 * The tool loop over the `openai` (Responses API, `function_call` items) and `anthropic` (Messages
 * API, `tool_use` blocks) provider types, whole and streamed, with the real `@effect/ai-openai` and
 * `@effect/ai-anthropic` clients against the fake provider on loopback and a real broker: the
 * document tools offered in each protocol's shape, the model's call run, its result sent back as
 * that protocol says (`function_call_output`, `tool_result`), then the answer with its citation.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { defaultBackend } from "../../support/backends.ts"
import type { FakeLlm, RecordedRequest } from "../../support/fake-llm.ts"
import {
  askAboutMotivation,
  askStreamedAboutBackground,
  BACKGROUND_ANSWER,
  documentConversation,
  documentToolsStack,
  MOTIVATION_ANSWER
} from "./document-stack.ts"

interface ProtocolCase {
  readonly type: "openai" | "anthropic"
  readonly provider: (fake: FakeLlm) => Record<string, unknown>
  /** The names of the tools a request offered. */
  readonly offered: (body: any) => Array<string>
  /** The tool result the request sends back, if its last turn is one: the call it answers and its text. */
  readonly toolResult: (body: any) => { readonly callId: string; readonly text: string } | undefined
  /** The call the model made, as the next request repeats it before its result. */
  readonly repeatedCall: (body: any) => { readonly callId: string; readonly name: string; readonly arguments: unknown }
}

const cases: ReadonlyArray<ProtocolCase> = [
  {
    type: "openai",
    provider: (fake) => ({ type: "openai", model: "gpt-4.1-mini", baseUrl: `${fake.url}/v1`, apiKey: "sk-test" }),
    offered: (body) => body.tools.map((tool: { name: string }) => tool.name),
    toolResult: (body) => {
      const item = body.input.at(-1)
      return item.type === "function_call_output" ? { callId: item.call_id, text: item.output } : undefined
    },
    repeatedCall: (body) => {
      const item = body.input.find((i: { type: string }) => i.type === "function_call")
      return { callId: item.call_id, name: item.name, arguments: JSON.parse(item.arguments) }
    }
  },
  {
    type: "anthropic",
    provider: (fake) => ({ type: "anthropic", model: "claude-sonnet-4-5", baseUrl: fake.url, apiKey: "sk-ant-test" }),
    offered: (body) => body.tools.map((tool: { name: string }) => tool.name),
    toolResult: (body) => {
      const content = body.messages.at(-1).content
      const result = Array.isArray(content)
        ? content.find((p: { type: string }) => p.type === "tool_result")
        : undefined
      if (result === undefined) return undefined
      const text = typeof result.content === "string"
        ? result.content
        : result.content.map((p: { text: string }) => p.text).join("")
      return { callId: result.tool_use_id, text }
    },
    repeatedCall: (body) => {
      const block = body.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
        .find((p: { type: string }) => p.type === "tool_use")
      return { callId: block.id, name: block.name, arguments: block.input }
    }
  }
]

/** The requests the fake received for the question tagged `marker`. */
const asked = (fake: FakeLlm, marker: string): Array<RecordedRequest> =>
  fake.requests.filter((r) => JSON.stringify(r.body).includes(marker))

layer(documentToolsStack(defaultBackend.config), { timeout: 120_000 })("the tool loop over other protocols", (it) => {
  for (const protocol of cases) {
    describe(protocol.type, () => {
      const setup = (tenant: string) =>
        documentConversation(tenant, (fake) => ({
          id: protocol.type,
          ...protocol.provider(fake),
          isDefault: true,
          capabilities: { tools: true }
        }))

      /** The model searches for `query`, then answers `answer` once the search's result comes back. */
      const searchThenAnswer = (fake: FakeLlm, marker: string, query: string, answer: string) =>
        fake.respond((body) => {
          if (!JSON.stringify(body).includes(marker)) return undefined
          return protocol.toolResult(body) !== undefined
            ? { text: answer }
            : { toolCalls: [{ name: "document_search", arguments: { query } }] }
        })

      it.effect("whole: the model's search is run, its result sent back, the answer cites the page", () =>
        Effect.gen(function*() {
          const marker = `WHOLE-${protocol.type}`
          const { ask, documentId, fake } = yield* setup(`tools-${protocol.type}-whole`)
          searchThenAnswer(fake, marker, "Motivation", MOTIVATION_ANSWER)
          yield* askAboutMotivation(ask, documentId, `${marker} Where is the motivation?`)
          // On the wire: the tools offered in the protocol's shape, then the call and its result.
          const [first, second] = asked(fake, marker)
          expect(protocol.offered(first!.body)).toEqual(["document_outline", "document_page_text", "document_search"])
          const call = protocol.repeatedCall(second!.body)
          expect(call).toMatchObject({ name: "document_search", arguments: { query: "Motivation" } })
          const result = protocol.toolResult(second!.body)!
          expect(result.callId).toBe(call.callId)
          expect(JSON.parse(result.text).hits).toContainEqual({ pageNumber: 3, text: "Motivation" })
        }))

      it.effect("streamed: tool-call and tool-result events, the answer's deltas, citations, done", () =>
        Effect.gen(function*() {
          const marker = `STREAM-${protocol.type}`
          const { base, conversationId, fake, user } = yield* setup(`tools-${protocol.type}-stream`)
          searchThenAnswer(fake, marker, "Background", BACKGROUND_ANSWER)
          yield* askStreamedAboutBackground({ base, conversationId, user }, `${marker} background?`)
          const result = protocol.toolResult(asked(fake, marker).at(-1)!.body)!
          expect(JSON.parse(result.text).hits).toContainEqual({ pageNumber: 2, text: "Background" })
        }))
    })
  }
})
