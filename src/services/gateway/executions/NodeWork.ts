/**
 * What each node type does when it runs (docs/gateway-plans.md, "Node types"): its inputs built
 * with the prompt template engine from the node's context (`input`, `nodes.<id>.output`, and
 * `item`/`index` in a fan-out), its LLM call through the gateway's LLM service, and its output.
 * A PARALLEL node keeps each item's output as it finishes; a PLAN node runs its plan as a nested
 * execution, found again (not started again) when the node runs after a crash. An AGENT node with
 * tools runs the tool loop; a TOOL node calls one tool of the registry. Document tools read the
 * document the execution's input names (`input.documentId`), or a TOOL node's own `documentId`.
 * Every LLM answer a node asks for is recorded as a request of the execution's conversation, so
 * that its usage counts in the statistics as a user's request does.
 */
import type { Prompt } from "@effect/ai"
import { Cause, Data, Effect, Exit, Option } from "effect"
import { randomUUID } from "node:crypto"
import type { ParallelWork, PlanGraphNode } from "../../../schemas/gateway/Plans.ts"
import type { PromptLlm } from "../../../schemas/gateway/Prompts.ts"
import { CurrentPrincipal, Principal } from "../../../schemas/gateway/Tenancy.ts"
import { Agents } from "../agents/Agents.ts"
import { Conversations } from "../conversations/Conversations.ts"
import { type ChosenModel, Llm } from "../llm/Llm.ts"
import { Plans } from "../plans/Plans.ts"
import { Prompts } from "../prompts/Prompts.ts"
import { Templates } from "../prompts/Templates.ts"
import { type Outcome, preciseNow, RequestRecorder } from "../records/RequestRecorder.ts"
import { newJournal, ToolLoop } from "../tools/ToolLoop.ts"
import { ToolRegistry } from "../tools/ToolRegistry.ts"
import { type ClaimedExecution, ExecutionStore } from "./ExecutionStore.ts"

/** Why a node failed, as its `errorMessage` says; `output`, what it did before failing (an agent's tool calls). */
export class NodeFailed
  extends Data.TaggedError("NodeFailed")<{ readonly message: string; readonly output?: unknown }>
{}

/** Tokens an answer took, as the provider counted them (when it did). */
interface Usage {
  readonly inputTokens?: number | undefined
  readonly outputTokens?: number | undefined
}

/** What a node's templates and paths see. */
interface NodeContext {
  readonly input: Readonly<Record<string, unknown>>
  readonly nodes: Readonly<Record<string, { readonly output: unknown }>>
  readonly item?: unknown
  readonly index?: number
}

/** The value at a dot-separated path (list positions as numbers); null where there is nothing. */
const valueAt = (context: NodeContext, path: string): unknown => {
  let value: unknown = context
  for (const name of path.split(".")) {
    if (value === null || typeof value !== "object") return null
    value = Array.isArray(value) ? value[Number(name)] : (value as Record<string, unknown>)[name]
  }
  return value ?? null
}

/** "", "false", "0", "no", "null" (trimmed, any case) are false; any other text true. */
const isTrue = (text: string) => !["", "false", "0", "no", "null"].includes(text.trim().toLowerCase())

/** An answer asked to be JSON, parsed; a fence around it (```json … ```), as models often write, is taken off. */
const parseJson = (text: string) =>
  Effect.try({
    try: () => JSON.parse(text.trim().replace(/^```(?:json)?\s*\n?([\s\S]*?)\n?```$/, "$1")) as unknown,
    catch: () => new NodeFailed({ message: `The answer is not the JSON the node asks for: ${text.slice(0, 200)}` })
  })

/** The principal a node runs as: the user who started the execution, in its tenant. */
const principalOf = (execution: ClaimedExecution) =>
  new Principal({ tenantId: execution.tenantId, userId: execution.userId, roles: [], isAdmin: true })

const failed = (error: { readonly message: string }) =>
  error instanceof NodeFailed ? error : new NodeFailed({ message: error.message })

