/**
 * The streamed answer (POST /requests/stream): the tool loop's parts as GenerationEvents (start,
 * deltas, each tool call and its result, usage, citations, then done or error), which the handler
 * sends as server-sent events. The outcome is recorded once, whether the generation ends, fails,
 * is stopped or loses its client.
 */
import type { AiError, Response, Tool } from "@effect/ai"
import { Cause, Effect, Exit, Option, Stream } from "effect"
import { type ErrorBody, InternalError, type ToolCyclesExceeded } from "../../../schemas/gateway/GatewayErrors.ts"
import type { GenerationEvent } from "../../../schemas/gateway/Requests.ts"
import type { Citation } from "../../../schemas/gateway/Tools.ts"
import { describeFailure, newErrorId } from "../../common/InternalErrors.ts"
import { type ChosenModel, toGatewayError } from "../llm/Llm.ts"
import type { Outcome } from "../records/RequestRecorder.ts"

/** The request being answered, as prepared by Requests. */
export interface StreamedRequest {
  readonly id: string
  readonly conversationId: string
  readonly chosen: ChosenModel
}

/** What the tool loop streams: every answer's parts, cycle after cycle. */
export type LoopParts = Stream.Stream<
  Response.StreamPart<Record<string, Tool.Any>>,
  AiError.AiError | ToolCyclesExceeded
>

/** What the stream asks of the service answering: to run the generation where a stop finds it, and to record the outcome. */
export interface StreamedRun {
  /** Runs the generation as the conversation's (a stop interrupts it); its exit. */
  readonly run: <A, E, R>(generation: Effect.Effect<A, E, R>) => Effect.Effect<Exit.Exit<A, E>, never, R>
  readonly record: (outcome: Outcome) => Effect.Effect<unknown>
  /** Passes the events on to the user's other listeners (their WebSocket channels) as they are sent. */
  readonly announce: (events: ReadonlyArray<GenerationEvent>) => void
  /** The pages of the conversation's document the answer cites (none when it is about none). */
  readonly citations: (answer: string) => ReadonlyArray<Citation>
}

/** An input the provider refuses as malformed is the gateway's fault here. */
const gatewayFault = (error: AiError.AiError | ToolCyclesExceeded) =>
  error._tag === "MalformedInput" ? new InternalError({ message: error.message }) : error

/** A failed generation's error as the error body (a defect is an internal error, logged under its identifier). */
const errorOf = (
  chosen: ChosenModel,
  cause: Cause.Cause<AiError.AiError | InternalError | ToolCyclesExceeded>
): Effect.Effect<ErrorBody> => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) {
    const errorId = newErrorId()
    const { sentence } = describeFailure(cause)
    return Effect.logError(`Error ${errorId}: a streamed request failed: ${sentence}`, cause).pipe(
      Effect.as({ code: "INTERNAL_ERROR", message: `${sentence} (error ${errorId})`, status: 500 })
    )
  }
  const error = failure.value._tag === "INTERNAL_ERROR" || failure.value._tag === "TOOL_CYCLES_EXCEEDED"
    ? failure.value
    : toGatewayError(chosen.config, failure.value)
  const status = { LLM_BAD_REQUEST: 400, TOOL_CYCLES_EXCEEDED: 422, INTERNAL_ERROR: 500 }[error._tag]
  return Effect.succeed({ code: error._tag, message: error.message, status })
}

/** The answer to `request` as it is generated; its latency counts from now. */
export const streamedAnswer = (
  parts: LoopParts,
  request: StreamedRequest,
  { announce, citations, record: recordOutcome, run }: StreamedRun
): Stream.Stream<GenerationEvent> => {
  const started = Date.now()
  let text = ""
  let firstTokenMs: number | null = null
  // The usage of every answer of the loop, added up.
  let usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } = {}
  let cycle = 1
  /** The cycle of each call, for its result (which comes after its answer's finish). */
  const callCycles = new Map<string, number>()
  const add = (a: number | undefined, b: number | undefined) => (b === undefined ? a : (a ?? 0) + b)
  const outcome = (status: Outcome["status"], errorMessage?: string): Outcome => ({
    status,
    response: text,
    ...usage,
    latencyMs: Date.now() - started,
    firstTokenMs,
    ...(errorMessage ? { errorMessage } : {})
  })
  // One producer fiber pushes the events as the provider's parts arrive (a tower of stream
  // operators cost several times the CPU); the end of the stream's consumer stops it.
  return Stream.asyncPush<GenerationEvent>((emit) => {
    const send = (...events: Array<GenerationEvent>) => {
      emit.array(events)
      announce(events)
    }
    send({
      event: "start",
      data: {
        requestId: request.id,
        conversationId: request.conversationId,
        provider: request.chosen.config.id,
        model: request.chosen.model
      }
    })
    const generated = parts.pipe(
      Stream.mapError(gatewayFault),
      Stream.runForEachChunk((chunk) =>
        Effect.sync(() => {
          // The events of the parts that arrived together leave together.
          const events: Array<GenerationEvent> = []
          for (const part of chunk) {
            if (part.type === "text-delta") {
              text += part.delta
              firstTokenMs ??= Date.now() - started
              events.push({ event: "delta", data: { text: part.delta } })
            } else if (part.type === "tool-call") {
              callCycles.set(part.id, cycle)
              events.push({ event: "tool-call", data: { cycle, tool: part.name, arguments: part.params } })
            } else if (part.type === "tool-result") {
              events.push({
                event: "tool-result",
                data: { cycle: callCycles.get(part.id) ?? cycle, tool: part.name, failed: part.isFailure }
              })
            } else if (part.type === "finish") {
              cycle++
              usage = {
                inputTokens: add(usage.inputTokens, part.usage.inputTokens),
                outputTokens: add(usage.outputTokens, part.usage.outputTokens)
              }
              events.push({ event: "usage", data: usage })
            }
          }
          if (events.length > 0) send(...events)
        })
      )
    )
    /** The outcome is recorded; what ends the stream then has nothing left to record. */
    let recorded = false
    const record = (result: Outcome) => Effect.suspend(() => ((recorded = true), recordOutcome(result)))
    const respond = Effect.gen(function*() {
      const exit = yield* run(generated)
      if (Exit.isSuccess(exit) || Exit.isInterrupted(exit)) {
        const status = Exit.isSuccess(exit) ? "COMPLETED" as const : "STOPPED" as const
        yield* record(outcome(status))
        const cited = citations(text)
        if (cited.length > 0) send({ event: "citations", data: { citations: cited } })
        send({
          event: "done",
          data: {
            requestId: request.id,
            conversationId: request.conversationId,
            status,
            latencyMs: Date.now() - started
          }
        })
      } else {
        const error = yield* errorOf(request.chosen, exit.cause)
        yield* record(outcome("FAILED", error.message))
        send({ event: "error", data: error })
      }
      emit.end()
    }).pipe(
      // A client that goes away stops the generation: the partial answer is kept, marked STOPPED.
      Effect.onInterrupt(() => Effect.suspend(() => (recorded ? Effect.void : record(outcome("STOPPED")))))
    )
    return Effect.forkScoped(respond)
  })
}
