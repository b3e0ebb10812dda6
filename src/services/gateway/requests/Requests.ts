/**
 * Requests to language models, the turns of a conversation: the user's content (text, rendered
 * prompts, images) after the conversation's earlier turns, the answer whole or streamed as
 * server-sent events, and the record of each (answer, usage, latency) for the statistics. A
 * generation can be stopped (POST /conversations/{id}/stop) or lost by its client: either way
 * the upstream call is cancelled and the partial answer kept, marked STOPPED.
 */
import type { AiError, Prompt } from "@effect/ai"
import { SqlClient, SqlSchema } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Cause, Effect, Exit, Fiber, Option, Schedule, Schema, Stream, Struct } from "effect"
import { fileTypeFromBuffer } from "file-type"
import { randomUUID } from "node:crypto"
import { BadRequest, type ErrorBody, InternalError, NotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import type { PromptLlm } from "../../../schemas/gateway/Prompts.ts"
import {
  type ContentItem,
  type GenerationEvent,
  LlmRequest,
  RequestBody,
  type RequestQuery
} from "../../../schemas/gateway/Requests.ts"
import { CurrentPrincipal, type Principal, type Reach } from "../../../schemas/gateway/Tenancy.ts"
import { describeFailure, newErrorId } from "../../common/InternalErrors.ts"
import { isoUtc, pageOf, reachFilter } from "../../common/sql/Fragments.ts"
import { Conversations } from "../conversations/Conversations.ts"
import { type ChosenModel, Llm, toGatewayError } from "../llm/Llm.ts"
import { Prompts } from "../prompts/Prompts.ts"
import { afterRecords, apiTime, type Outcome, preciseNow, RequestRecorder } from "../records/RequestRecorder.ts"
import { tenantReach } from "../tenancy/CurrentReach.ts"

/** An item of a question as stored: prompts rendered (with where they came from), images as base64. */
type StoredItem =
  | {
    readonly type: "text"
    readonly text: string
    readonly prompt?: {
      readonly id: string
      readonly version: number
      readonly payload: Readonly<Record<string, unknown>>
    }
  }
  | { readonly type: "image"; readonly mediaType: string; readonly data: string }

/** The items of a stored question (the jsonb column may come back as text, depending on the driver). */
const storedItems = (inputs: unknown): ReadonlyArray<StoredItem> =>
  ((typeof inputs === "string" ? JSON.parse(inputs) : inputs) as ReadonlyArray<
    { readonly content: ReadonlyArray<StoredItem> }
  >).flatMap((input) => input.content)

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

/** The PostgreSQL channel on which a stop reaches the instance generating the answer. */
const STOP_CHANNEL = "gateway_stop"

/** The title of a conversation a request starts: the first words of its question. */
const titleFrom = (text: string) => {
  const words = text.replace(/\s+/g, " ").trim()
  return words.length === 0
    ? "New conversation"
    : words.length <= 60
    ? words
    : `${words.slice(0, 57).replace(/\s\S*$/, "")}…`
}

/** The image types language models take. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"])

/** The bytes and type of an image item, recognised by content; BAD_REQUEST for anything else. */
const decodeImage = (value: string) =>
  Effect.gen(function*() {
    const base64 = value.replace(/^data:[^,]*,/, "").replace(/\s+/g, "")
    if (base64.length === 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) {
      return yield* new BadRequest({ message: "An image item's value must be base64 data or a data: URL" })
    }
    const bytes = Buffer.from(base64, "base64")
    const detected = yield* Effect.promise(() => fileTypeFromBuffer(bytes))
    if (detected === undefined || !IMAGE_TYPES.has(detected.mime)) {
      return yield* new BadRequest({
        message: `An image item must be a PNG, JPEG, GIF or WebP image${
          detected ? ` (this one is ${detected.mime})` : ""
        }`
      })
    }
    return { bytes, base64, mediaType: detected.mime }
  })

/** A row of llm_requests: the record's fields, with the provider, usage and inputs as stored. */
const Row = Schema.Struct({
  ...Struct.omit(LlmRequest.fields, "provider", "usage", "inputs"),
  inputs: Schema.Union(Schema.Array(Schema.Unknown), Schema.parseJson(Schema.Array(Schema.Unknown))),
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
    const prompts = yield* Prompts
    const conversations = yield* Conversations
    const recorder = yield* RequestRecorder
    /** The generations running in this process, by `tenant/conversation`: a stop interrupts the fiber (and its upstream call). */
    const running = new Map<string, Fiber.RuntimeFiber<unknown, unknown>>()
    const runningKey = (tenantId: string, conversationId: string) => `${tenantId}/${conversationId}`
    // On PostgreSQL several gateways may share the database: a stop that reaches another instance
    // than the one generating is passed on with NOTIFY. (PGlite is one process's database.)
    const pg = yield* Effect.serviceOption(PgClient.PgClient)
    if (Option.isSome(pg)) {
      yield* pg.value.listen(STOP_CHANNEL).pipe(
        Stream.runForEach((key) => {
          const generation = running.get(key)
          return generation ? Fiber.interruptFork(generation) : Effect.void
        }),
        Effect.retry(Schedule.spaced("1 second")),
        Effect.forkScoped
      )
    } else {
      // The embedded database is this process's alone: a request still RUNNING was cut off by a crash.
      yield* sql`UPDATE llm_requests SET status = 'FAILED', error_message = 'The gateway stopped before the answer was complete',
          completed_at = clock_timestamp() WHERE status = 'RUNNING'`.pipe(Effect.orDie)
    }

    const iso = (column: string) => isoUtc(sql, column)
    const columns =
      sql`id, conversation_id, status, inputs, response, provider_id, model, input_tokens, output_tokens, latency_ms,
      first_token_ms, feedback, error_message, replaced_by, ${iso("created_at")} AS created_at, ${
        iso("completed_at")
      } AS completed_at`

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
        const parts: Array<Prompt.UserMessagePartEncoded> = []
        // What is stored of the question: as sent (prompts rendered, images as base64), so that a retry can send it again.
        const asked: Array<StoredItem> = []
        // The first prompt's LLM settings (provider, model, parameters, system prompt) apply to the request.
        let promptLlm: PromptLlm | undefined
        const used: Array<{ readonly promptId: string; readonly version: number }> = []
        for (const item of items) {
          if (item.type === "image") {
            const image = yield* decodeImage(item.value)
            // Bytes, not base64 text: some clients (OpenAI's) read a string as a file ID.
            parts.push({ type: "file", mediaType: image.mediaType, data: image.bytes })
            asked.push({ type: "image", mediaType: image.mediaType, data: image.base64 })
            continue
          }
          if (item.type === "text") {
            parts.push({ type: "text", text: item.value })
            asked.push({ type: "text", text: item.value })
            continue
          }
          const rendered = yield* prompts.renderForRequest(item.value, item.version, item.payload ?? {})
          used.push({ promptId: item.value, version: rendered.version })
          promptLlm ??= rendered.llm
          parts.push({ type: "text", text: rendered.text })
          // The prompt it came from, so that a retry renders it again with its settings.
          asked.push({
            type: "text",
            text: rendered.text,
            prompt: { id: item.value, version: rendered.version, payload: item.payload ?? {} }
          })
        }
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
        const conversationId = followed === undefined ? randomUUID() : (yield* conversations.get(followed)).id
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
        const system: Array<Prompt.MessageEncoded> = promptLlm?.systemPrompt
          ? [{ role: "system", content: promptLlm.systemPrompt }]
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
          needsVision: items.some((i) => i.type === "image")
        }
      })

    type Prepared = Effect.Effect.Success<ReturnType<typeof prepare>>

    /** Records the outcome of a request; the record as it now stands (a later outcome of the same request does not replace it). */
    const finish = (principal: Principal, prepared: Prepared, outcome: Outcome) => {
      const at = preciseNow()
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
            createdAt: apiTime(prepared.createdAt),
            completedAt: apiTime(at)
          })
        )
      )
    }

    /**
     * Runs `effect` as the conversation's generation, in a fiber of its own that a stop interrupts;
     * its exit (interrupted when stopped). A child of the caller's fiber: it ends with it too.
     */
    const generation = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.fork(effect)
        running.set(key, fiber)
        return yield* Fiber.await(fiber).pipe(
          Effect.ensuring(Effect.sync(() => running.get(key) === fiber && running.delete(key)))
        )
      })

    /** A failed generation's error as the error body (a defect is an internal error, logged under its identifier). */
    const errorOf = (
      chosen: ChosenModel,
      cause: Cause.Cause<AiError.AiError | InternalError>
    ): Effect.Effect<ErrorBody> => {
      const failure = Cause.failureOption(cause)
      if (Option.isNone(failure)) {
        const errorId = newErrorId()
        const { sentence } = describeFailure(cause)
        return Effect.logError(`Error ${errorId}: a streamed request failed: ${sentence}`, cause).pipe(
          Effect.as({ code: "INTERNAL_ERROR", message: `${sentence} (error ${errorId})`, status: 500 })
        )
      }
      const error = failure.value._tag === "INTERNAL_ERROR"
        ? failure.value
        : toGatewayError(chosen.config, failure.value)
      return Effect.succeed({
        code: error._tag,
        message: error.message,
        status: error._tag === "LLM_BAD_REQUEST" ? 400 : 500
      })
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
        const content = storedItems(last.inputs).map((c): ContentItem =>
          c.type === "image"
            ? { type: "image", value: c.data, mediaType: c.mediaType }
            : c.prompt
            ? { type: "prompt", value: c.prompt.id, version: c.prompt.version, payload: c.prompt.payload }
            : { type: "text", value: c.text }
        )
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
        const exit = yield* generation(
          runningKey(principal.tenantId, prepared.conversationId),
          llm.generate(prepared.chosen, prepared.prompt, prepared.needsVision)
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
      Effect.gen(function*() {
        const prepared = yield* prepare(principal, body, query, { streamed: true, replacing })
        const key = runningKey(principal.tenantId, prepared.conversationId)
        const started = Date.now()
        let text = ""
        let firstTokenMs: number | null = null
        let usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } = {}
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
          emit.single({
            event: "start",
            data: {
              requestId: prepared.id,
              conversationId: prepared.conversationId,
              provider: prepared.chosen.config.id,
              model: prepared.chosen.model
            }
          })
          const generated = streamParts(prepared.chosen, prepared.prompt).pipe(
            Stream.runForEachChunk((parts) =>
              Effect.sync(() => {
                // The events of the parts that arrived together leave together.
                const events: Array<GenerationEvent> = []
                for (const part of parts) {
                  if (part.type === "text-delta") {
                    text += part.delta
                    firstTokenMs ??= Date.now() - started
                    events.push({ event: "delta", data: { text: part.delta } })
                  } else if (part.type === "finish") {
                    usage = { inputTokens: part.usage.inputTokens, outputTokens: part.usage.outputTokens }
                    events.push({ event: "usage", data: usage })
                  }
                }
                if (events.length > 0) emit.array(events)
              })
            )
          )
          /** The outcome is recorded; what ends the stream then has nothing left to record. */
          let recorded = false
          const record = (result: Outcome) =>
            Effect.suspend(() => ((recorded = true), finish(principal, prepared, result)))
          const respond = Effect.gen(function*() {
            const exit = yield* generation(key, generated)
            if (Exit.isSuccess(exit) || Exit.isInterrupted(exit)) {
              const status = Exit.isSuccess(exit) ? "COMPLETED" as const : "STOPPED" as const
              yield* record(outcome(status))
              emit.single({
                event: "done",
                data: {
                  requestId: prepared.id,
                  conversationId: prepared.conversationId,
                  status,
                  latencyMs: Date.now() - started
                }
              })
            } else {
              const error = yield* errorOf(prepared.chosen, exit.cause)
              yield* record(outcome("FAILED", error.message))
              emit.single({ event: "error", data: error })
            }
            emit.end()
          }).pipe(
            // A client that goes away stops the generation: the partial answer is kept, marked STOPPED.
            Effect.onInterrupt(() => Effect.suspend(() => (recorded ? Effect.void : record(outcome("STOPPED")))))
          )
          return Effect.forkScoped(respond)
        })
      })

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
          const key = runningKey(tenantId, conversationId)
          const current = running.get(key)
          if (current) return yield* Fiber.interrupt(current).pipe(Effect.as(true))
          if (Option.isNone(pg)) return false
          return yield* sql`SELECT 1 FROM llm_requests WHERE tenant_id = ${tenantId} AND conversation_id = ${conversationId} AND status = 'RUNNING' LIMIT 1`
            .pipe(
              // pg_notify, not PgClient.notify: on this Effect line it sends `NOTIFY channel, $1`, which PostgreSQL refuses
              // (fixed only in Effect 4, Effect-TS/effect-smol#1835).
              Effect.flatMap((rows) => (rows.length === 0
                ? Effect.succeed(false)
                : sql`SELECT pg_notify(${STOP_CHANNEL}, ${key})`.pipe(Effect.as(true)))
              ),
              Effect.orDie
            )
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

    function streamParts(chosen: ChosenModel, prompt: ReadonlyArray<Prompt.MessageEncoded>) {
      return llm.stream(chosen, prompt).pipe(
        Stream.mapError((
          error
        ) => (error._tag === "MalformedInput" ? new InternalError({ message: error.message }) : error))
      )
    }
  }),
  dependencies: [Llm.Default, Prompts.Default, Conversations.Default, RequestRecorder.Default]
}) {}
