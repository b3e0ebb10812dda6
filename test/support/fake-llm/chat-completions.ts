/**
 * The fake provider's Chat Completions route (OpenAI, Ollama, vLLM, LM Studio, Mistral, Azure,
 * Gemini's compatible endpoint): the answer whole or as `chat.completion.chunk` events, its text or
 * its tool calls (finish reason `tool_calls`), usage when the client asks for it.
 */
import { halves, json, modelOf, type Route, sse, startEventStream, streamPieces, toolCallsOf } from "./script.ts"

export const chatCompletions: Route = async (ctx) => {
  const { res, record, script } = ctx
  const id = `chatcmpl-fake-${Math.random().toString(36).slice(2, 10)}`
  const created = Math.floor(Date.now() / 1000)
  const model = modelOf(record)
  const usage = {
    prompt_tokens: script.usage.promptTokens,
    completion_tokens: script.usage.completionTokens,
    total_tokens: script.usage.promptTokens + script.usage.completionTokens
  }
  const calls = toolCallsOf(script, "call_")?.map((call, index) => ({
    index,
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments }
  }))
  if (record.body?.stream !== true) {
    record.firstTextAt = performance.now()
    const message = calls === undefined
      ? { role: "assistant", content: script.text }
      : { role: "assistant", content: null, tool_calls: calls.map(({ index: _, ...call }) => call) }
    json(res, 200, {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: calls === undefined ? script.finishReason : "tool_calls" }],
      usage
    })
    record.completed = true
    return
  }
  startEventStream(res)
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
    JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason }]
    })
  if (calls !== undefined) {
    // Each call's name and first half of its arguments, then the rest, as providers send them.
    for (const call of calls) {
      const [head, tail] = halves(call.function.arguments)
      const first = { ...call, function: { name: call.function.name, arguments: head } }
      const rest = { index: call.index, function: { arguments: tail } }
      if (!sse(ctx, chunk({ role: "assistant", tool_calls: [first] }, null))) return
      if (!sse(ctx, chunk({ tool_calls: [rest] }, null))) return
    }
  } else if (
    !(await streamPieces(
      ctx,
      (piece, i) => sse(ctx, chunk(i === 0 ? { role: "assistant", content: piece } : { content: piece }, null))
    ))
  ) return
  if (!sse(ctx, chunk({}, calls === undefined ? script.finishReason : "tool_calls"))) return
  if (record.body?.stream_options?.include_usage === true) {
    if (!sse(ctx, JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage }))) return
  }
  if (!sse(ctx, "[DONE]")) return
  res.end()
  record.completed = true
}
