/**
 * Requests to language models, the turns of a conversation: the user's content (text, rendered
 * prompts, images) after the conversation's earlier turns, the answer whole or streamed as
 * server-sent events, and the record of each (answer, usage, latency) for the statistics. A
 * generation can be stopped (POST /conversations/{id}/stop) or lost by its client: either way
 * the upstream call is cancelled and the partial answer kept, marked STOPPED. A model that calls
 * tools (its configuration says it can, and `disableReasoning` is not set) answers through the tool
 * loop, whose calls the request keeps; an answer about the conversation's document cites its pages.
 */
import type { Prompt } from "@effect/ai"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Cause, Effect, Exit, Option, Schema, Struct } from "effect"
import { randomUUID } from "node:crypto"
import { LlmCapabilityError, NotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import { LlmRequest, RequestBody, type RequestQuery } from "../../../schemas/gateway/Requests.ts"
import { CurrentPrincipal, type Principal, type Reach } from "../../../schemas/gateway/Tenancy.ts"
import { Citation, ToolCallTrace } from "../../../schemas/gateway/Tools.ts"
import { isoUtc, pageOf, reachFilter } from "../../common/sql/Fragments.ts"
import { UserChannels } from "../channels/UserChannels.ts"
import { Conversations } from "../conversations/Conversations.ts"
import { Llm } from "../llm/Llm.ts"
import { Prompts } from "../prompts/Prompts.ts"
import { afterRecords, apiTime, type Outcome, preciseNow, RequestRecorder } from "../records/RequestRecorder.ts"
import { tenantReach } from "../tenancy/CurrentReach.ts"
import { citationsOf, DOCUMENT_INSTRUCTIONS } from "../tools/Citations.ts"
import { newJournal, ToolLoop } from "../tools/ToolLoop.ts"
import { ToolRegistry } from "../tools/ToolRegistry.ts"
import { askedAgain, readQuestion, storedItems, titleFrom } from "./QuestionItems.ts"
import { runningGenerations } from "./RunningGenerations.ts"
import { streamedAnswer } from "./StreamedAnswer.ts"

/** A retry's query: what it names, else the provider and model of the answer it replaces. */
const retryQuery = (
  query: RequestQuery,
  last: { readonly provider: string | undefined; readonly model: string | undefined }
): RequestQuery => ({
  ...query,
  provider: query.provider ?? last.provider,
  model: query.provider === undefined ? query.model ?? last.model : query.model
})

const notFound = (id: string) => new NotFound({ message: `No request '${id}'` })

/** A row of llm_requests: the record's fields, with the provider, usage and inputs as stored. */
/** A jsonb list, as PostgreSQL (parsed) or PGlite (text) gives it. */
const JsonList = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.Union(Schema.Array(item), Schema.parseJson(Schema.Array(item)))

const Row = Schema.Struct({
  ...Struct.omit(LlmRequest.fields, "provider", "usage", "inputs", "toolCalls", "citations"),
  inputs: JsonList(Schema.Unknown),
  toolCalls: JsonList(ToolCallTrace),
  citations: JsonList(Citation),
  providerId: Schema.NullOr(Schema.String),
  inputTokens: Schema.NullOr(Schema.Int),
  outputTokens: Schema.NullOr(Schema.Int)
})

const toRecord = ({ inputTokens, outputTokens, providerId, ...row }: typeof Row.Type) =>
  new LlmRequest({ ...row, provider: providerId, usage: { inputTokens, outputTokens } })

export class Requests extends Effect.Service<Requests>()("gateway/Requests", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const llm = yield* Llm
    const loop = yield* ToolLoop
    const registry = yield* ToolRegistry
    const prompts = yield* Prompts
    const conversations = yield* Conversations
    const recorder = yield* RequestRecorder
    const generations = yield* runningGenerations
    const channels = yield* UserChannels

    const iso = (column: string) => isoUtc(sql, column)
    const columns =
      sql`id, conversation_id, status, inputs, response, provider_id, model, input_tokens, output_tokens, latency_ms,
      first_token_ms, feedback, error_message, replaced_by, tool_calls, citations, ${
        iso("created_at")
      } AS created_at, ${iso("completed_at")} AS completed_at`

    const find = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, userId: Schema.optional(Schema.String), id: Schema.String }),
      Result: Row,
      execute: ({ id, ...reach }) =>
        sql`SELECT ${columns} FROM llm_requests WHERE ${reachFilter(sql, reach)} AND id = ${id}`
    })
    /** The request if the reach covers it; NOT_FOUND otherwise. */
    const own = (reach: Reach, id: string) =>
      find({ tenantId: reach.tenantId, userId: reach.userId, id }).pipe(
        Effect.orDie,
        Effect.flatMap(
          Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: (row) => Effect.succeed(toRecord(row)) })
        )
      )

    /** The earlier completed turns of a conversation, as messages. */
    const history = (principal: Principal, conversationId: string, replacing: string | undefined) =>
      sql<{ inputs: unknown; response: string }>`SELECT inputs, response FROM llm_requests
        WHERE tenant_id = ${principal.tenantId} AND conversation_id = ${conversationId} AND status IN ('COMPLETED', 'STOPPED')
          AND replaced_by IS NULL AND id <> ${replacing ?? ""}
        ORDER BY created_at`.pipe(
        Effect.orDie,
        Effect.map((rows) =>
          rows.flatMap((row): Array<Prompt.MessageEncoded> => {
            const asked = storedItems(row.inputs).flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n")
            return [{ role: "user", content: asked }, { role: "assistant", content: row.response }]
          })
        )
      )

    /** The conversation, the prompt to send and the record of the request, before anything is asked of the model. */
    /** `replacing`: the request a retry answers again, left out of the history it is sent with. */
    const prepare = (
      principal: Principal,
      body: RequestBody,
      query: RequestQuery,
      how: { readonly streamed: boolean; readonly replacing: string | undefined }
    ) =>
      Effect.gen(function*() {
        const items = body.inputs.flatMap((input) => input.content)
        const { asked, parts, promptLlm, used } = yield* readQuestion(prompts, items)
        // The model first: a request no provider can take leaves no empty conversation behind.
        // The request's provider and model first, then the prompt's (its model only with its provider).
        const providerId = query.provider ?? promptLlm?.providerId
        const promptModel = query.provider === undefined || query.provider === promptLlm?.providerId
          ? promptLlm?.model
          : undefined
        const chosen = yield* llm.choose(
          {
            providerId,
            model: query.model ?? promptModel,
            parameters: { temperature: promptLlm?.temperature, topP: promptLlm?.topP, maxTokens: promptLlm?.maxTokens }
          },
          items.some((i) => i.type === "image")
        )
        const followed = body.conversation ?? query.conversationId
        const id = randomUUID()
        const at = preciseNow()
        const tenantId = principal.tenantId
        // A follow-up reads its conversation and history (after this process's pending records);
        // a new conversation is only recorded: nothing is read or awaited before the model is asked.
        const conversation = followed === undefined ? undefined : yield* conversations.get(followed)
        const conversationId = conversation?.id ?? randomUUID()
        const documentId = conversation?.documentId ?? undefined
        // Tools only for a model that can call them, unless the request turns them off.
        const toolsOn = !query.disableReasoning && chosen.config.capabilities.tools
        if (documentId !== undefined && !query.disableReasoning && !toolsOn) {
          return yield* new LlmCapabilityError({
            message:
              `The conversation is about a document, which the model of ${chosen.config.id} cannot read: its configuration does not declare tools (function calling)`
          })
        }
        const tools = toolsOn
          ? yield* registry.forRequest({ documentId, vision: chosen.config.capabilities.vision })
          : []
        const earlier = followed === undefined ? [] : yield* history(principal, conversationId, how.replacing)
        if (followed === undefined) {
          yield* recorder.conversationStarted(
            tenantId,
            conversationId,
            principal.userId,
            titleFrom(asked.find((p) => p.type === "text")?.text ?? ""),
            at
          )
        }
        const instructions = [
          ...(promptLlm?.systemPrompt ? [promptLlm.systemPrompt] : []),
          ...(documentId !== undefined && toolsOn ? [DOCUMENT_INSTRUCTIONS] : [])
        ]
        const system: Array<Prompt.MessageEncoded> = instructions.length > 0
          ? [{ role: "system", content: instructions.join("\n\n") }]
          : []
        const prompt: Array<Prompt.MessageEncoded> = [...system, ...earlier, { role: "user", content: parts }]
        const inputs = [{ role: "user", content: asked }]
        yield* recorder.requestStarted({
          tenantId,
          id,
          conversationId,
          userId: principal.userId,
          inputs,
          providerId: chosen.config.id,
          model: chosen.model,
          streamed: how.streamed,
          usedPrompt: used.length > 0,
          hasImage: asked.some((p) => p.type === "image"),
          isRetry: how.replacing !== undefined,
          at
        })
        if (followed !== undefined) yield* recorder.conversationTouched(tenantId, conversationId, at)
        if (how.replacing !== undefined) yield* recorder.requestReplaced(tenantId, how.replacing, id)
        yield* Effect.forEach(used, (use) => recorder.promptUsed(tenantId, use.promptId, use.version, at), {
          discard: true
        })
        return {
          id,
          conversationId,
          prompt,
          chosen,
          inputs,
          createdAt: at,
          needsVision: items.some((i) => i.type === "image"),
          documentId,
          loop: { tools, journal: newJournal() }
        }
      })

    type Prepared = Effect.Effect.Success<ReturnType<typeof prepare>>

    /** Records the outcome of a request; the record as it now stands (a later outcome of the same request does not replace it). */
    const finish = (principal: Principal, prepared: Prepared, result: Outcome) => {
      const at = preciseNow()
      const citations = prepared.documentId === undefined
        ? []
        : citationsOf(result.response, prepared.loop.journal.sources)
      // The loop's calls are kept whatever its end: an answer, a failure past its bound, a stop.
      const outcome = { ...result, toolCalls: [...prepared.loop.journal.calls], citations }
      return recorder.requestFinished(principal.tenantId, prepared.id, outcome, at).pipe(
        Effect.as(
          new LlmRequest({
            id: prepared.id,
            conversationId: prepared.conversationId,
            status: outcome.status,
            inputs: prepared.inputs,
            response: outcome.response,
            provider: prepared.chosen.config.id,
            model: prepared.chosen.model,
            usage: { inputTokens: outcome.inputTokens ?? null, outputTokens: outcome.outputTokens ?? null },
            latencyMs: outcome.latencyMs,
            firstTokenMs: outcome.firstTokenMs ?? null,
            feedback: null,
            errorMessage: outcome.errorMessage ?? null,
            replacedBy: null,
            toolCalls: outcome.toolCalls,
            citations,
            createdAt: apiTime(prepared.createdAt),
            completedAt: apiTime(at)
          })
        )
      )
    }

    /** The last request of the conversation, as a body that asks it again (prompts already rendered). */
    const lastRequest = (principal: Principal, conversationId: string) =>
      Effect.gen(function*() {
        yield* conversations.get(conversationId)
        const rows = yield* sql<
          { id: string; inputs: unknown; providerId: string | null; model: string | null }
        >`SELECT id, inputs, provider_id, model FROM llm_requests
          WHERE tenant_id = ${principal.tenantId} AND conversation_id = ${conversationId} ORDER BY created_at DESC, id DESC LIMIT 1`
          .pipe(Effect.orDie)
        const last = rows[0]
        if (!last) {
          return yield* new NotFound({ message: `The conversation '${conversationId}' has no request to retry` })
        }
        const content = storedItems(last.inputs).map(askedAgain)
        return {
          replacing: last.id,
          body: new RequestBody({ conversation: conversationId, inputs: [{ role: "user", content }] }),
          // The same provider and model as the answer it replaces, unless the retry names others.
          provider: last.providerId ?? undefined,
          model: last.model ?? undefined
        }
      })

    /** A conversation's requests oldest first; without a conversation (admin views) the reach's newest first. */
    const listIn = (reach: Reach, conversationId: string | undefined, page: number, size: number) =>
      Effect.gen(function*() {
        const filter = conversationId === undefined
          ? reachFilter(sql, reach)
          : sql`${reachFilter(sql, reach)} AND conversation_id = ${conversationId}`
        const order = conversationId === undefined ? sql`created_at DESC, id DESC` : sql`created_at, id`
        const [{ total }] =
          (yield* sql<{ total: number }>`SELECT count(*)::int AS total FROM llm_requests WHERE ${filter}`.pipe(
            Effect.orDie
          )) as ReadonlyArray<{ total: number }>
        const rows =
          yield* sql`SELECT ${columns} FROM llm_requests WHERE ${filter} ORDER BY ${order} LIMIT ${size} OFFSET ${
            page * size
          }`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(Row))),
            Effect.orDie
          )
        return pageOf(rows.map(toRecord), page, size, total)
      })

    const remove = (reach: Reach, id: string) =>
      own(reach, id).pipe(
        Effect.zipRight(
          sql`DELETE FROM llm_requests WHERE ${reachFilter(sql, reach)} AND id = ${id}`.pipe(Effect.orDie)
        ),
        Effect.asVoid
      )

    /** POST /requests: the whole answer. */
    const answer = (principal: Principal, body: RequestBody, query: RequestQuery, replacing?: string) =>
      Effect.gen(function*() {
        const prepared = yield* prepare(principal, body, query, { streamed: false, replacing })
        const started = Date.now()
        const exit = yield* generations.run(
          principal.tenantId,
          prepared.conversationId,
          loop.generate(prepared.chosen, prepared.prompt, prepared.needsVision, prepared.loop)
        ).pipe(
          // The client went away (or the server is stopping): the upstream call is cancelled, and the record must not stay RUNNING.
          Effect.onInterrupt(() =>
            finish(principal, prepared, { status: "STOPPED", response: "", latencyMs: Date.now() - started })
          )
        )
        if (Exit.isSuccess(exit)) {
          const { text, usage } = exit.value
          return yield* finish(principal, prepared, {
            status: "COMPLETED",
            response: text,
            inputTokens: usage.inputTokens,
            outputTokens: usage.outputTokens,
            latencyMs: Date.now() - started
          })
        }
        if (Exit.isInterrupted(exit)) {
          return yield* finish(principal, prepared, {
            status: "STOPPED",
            response: "",
            latencyMs: Date.now() - started
          })
        }
        const failure = Cause.failureOption(exit.cause)
        const errorMessage = Option.isSome(failure) ? failure.value.message : Cause.pretty(exit.cause).split("\n")[0]
        yield* finish(principal, prepared, {
          status: "FAILED",
          response: "",
          latencyMs: Date.now() - started,
          errorMessage
        })
        return yield* Effect.failCause(exit.cause)
      })

    /** POST /requests/stream: the answer as GenerationEvents, which the handler sends as server-sent events. */
    const answerStreamed = (principal: Principal, body: RequestBody, query: RequestQuery, replacing?: string) =>
      Effect.map(
        prepare(principal, body, query, { streamed: true, replacing }),
        (prepared) =>
          streamedAnswer(loop.stream(prepared.chosen, prepared.prompt, prepared.loop), prepared, {
            run: (effect) => generations.run(principal.tenantId, prepared.conversationId, effect),
            record: (outcome) => finish(principal, prepared, outcome),
            citations: (answer) =>
              citationsOf(answer, prepared.loop.journal.sources).filter(() => prepared.documentId !== undefined),
            announce: (events) =>
              channels.publish(principal, { requestId: prepared.id, conversationId: prepared.conversationId }, events)
          })
      )

    // The caller's own requests, and the admin views of the tenant's (`InTenant`). Readers of the
    // records see this process's pending ones first (RequestRecorder).
    const reads = afterRecords("Requests", recorder.settled, {
      get: (id: string) => Effect.flatMap(CurrentPrincipal, (principal) => own(principal, id)),

      /** A conversation's requests, oldest first. */
      list: (
        { conversation, page, size }: { readonly conversation: string; readonly page: number; readonly size: number }
      ) =>
        Effect.gen(function*() {
          yield* conversations.get(conversation)
          return yield* listIn(yield* CurrentPrincipal, conversation, page, size)
        }),

      remove: (id: string) => Effect.flatMap(CurrentPrincipal, (principal) => remove(principal, id)),

      feedback: (id: string, feedback: "GOOD" | "BAD") =>
        Effect.flatMap(
          CurrentPrincipal,
          (principal) =>
            sql`UPDATE llm_requests SET feedback = ${feedback} WHERE ${
              reachFilter(sql, principal)
            } AND id = ${id} RETURNING ${columns}`.pipe(
              Effect.flatMap(Schema.decodeUnknown(Schema.Array(Row))),
              Effect.orDie,
              Effect.flatMap(([row]) => (row ? Effect.succeed(toRecord(row)) : Effect.fail(notFound(id))))
            )
        ),

      /** Stops the generation in progress in the conversation, here or in another instance; false when there is none. */
      stop: (conversationId: string) =>
        Effect.gen(function*() {
          yield* conversations.get(conversationId)
          const { tenantId } = yield* CurrentPrincipal
          return yield* generations.stop(tenantId, conversationId)
        }),

      /** POST /requests/retry: the conversation's last question answered again, as a new request. */
      retry: (conversationId: string, query: RequestQuery) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const last = yield* lastRequest(principal, conversationId)
          return yield* answer(principal, last.body, retryQuery(query, last), last.replacing)
        }),

      retryStreaming: (conversationId: string, query: RequestQuery) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const last = yield* lastRequest(principal, conversationId)
          return yield* answerStreamed(principal, last.body, retryQuery(query, last), last.replacing)
        }),

      getInTenant: (id: string) => Effect.flatMap(tenantReach(), (reach) => own(reach, id)),

      /** The tenant's requests (or those of `userId`) newest first, or one of its conversations' oldest first. */
      listInTenant: (
        { conversation, page, size, userId }: {
          readonly conversation?: string | undefined
          readonly userId?: string | undefined
          readonly page: number
          readonly size: number
        }
      ) =>
        Effect.gen(function*() {
          if (conversation !== undefined) yield* conversations.getInTenant(conversation, userId)
          return yield* listIn(yield* tenantReach(userId), conversation, page, size)
        }),

      removeInTenant: (id: string) => Effect.flatMap(tenantReach(), (reach) => remove(reach, id))
    })

    return {
      ...reads,
      ask: Effect.fn("Requests.ask")((body: RequestBody, query: RequestQuery) =>
        Effect.flatMap(CurrentPrincipal, (principal) => answer(principal, body, query))
      ),
      askStreaming: Effect.fn("Requests.askStreaming")((body: RequestBody, query: RequestQuery) =>
        Effect.flatMap(CurrentPrincipal, (principal) => answerStreamed(principal, body, query))
      )
    }
  }),
  dependencies: [
    Llm.Default,
    ToolLoop.Default,
    ToolRegistry.Default,
    Prompts.Default,
    Conversations.Default,
    RequestRecorder.Default,
    UserChannels.Default
  ]
}) {}
