/**
 * The tool loop: @effect/ai resolves the tool calls of one answer (its toolkit runs the calls the
 * model asks for and hands back their results); this loop asks the model again with those results
 * until it answers without calling a tool. It is bounded: the answer after the last allowed cycle
 * is asked with its calls left unrun, and if it still calls tools the loop fails with
 * TOOL_CYCLES_EXCEEDED (422), never stopping silently, its calls kept in the journal with the rest.
 * Whole answers and streams loop the same way.
 */
import type { AiError, Response, Toolkit } from "@effect/ai"
import * as Prompt from "@effect/ai/Prompt"
import * as Tool from "@effect/ai/Tool"
import { Config, Duration, Effect, Schema, Stream } from "effect"
import { ToolCyclesExceeded } from "../../../schemas/gateway/GatewayErrors.ts"
import type { ToolCallTrace } from "../../../schemas/gateway/Tools.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import { type ChosenModel, Llm, type OfferedTools } from "../llm/Llm.ts"
import { type DocumentSource, type GatewayTool, ToolFailed, type ToolOutput } from "./GatewayTool.ts"

export const ToolLoopConfig = Config.all({
  /** Most answers with tool calls one request (or agent run without its own maxToolCycles) may take. */
  maxCycles: Config.integer("GATEWAY_TOOL_MAX_CYCLES").pipe(Config.withDefault(8)),
  /** Longest one tool call may take; past it the model reads that it timed out. */
  callTimeout: durationConfig("GATEWAY_TOOL_CALL_TIMEOUT", "60 seconds"),
  /**
   * Calls of one answer run at once, up to this many: a model that asks for three pages' text
   * waits for the slowest, not for the sum.
   */
  callConcurrency: Config.integer("GATEWAY_TOOL_CONCURRENCY").pipe(Config.withDefault(4))
})

/** What a loop did, kept by its caller whatever the loop's end (answered, failed, stopped). */
export interface ToolJournal {
  readonly calls: Array<ToolCallTrace>
  readonly sources: Array<DocumentSource>
  /** Images the tools of the current cycle returned, sent with the next question. */
  images: Array<NonNullable<ToolOutput["image"]>>
}

export const newJournal = (): ToolJournal => ({ calls: [], sources: [], images: [] })

export interface LoopTools {
  readonly tools: ReadonlyArray<GatewayTool>
  /** The agent's bound; GATEWAY_TOOL_MAX_CYCLES without one. */
  readonly maxCycles?: number | null | undefined
  readonly journal: ToolJournal
}

/** A name a provider accepts for a function (letters, digits, `_`, `-`; at most 64). */
const wireName = (name: string) => name.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 64)

/** The tools under names a provider accepts, the same every cycle (the conversation names earlier calls by them). */
const byWireName = (tools: ReadonlyArray<GatewayTool>) => {
  const named = new Map<string, GatewayTool>()
  for (const tool of tools) {
    let name = wireName(tool.name)
    for (let n = 2; named.has(name); n++) name = `${wireName(tool.name).slice(0, 60)}_${n}`
    named.set(name, tool)
  }
  return named
}

const Arguments = Schema.Record({ key: Schema.String, value: Schema.Unknown })

type AnyToolkit = Toolkit.WithHandler<Record<string, Tool.Any>>

