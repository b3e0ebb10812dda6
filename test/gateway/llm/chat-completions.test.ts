/**
 * The Chat Completions `LanguageModel` driven through `@effect/ai`'s own `generateText` and
 * `streamText`, over real HTTP (node:http client) against a fake OpenAI-compatible server.
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option, Stream } from "effect"
import * as ChatCompletions from "../../../src/services/gateway/llm/ChatCompletions.ts"
import { eventually, type FakeLlm, FakeLlmServer, splitText } from "../../support/fake-llm.ts"

const model = (fake: FakeLlm, options: Partial<ChatCompletions.Options> = {}) =>
  ChatCompletions.layer({ baseUrl: `${fake.url}/v1`, model: "test-model", ...options }).pipe(
    Layer.provide(NodeHttpClient.layer)
  )

// A 1×1 PNG.
const png = Uint8Array.from(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    "base64"
  )
)

const prompt: Prompt.RawInput = [
  { role: "system", content: "You describe images." },
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this picture?" },
      { type: "file", mediaType: "image/png", data: png }
    ]
  }
]

const expectedMessages = [
  { role: "system", content: "You describe images." },
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this picture?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(png).toString("base64")}` } }
    ]
  }
]

const deltas = (parts: ReadonlyArray<Response.AnyPart>) =>
  parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : []))

describe("ChatCompletions", () => {
  it.scoped("generateText: text, usage and finish reason come back; the request carries model, messages and parameters", () =>
    Effect.gen(function*() {
      const fake = yield* FakeLlmServer.scoped
      fake.script({ text: "A small red square.", usage: { promptTokens: 13, completionTokens: 5 } })

      const response = yield* LanguageModel.generateText({ prompt }).pipe(
        Effect.provide(model(fake, {
          apiKey: "sk-test",
          headers: { "x-extra": "yes" },
          query: { "api-version": "2024-10-21" },
          temperature: 0.2,
          topP: 0.9,
          maxTokens: 128
        }))
      )

      expect(response.text).toBe("A small red square.")
      expect(response.finishReason).toBe("stop")
      expect(response.usage.inputTokens).toBe(13)
      expect(response.usage.outputTokens).toBe(5)
      expect(response.usage.totalTokens).toBe(18)
      const metadata = response.content.find((part) => part.type === "response-metadata")
      expect(metadata?.type === "response-metadata" && metadata.modelId).toEqual(Option.some("test-model"))

      expect(fake.requests).toHaveLength(1)
      const request = fake.requests[0]!
      expect(request.method).toBe("POST")
      expect(request.path).toBe("/v1/chat/completions")
      expect(request.query.get("api-version")).toBe("2024-10-21")
      expect(request.headers["authorization"]).toBe("Bearer sk-test")
      expect(request.headers["x-extra"]).toBe("yes")
      expect(request.body).toEqual({
        model: "test-model",
        messages: expectedMessages,
        temperature: 0.2,
        top_p: 0.9,
        max_tokens: 128
      })
    }))

  it.scoped("generateText: a user message of one text part goes as a plain string; assistant turns go as text", () =>
    Effect.gen(function*() {
      const fake = yield* FakeLlmServer.scoped
      yield* LanguageModel.generateText({
        prompt: [
          { role: "user", content: "Hi" },
          { role: "assistant", content: [{ type: "text", text: "Hello!" }] },
          { role: "user", content: "Bye" }
        ]
      }).pipe(Effect.provide(model(fake)))
      expect(fake.requests[0]!.body.messages).toEqual([
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello!" },
        { role: "user", content: "Bye" }
      ])
      expect(fake.requests[0]!.headers["authorization"]).toBeUndefined()
    }))

  it.scoped("streamText: deltas in order, the first before the server has sent the last chunk; then text-end and finish with usage", () =>
    Effect.gen(function*() {
      const fake = yield* FakeLlmServer.scoped
      const text = "one two three four five six"
      fake.script({
        text,
        chunks: 6,
        delayMs: 150,
        usage: { promptTokens: 21, completionTokens: 6 },
        finishReason: "length"
      })

      let atFirstDelta: { chunksSent: number; completed: boolean } | undefined
      const parts: Array<Response.AnyPart> = []
      yield* LanguageModel.streamText({ prompt }).pipe(
        Stream.runForEach((part) =>
          Effect.sync(() => {
            if (part.type === "text-delta" && atFirstDelta === undefined) {
              const request = fake.requests[0]!
              atFirstDelta = { chunksSent: request.chunksSent, completed: request.completed }
            }
            parts.push(part)
          })
        ),
        Effect.provide(model(fake))
      )

      expect(deltas(parts)).toEqual(splitText(text, 6))
      expect(atFirstDelta).toBeDefined()
      expect(atFirstDelta!.completed).toBe(false)
      expect(atFirstDelta!.chunksSent).toBeLessThan(6)

      expect(parts.map((part) => part.type)).toEqual([
        "response-metadata",
        "text-start",
        ...Array(6).fill("text-delta"),
        "text-end",
        "finish"
      ])
      const finish = parts.at(-1)
      expect(finish?.type === "finish" && finish.reason).toBe("length")
      expect(finish?.type === "finish" && finish.usage).toMatchObject({
        inputTokens: 21,
        outputTokens: 6,
        totalTokens: 27
      })

      const body = fake.requests[0]!.body
      expect(body).toMatchObject({
        model: "test-model",
        messages: expectedMessages,
        stream: true,
        stream_options: { include_usage: true }
      })
      expect(fake.requests[0]!.completed).toBe(true)
    }))

  it.scoped("a 400 is an HttpResponseError carrying the status and the server's message", () =>
    Effect.gen(function*() {
      const fake = yield* FakeLlmServer.scoped
      fake.script({
        fail: {
          status: 400,
          times: 2,
          message: "This model's maximum context length is 8192 tokens.",
          code: "context_length_exceeded"
        }
      })

      const error = yield* Effect.flip(
        LanguageModel.generateText({ prompt: "Hi" }).pipe(Effect.provide(model(fake, { apiKey: "sk-secret" })))
      )
      expect(AiError.isAiError(error)).toBe(true)
      expect(error._tag).toBe("HttpResponseError")
      if (error._tag !== "HttpResponseError") return
      expect(error.reason).toBe("StatusCode")
      expect(error.response.status).toBe(400)
      expect(error.description).toBe("This model's maximum context length is 8192 tokens.")
      expect(JSON.parse(error.body!).error.code).toBe("context_length_exceeded")
      expect(error.message).toContain("maximum context length")
      expect(JSON.stringify(error.request.headers)).not.toContain("sk-secret")

      const streamed = yield* Effect.flip(
        LanguageModel.streamText({ prompt: "Hi" }).pipe(Stream.runDrain, Effect.provide(model(fake)))
      )
      expect(streamed._tag === "HttpResponseError" && streamed.response.status).toBe(400)
      expect(streamed._tag === "HttpResponseError" && streamed.description).toBe(
        "This model's maximum context length is 8192 tokens."
      )
    }))

  it.scoped("429 and 500 carry their status for the next K requests only", () =>
    Effect.gen(function*() {
      const fake = yield* FakeLlmServer.scoped
      const generate = LanguageModel.generateText({ prompt: "Hi" }).pipe(Effect.provide(model(fake)))
      const status = (
        error: AiError.AiError
      ) => (error._tag === "HttpResponseError" ? error.response.status : undefined)

      fake.script({ text: "finally", fail: { status: 429, times: 2, message: "Rate limit reached" } })
      expect(status(yield* Effect.flip(generate))).toBe(429)
      expect(status(yield* Effect.flip(generate))).toBe(429)
      expect((yield* generate).text).toBe("finally")

      fake.script({ fail: { status: 500 } })
      const error = yield* Effect.flip(generate)
      expect(status(error)).toBe(500)
      expect(error._tag === "HttpResponseError" && error.description).toBe("Scripted failure with status 500")
    }))

  it.scoped("a refused connection is an HttpRequestError", () =>
    Effect.gen(function*() {
      const fake = yield* FakeLlmServer.scoped
      const url = fake.url
      yield* Effect.promise(() => fake.close())
      const error = yield* Effect.flip(
        LanguageModel.generateText({ prompt: "Hi" }).pipe(Effect.provide(model({ ...fake, url })))
      )
      expect(error._tag).toBe("HttpRequestError")
      expect(error._tag === "HttpRequestError" && error.reason).toBe("Transport")
    }))

  it.scoped("interrupting the stream mid-way disconnects from the server", () =>
    Effect.gen(function*() {
      const fake = yield* FakeLlmServer.scoped
      fake.script({ text: "x".repeat(40), chunks: 20, delayMs: 100 })

      const firstDelta = yield* Deferred.make<void>()
      const fiber = yield* LanguageModel.streamText({ prompt: "Count slowly" }).pipe(
        Stream.runForEach((
          part
        ) => (part.type === "text-delta" ? Deferred.succeed(firstDelta, undefined) : Effect.void)),
        Effect.provide(model(fake)),
        Effect.fork
      )
      yield* Deferred.await(firstDelta)
      yield* Fiber.interrupt(fiber)

      const request = fake.requests[0]!
      yield* eventually(() => request.disconnected, 5_000, "the client to disconnect")
      expect(request.completed).toBe(false)
      expect(request.chunksSent).toBeLessThan(20)
    }))

  it.scoped("taking only part of the stream also ends the request", () =>
    Effect.gen(function*() {
      const fake = yield* FakeLlmServer.scoped
      fake.script({ text: "y".repeat(40), chunks: 20, delayMs: 100 })
      const firstTwo = yield* LanguageModel.streamText({ prompt: "Count slowly" }).pipe(
        Stream.filter((part) => part.type === "text-delta"),
        Stream.take(2),
        Stream.runCollect,
        Effect.provide(model(fake))
      )
      expect(firstTwo.length).toBe(2)
      yield* eventually(() => fake.requests[0]!.disconnected, 5_000, "the client to disconnect")
      expect(fake.requests[0]!.completed).toBe(false)
    }))
})
