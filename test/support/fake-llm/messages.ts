/**
 * The fake provider's route for Anthropic's Messages API: the answer whole or as its streamed
 * events (message_start, content blocks, message_delta, message_stop), its text or its tool calls
 * as `tool_use` blocks (stop reason `tool_use`), and Anthropic's error body.
 */
import {
  type Failure,
  halves,
  json,
  modelOf,
  randomId,
  type Route,
  sse,
  startEventStream,
  streamPieces,
  toolCallsOf
} from "./script.ts"

const anthropicStopReason = (finishReason: string) => (finishReason === "length" ? "max_tokens" : "end_turn")

export const messages: Route = async (ctx) => {
  const { res, record, script } = ctx
  const id = randomId("msg_")
  const model = modelOf(record)
  const stopReason = anthropicStopReason(script.finishReason)
  const usage = {
    input_tokens: script.usage.promptTokens,
    output_tokens: script.usage.completionTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0
  }
  const message = (content: Array<unknown>, stop: string | null, messageUsage: Record<string, number>) => ({
    id,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: messageUsage
  })
  const calls = toolCallsOf(script, "toolu_")
  if (record.body?.stream !== true) {
    record.firstTextAt = performance.now()
    const content = calls === undefined
      ? [{ type: "text", text: script.text }]
      : calls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: JSON.parse(call.arguments) }))
    json(res, 200, message(content, calls === undefined ? stopReason : "tool_use", usage))
    record.completed = true
    return
  }
  startEventStream(res)
  const event = (type: string, fields: Record<string, unknown>) => sse(ctx, JSON.stringify({ type, ...fields }), type)
  if (!event("message_start", { message: message([], null, { ...usage, output_tokens: 1 }) })) return
  if (calls !== undefined) {
    // Each call a tool_use block of its own, its input JSON in two pieces.
    for (const [index, call] of calls.entries()) {
      const block = { type: "tool_use", id: call.id, name: call.name, input: {} }
      if (!event("content_block_start", { index, content_block: block })) return
      for (const partial_json of halves(call.arguments)) {
        if (!event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } })) return
      }
      if (!event("content_block_stop", { index })) return
    }
    if (
      !event("message_delta", {
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: script.usage.completionTokens }
      })
    ) return
    if (!event("message_stop", {})) return
    res.end()
    record.completed = true
    return
  }
  if (!event("content_block_start", { index: 0, content_block: { type: "text", text: "" } })) return
  if (!event("ping", {})) return
  const written = await streamPieces(
    ctx,
    (text) => event("content_block_delta", { index: 0, delta: { type: "text_delta", text } })
  )
  if (!written) return
  if (!event("content_block_stop", { index: 0 })) return
  if (
    !event("message_delta", {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: script.usage.completionTokens }
    })
  ) return
  if (!event("message_stop", {})) return
  res.end()
  record.completed = true
}

/** Anthropic's error body. */
export const anthropicError = (fail: Failure) => ({
  type: "error",
  error: {
    type: fail.type ??
      (fail.status === 400
        ? "invalid_request_error"
        : fail.status === 401
        ? "authentication_error"
        : fail.status === 429
        ? "rate_limit_error"
        : fail.status === 529
        ? "overloaded_error"
        : "api_error"),
    message: fail.message ?? `Scripted failure with status ${fail.status}`
  }
})