export class ToolLoop extends Effect.Service<ToolLoop>()("gateway/ToolLoop", {
  effect: Effect.gen(function*() {
    const llm = yield* Llm
    const settings = yield* ToolLoopConfig

    /**
     * The toolkit of one cycle: each call run with its timeout, its result (or failure) journaled
     * and given to the model. The calls of an answer start in its order, and each takes its place
     * in the journal as it starts, so the trace keeps that order while they run at once; a call
     * cut off (the generation stopped) stays in it as not answered.
     */
    const toolkitOf = (tools: ReadonlyArray<GatewayTool>, cycle: number, journal: ToolJournal): AnyToolkit => {
      const named = byWireName(tools)
      const definitions: Record<string, Tool.Any> = {}
      for (const [name, tool] of named) {
        definitions[name] = Tool.make(name, {
          description: tool.description,
          success: Schema.Unknown,
          failure: Schema.Unknown,
          failureMode: "return"
        }).setParameters(Arguments.annotations({ jsonSchema: tool.parameters }))
      }
      const handle = (name: string, params: unknown) =>
        Effect.gen(function*() {
          const tool = named.get(name)
          const started = Date.now()
          const entry = { cycle, tool: tool?.name ?? name, arguments: params, durationMs: 0 }
          const slot = journal.calls.push({ ...entry, error: "Stopped before it answered" }) - 1
          const outcome = tool === undefined
            ? new ToolFailed({ message: `There is no tool '${name}'` })
            : yield* tool.call(params).pipe(
              Effect.timeoutFail({
                duration: settings.callTimeout,
                onTimeout: () =>
                  new ToolFailed({
                    message: `No answer within ${Duration.format(settings.callTimeout)} (GATEWAY_TOOL_CALL_TIMEOUT)`
                  })
              }),
              Effect.merge
            )
          const ended = { ...entry, durationMs: Date.now() - started }
          if (outcome instanceof ToolFailed) {
            journal.calls[slot] = { ...ended, error: outcome.message }
            const result = { error: outcome.message }
            return { isFailure: true, result, encodedResult: result }
          }
          journal.calls[slot] = { ...ended, result: outcome.result }
          journal.sources.push(...outcome.sources ?? [])
          if (outcome.image) journal.images.push(outcome.image)
          return { isFailure: false, result: outcome.result, encodedResult: outcome.result }
        })
      return { tools: definitions, handle } as unknown as AnyToolkit
    }

    const offer = (loop: LoopTools, cycle: number): OfferedTools => ({
      toolkit: toolkitOf(loop.tools, cycle, loop.journal),
      resolve: cycle <= (loop.maxCycles ?? settings.maxCycles),
      concurrency: Math.max(1, settings.callConcurrency)
    })

    /** The next question: the model's answer with its calls, the tools' results, then the images they returned. */
    const next = (prompt: Prompt.Prompt, parts: ReadonlyArray<Response.AnyPart>, journal: ToolJournal) => {
      const asked = Prompt.merge(prompt, Prompt.fromResponseParts(parts))
      if (journal.images.length === 0) return asked
      const images = journal.images.map((image) => ({
        type: "file" as const,
        mediaType: image.mediaType,
        data: new Uint8Array(Buffer.from(image.base64, "base64"))
      }))
      journal.images = []
      return Prompt.merge(asked, [{
        role: "user",
        content: [{ type: "text", text: "The images the tools returned:" }, ...images]
      }])
    }

    /** The loop's end past its bound: the calls not run are journaled, and it fails. */
    const exceeded = (loop: LoopTools, cycle: number, parts: ReadonlyArray<Response.AnyPart>) => {
      const max = loop.maxCycles ?? settings.maxCycles
      const calls = parts.flatMap((part) => (part.type === "tool-call" ? [part] : []))
      const named = byWireName(loop.tools)
      for (const call of calls) {
        loop.journal.calls.push({
          cycle,
          tool: named.get(call.name)?.name ?? call.name,
          arguments: call.params,
          error: `Not run: the loop's bound of ${max} cycles was reached`,
          durationMs: 0
        })
      }
      return new ToolCyclesExceeded({
        message: `The model still called tools (${
          [...new Set(calls.map((c) => named.get(c.name)?.name ?? c.name))].join(", ")
        }) after ${max} cycles of tool calls (${
          loop.maxCycles == null ? "GATEWAY_TOOL_MAX_CYCLES" : "the agent's maxToolCycles"
        }); the ${loop.journal.calls.length} calls are kept in the trace`
      })
    }

    const hasCalls = (parts: ReadonlyArray<Response.AnyPart>) => parts.some((part) => part.type === "tool-call")

    return {
      /** The whole answer after the loop, with the usage of every answer in it. */
      generate: (chosen: ChosenModel, prompt: Prompt.RawInput, needsVision: boolean, loop: LoopTools) =>
        Effect.gen(function*() {
          let question = Prompt.make(prompt)
          let inputTokens: number | undefined
          let outputTokens: number | undefined
          for (let cycle = 1;; cycle++) {
            const offered = loop.tools.length === 0 ? undefined : offer(loop, cycle)
            const response = yield* llm.generate(chosen, question, needsVision, offered)
            if (response.usage.inputTokens !== undefined) inputTokens = (inputTokens ?? 0) + response.usage.inputTokens
            if (response.usage.outputTokens !== undefined) {
              outputTokens = (outputTokens ?? 0) + response.usage.outputTokens
            }
            if (offered === undefined || !hasCalls(response.content)) {
              return { text: response.text, usage: { inputTokens, outputTokens } }
            }
            if (!offered.resolve) return yield* exceeded(loop, cycle, response.content)
            question = next(question, response.content, loop.journal)
          }
        }),

      /** The answer's parts as they come, cycle after cycle: text, tool calls and their results, each answer's finish. */
      stream: (
        chosen: ChosenModel,
        prompt: Prompt.RawInput,
        loop: LoopTools
      ): Stream.Stream<Response.StreamPart<Record<string, Tool.Any>>, AiError.AiError | ToolCyclesExceeded> => {
        const cycleOf = (
          question: Prompt.Prompt,
          cycle: number
        ): Stream.Stream<Response.StreamPart<Record<string, Tool.Any>>, AiError.AiError | ToolCyclesExceeded> =>
          Stream.suspend(() => {
            const offered = loop.tools.length === 0 ? undefined : offer(loop, cycle)
            const parts: Array<Response.AnyPart> = []
            return llm.stream(chosen, question, offered).pipe(
              Stream.mapChunks((chunk) => {
                for (const part of chunk) parts.push(part)
                return chunk
              }),
              Stream.concat(Stream.suspend(() =>
                offered === undefined || !hasCalls(parts)
                  ? Stream.empty
                  : !offered.resolve
                  ? Stream.fail(exceeded(loop, cycle, parts))
                  : cycleOf(next(question, parts, loop.journal), cycle + 1)
              ))
            )
          })
        return cycleOf(Prompt.make(prompt), 1)
      }
    }
  }),
  dependencies: [Llm.Default]
}) {}