/** The document an execution is about, for document tools: its input's `documentId`. */
const documentOf = (context: NodeContext) =>
  typeof context.input.documentId === "string" ? context.input.documentId : undefined

export class NodeWork extends Effect.Service<NodeWork>()("gateway/NodeWork", {
  effect: Effect.gen(function*() {
    const llm = yield* Llm
    const prompts = yield* Prompts
    const agents = yield* Agents
    const templates = yield* Templates
    const plans = yield* Plans
    const store = yield* ExecutionStore
    const registry = yield* ToolRegistry
    const loop = yield* ToolLoop
    const recorder = yield* RequestRecorder
    const conversations = yield* Conversations

    const render = (template: string, context: NodeContext) =>
      Effect.flatMap(
        CurrentPrincipal,
        (principal) => templates.render(template, context as unknown as Record<string, unknown>, principal)
      )

    /** Named values: templates rendered to text, `{from}` paths passed as they are. */
    const bind = (
      bindings: Readonly<Record<string, string | { readonly from: string }>> | undefined,
      context: NodeContext
    ) =>
      Effect.forEach(Object.entries(bindings ?? {}), ([name, binding]) =>
        typeof binding === "string"
          ? Effect.map(render(binding, context), (text) => [name, text] as const)
          : Effect.succeed([name, valueAt(context, binding.from)] as const)).pipe(Effect.map(Object.fromEntries))

    const choose = (settings: PromptLlm | undefined) =>
      llm.choose({
        providerId: settings?.providerId,
        model: settings?.model,
        parameters: { temperature: settings?.temperature, topP: settings?.topP, maxTokens: settings?.maxTokens }
      }, false)

    const messages = (system: string | undefined, user: string): Array<Prompt.MessageEncoded> => [
      ...(system ? [{ role: "system" as const, content: system }] : []),
      { role: "user", content: user }
    ]

    const answered = (text: string, json: boolean | undefined) =>
      json ? Effect.map(parseJson(text), (parsed) => ({ text, json: parsed })) : Effect.succeed({ text })

    /** How an answer ended, as its request's record says. */
    const outcomeOf = (
      exit: Exit.Exit<{ readonly text: string; readonly usage: Usage }, { readonly message: string }>,
      started: number
    ): Outcome => {
      const latencyMs = Date.now() - started
      if (Exit.isSuccess(exit)) {
        const { text, usage } = exit.value
        return { status: "COMPLETED", response: text, ...usage, latencyMs }
      }
      if (Cause.isInterruptedOnly(exit.cause)) return { status: "STOPPED", response: "", latencyMs }
      const failure = Cause.failureOption(exit.cause)
      const errorMessage = Option.isSome(failure) ? failure.value.message : Cause.pretty(exit.cause).split("\n")[0]
      return { status: "FAILED", response: "", latencyMs, errorMessage }
    }

    /**
     * One LLM answer of the execution, recorded as a request of its conversation (made on first
     * use, docs/gateway-plan-executions.md) with the question, the answer, its usage and how it
     * ended; a PROMPT node's prompt counts as used. Its usage is counted in the statistics.
     */
    const recorded = <E extends { readonly message: string }, R>(
      execution: ClaimedExecution,
      chosen: ChosenModel,
      question: string,
      promptUse: { readonly promptId: string; readonly version: number } | undefined,
      answer: Effect.Effect<{ readonly text: string; readonly usage: Usage }, E, R>
    ) =>
      Effect.gen(function*() {
        yield* conversations.forExecution(execution.id, execution.planTitle)
        const id = randomUUID()
        const at = preciseNow()
        const started = Date.now()
        yield* recorder.requestStarted({
          tenantId: execution.tenantId,
          id,
          conversationId: execution.id,
          userId: execution.userId,
          inputs: [{ role: "user", content: [{ type: "text", text: question }] }],
          providerId: chosen.config.id,
          model: chosen.model,
          streamed: false,
          usedPrompt: promptUse !== undefined,
          hasImage: false,
          isRetry: false,
          at
        })
        if (promptUse !== undefined) {
          yield* recorder.promptUsed(execution.tenantId, promptUse.promptId, promptUse.version, at)
        }
        return yield* answer.pipe(
          Effect.onExit((exit) =>
            recorder.requestFinished(execution.tenantId, id, outcomeOf(exit, started), preciseNow()).pipe(Effect.ignore)
          )
        )
      })

    /** One answer of the LLM `settings` choose (the tenant's default provider without one), as `{text, json?}`. */
    const ask = (
      execution: ClaimedExecution,
      settings: PromptLlm | undefined,
      system: string | undefined,
      user: string,
      json: boolean | undefined,
      promptUse?: { readonly promptId: string; readonly version: number }
    ) =>
      Effect.gen(function*() {
        const chosen = yield* choose(settings)
        const { text } = yield* recorded(
          execution,
          chosen,
          user,
          promptUse,
          llm.generate(chosen, messages(system, user), false).pipe(
            Effect.map(({ text, usage }) => ({
              text,
              usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }
            }))
          )
        )
        return yield* answered(text, json)
      })

    /** An agent's answer through the tool loop: `{text, json?, toolCalls}`; a failure keeps the calls made as its output. */
    const askWithTools = (
      execution: ClaimedExecution,
      agent: Effect.Effect.Success<ReturnType<typeof agents.get>>,
      system: string,
      user: string,
      json: boolean | undefined,
      context: NodeContext
    ) =>
      Effect.gen(function*() {
        const chosen = yield* choose(agent.llm)
        if (!chosen.config.capabilities.tools) {
          return yield* new NodeFailed({
            message:
              `The agent '${agent.title}' uses tools, and the model of ${chosen.config.id} cannot call them (its configuration does not declare tools)`
          })
        }
        const context_ = { documentId: documentOf(context), vision: chosen.config.capabilities.vision }
        const tools = yield* registry.resolve(agent.tools, context_)
        const journal = newJournal()
        const { text } = yield* recorded(
          execution,
          chosen,
          user,
          undefined,
          loop.generate(chosen, messages(system, user), false, { tools, maxCycles: agent.maxToolCycles, journal })
        ).pipe(
          Effect.mapError((error) =>
            new NodeFailed({ message: `${error._tag}: ${error.message}`, output: { toolCalls: journal.calls } })
          )
        )
        return { ...(yield* answered(text, json)), toolCalls: journal.calls }
      })

    /** Waits for a nested execution to end: its output, or the node's failure. */
    const awaitNested = (id: string) =>
      Effect.gen(function*() {
        while (true) {
          const outcome = yield* store.outcome(id)
          if (Option.isNone(outcome)) {
            return yield* new NodeFailed({ message: `The nested execution '${id}' was deleted` })
          }
          const { errorMessage, output, state } = outcome.value
          if (state === "COMPLETED") return { output, executionId: id }
          if (state === "FAILED" || state === "CANCELLED") {
            return yield* new NodeFailed({
              message: `The nested execution '${id}' ended ${state}${errorMessage ? `: ${errorMessage}` : ""}`
            })
          }
          yield* store.awaitChange(new Set([id]))
        }
      })

    /** The work of a node (or of one item of a PARALLEL node): its output. `item` places a nested execution of a fan-out. */
    const perform = (
      execution: ClaimedExecution,
      nodeId: string,
      work: PlanGraphNode | ParallelWork,
      context: NodeContext,
      item: number | null
    ): Effect.Effect<unknown, NodeFailed, CurrentPrincipal> => {
      switch (work.type) {
        case "PROMPT":
          return Effect.gen(function*() {
            const variables = yield* bind(work.variables, context)
            const rendered = yield* prompts.renderForRequest(work.promptId, work.version, variables)
            // The node's settings override the prompt version's, field by field.
            const settings = { ...rendered.llm, ...work.llm }
            return yield* ask(execution, settings, settings.systemPrompt, rendered.text, work.json, {
              promptId: work.promptId,
              version: rendered.version
            })
          }).pipe(Effect.mapError(failed))
        case "LLM":
          return render(work.template, context).pipe(
            Effect.flatMap((text) => ask(execution, work.llm, work.llm?.systemPrompt, text, work.json)),
            Effect.mapError(failed)
          )
        case "AGENT":
          return Effect.gen(function*() {
            const agent = yield* agents.get(work.agentId)
            const instructions = yield* render(agent.instructions, context)
            const input = yield* render(work.input, context)
            return agent.tools.length === 0
              ? yield* ask(execution, agent.llm, instructions, input, work.json)
              : yield* askWithTools(execution, agent, instructions, input, work.json, context)
          }).pipe(Effect.mapError(failed))
        case "TOOL":
          return Effect.gen(function*() {
            const args = yield* bind(work.arguments, context)
            const documentId = typeof args.documentId === "string" ? args.documentId : documentOf(context)
            const [tool] = yield* registry.resolve([work.tool], { documentId, vision: false })
            const { result } = yield* tool!.call(args)
            return { result }
          }).pipe(Effect.mapError(failed))
        case "CONDITION":
          return render(work.if, context).pipe(
            Effect.map((text) => ({ value: isTrue(text), branch: isTrue(text) ? "then" : "else" })),
            Effect.mapError(failed)
          )
        case "PARALLEL":
          return Effect.gen(function*() {
            const items = valueAt(context, work.items)
            if (!Array.isArray(items)) {
              return yield* new NodeFailed({ message: `'${work.items}' is not a list (${JSON.stringify(items)})` })
            }
            const done = yield* store.items(execution.id, nodeId)
            const outputs = yield* Effect.forEach(
              items,
              (element, index) =>
                done.has(index) ? Effect.succeed(done.get(index)) : perform(
                  execution,
                  nodeId,
                  work.run,
                  { ...context, item: element, index },
                  index
                ).pipe(
                  Effect.tap((output) =>
                    store.finishItem(execution.id, execution.owner, nodeId, index, output).pipe(
                      // No longer this gateway's execution: nothing more of it is written here.
                      Effect.flatMap((kept) => (kept ? Effect.void : Effect.interrupt))
                    )
                  )
                ),
              { concurrency: work.maxConcurrency ?? 4 }
            )
            return { items: outputs }
          })
        case "PLAN":
          return Effect.gen(function*() {
            const place = { parentId: execution.id, nodeId, item }
            // Run again after a crash, the node finds the nested execution it started: it goes on, not over.
            const started = yield* store.nestedAt(place)
            const id = Option.isSome(started) ? started.value : yield* Effect.gen(function*() {
              const input = yield* bind(work.input, context)
              const plan = yield* plans.get(work.planId)
              return yield* store.create({
                tenantId: execution.tenantId,
                userId: execution.userId,
                planId: plan.id,
                planTitle: plan.title,
                nodes: plan.nodes,
                outputNode: plan.output,
                inputPayload: input
              }, place)
            })
            return yield* awaitNested(id)
          }).pipe(Effect.mapError(failed))
      }
    }

    return {
      /** Runs the node with the outputs of the nodes finished before it (skipped ones absent), as the user who started the execution. */
      run: (execution: ClaimedExecution, node: PlanGraphNode, outputs: ReadonlyMap<string, unknown>) =>
        perform(execution, node.id, node, {
          input: execution.inputPayload,
          nodes: Object.fromEntries([...outputs].map(([id, output]) => [id, { output }]))
        }, null).pipe(Effect.provideService(CurrentPrincipal, principalOf(execution)))
    }
  }),
  dependencies: [
    Llm.Default,
    RequestRecorder.Default,
    Conversations.Default,
    Prompts.Default,
    Agents.Default,
    Templates.Default,
    Plans.Default,
    ExecutionStore.Default,
    ToolRegistry.Default,
    ToolLoop.Default
  ]
}) {}
