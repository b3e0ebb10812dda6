/**
 * The fake provider's route for OpenAI's Responses API: the answer whole or as `response.*`
 * events, its text as one message item or its tool calls as `function_call` items; "length" is
 * reported as an incomplete response, the one finish reason this API has.
 */
import {
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

export const responses: Route = async (ctx) => {
  const { res, record, script } = ctx
  const id = randomId("resp_")
  const itemId = randomId("msg_")
  const model = modelOf(record)
  const usage = {
    input_tokens: script.usage.promptTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: script.usage.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: script.usage.promptTokens + script.usage.completionTokens
  }
  // "length" is the one finish reason the Responses API reports, as an incomplete response.
  const incomplete = script.finishReason === "length"
  const response = (status: string, output: Array<unknown>, withUsage: boolean) => ({
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: incomplete && status !== "in_progress" ? { reason: "max_output_tokens" } : null,
    instructions: null,
    max_output_tokens: record.body?.max_output_tokens ?? null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: record.body?.store ?? true,
    temperature: record.body?.temperature ?? 1,
    text: { format: { type: "text" } },
    tool_choice: record.body?.tool_choice ?? "auto",
    tools: [],
    top_p: record.body?.top_p ?? 1,
    truncation: "disabled",
    usage: withUsage ? usage : null,
    user: null,
    metadata: {}
  })
  const message = (status: string, text: string) => ({
    type: "message",
    id: itemId,
    status,
    role: "assistant",
    content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [] }]
  })
  const finalStatus = incomplete ? "incomplete" : "completed"
  const calls = toolCallsOf(script, "call_")?.map((call) => ({
    type: "function_call",
    id: randomId("fc_"),
    call_id: call.id,
    name: call.name,
    arguments: call.arguments,
    status: "completed"
  }))
  if (record.body?.stream !== true) {
    record.firstTextAt = performance.now()
    json(res, 200, response(finalStatus, calls ?? [message("completed", script.text)], true))
    record.completed = true
    return
  }
  startEventStream(res)
  let sequence = 0
  const event = (type: string, fields: Record<string, unknown>) =>
    sse(ctx, JSON.stringify({ type, sequence_number: sequence++, ...fields }), type)
  const part = (text: string) => ({ type: "output_text", text, annotations: [] })
  if (!event("response.created", { response: response("in_progress", [], false) })) return
  if (!event("response.in_progress", { response: response("in_progress", [], false) })) return
  if (calls !== undefined) {
    // Each call an output item of its own: added empty, its arguments in two pieces, done whole.
    for (const [index, call] of calls.entries()) {
      const at = { item_id: call.id, output_index: index }
      if (
        !event("response.output_item.added", {
          output_index: index,
          item: { ...call, arguments: "", status: "in_progress" }
        })
      ) return
      for (const delta of halves(call.arguments)) {
        if (!event("response.function_call_arguments.delta", { ...at, delta })) return
      }
      if (!event("response.function_call_arguments.done", { ...at, arguments: call.arguments })) return
      if (!event("response.output_item.done", { output_index: index, item: call })) return
    }
    if (!event("response.completed", { response: response("completed", calls, true) })) return
    res.end()
    record.completed = true
    return
  }
  if (!event("response.output_item.added", { output_index: 0, item: message("in_progress", "") })) return
  if (!event("response.content_part.added", { item_id: itemId, output_index: 0, content_index: 0, part: part("") })) {
    return
  }
  const written = await streamPieces(
    ctx,
    (delta) =>
      event("response.output_text.delta", { item_id: itemId, output_index: 0, content_index: 0, delta, logprobs: [] })
  )
  if (!written) return
  if (
    !event("response.output_text.done", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      text: script.text,
      logprobs: []
    })
  ) return
  if (
    !event("response.content_part.done", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: part(script.text)
    })
  ) return
  if (!event("response.output_item.done", { output_index: 0, item: message("completed", script.text) })) return
  if (
    !event(`response.${finalStatus}`, { response: response(finalStatus, [message("completed", script.text)], true) })
  ) return
  res.end()
  record.completed = true
}
