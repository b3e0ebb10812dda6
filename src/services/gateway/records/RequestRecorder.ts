/**
 * The records of conversations and requests, written behind the answers: a request enqueues what
 * it did (a conversation started, a request started or finished, a conversation touched, a retry's
 * replaced request, a prompt used) and goes on; a writer gathers what arrives within
 * REQUEST_RECORD_DELAY into one SQL statement. No statement stands between a question and its
 * answer, and under load one statement carries many requests' records.
 *
 * Reads see their own process's writes: every reader of these tables first awaits `settled` (every
 * record enqueued so far is written), which also cuts the writer's wait short. A crash loses at
 * most the records of the last moments, never an answer a client was waiting for; a graceful stop
 * writes everything first. See docs/gateway-requests.md ("Records").
 */
import type { SqlError, Statement } from "@effect/sql"
import * as SqlClient from "@effect/sql/SqlClient"
import { Config, Deferred, Duration, Effect, Option, Schedule } from "effect"
import { InternalError } from "../../../schemas/gateway/GatewayErrors.ts"
import { durationConfig, durationSetting } from "../../common/DurationConfig.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"

/**
 * How long the first record of a batch waits for others to share its statement, unless
 * REQUEST_RECORD_DELAY says. On the embedded database 200 ms: no other process reads it (this
 * process's reads wait for the records anyway), and each statement costs its thread 1 to 2 ms of
 * parsing and planning, so at a model's pace, where 20 ms gathered one or two requests' records,
 * the gateway spent a quarter of its CPU on statements. On PostgreSQL 20 ms, since another
 * gateway on the same database sees a record only once it is written.
 */
const recordDelay = Config.all([
  Config.option(durationSetting("REQUEST_RECORD_DELAY")),
  Config.string("DATABASE_URL").pipe(Config.withDefault(""))
]).pipe(
  Config.map(([delay, databaseUrl]) =>
    Option.getOrElse(delay, () => Duration.millis(databaseUrl.trim() === "" ? 200 : 20))
  )
)

export const RequestRecorderConfig = Config.all({
  delay: recordDelay,
  /** Most records in one statement. */
  batch: Config.integer("REQUEST_RECORD_BATCH").pipe(Config.withDefault(500)),
  /** Records waiting to be written past which requests wait for the writer (the database is slow or away). */
  queue: Config.integer("REQUEST_RECORD_QUEUE").pipe(Config.withDefault(10_000)),
  /** Longest a read waits for the records before it (then INTERNAL_ERROR: the database is not taking them). */
  settleTimeout: durationConfig("REQUEST_RECORD_SETTLE_TIMEOUT", "10 seconds")
})

/** What a finished request was: its status and answer, usage and timings. */
export interface Outcome {
  readonly status: "COMPLETED" | "FAILED" | "STOPPED"
  readonly response: string
  readonly inputTokens?: number | undefined
  readonly outputTokens?: number | undefined
  readonly latencyMs: number
  readonly firstTokenMs?: number | null | undefined
  readonly errorMessage?: string | undefined
  /** What the tool loop did, and the pages the answer cites (docs/gateway-tools.md). */
  readonly toolCalls?: ReadonlyArray<unknown> | undefined
  readonly citations?: ReadonlyArray<unknown> | undefined
}

export interface StartedRequest {
  readonly tenantId: string
  readonly id: string
  readonly conversationId: string
  readonly userId: string
  /** The stored question (JSON). */
  readonly inputs: ReadonlyArray<unknown>
  readonly providerId: string
  readonly model: string
  readonly streamed: boolean
  readonly usedPrompt: boolean
  readonly hasImage: boolean
  readonly isRetry: boolean
  /** ISO 8601 with microseconds. */
  readonly at: string
}

type Record =
  | {
    readonly _tag: "ConversationStarted"
    readonly tenantId: string
    readonly id: string
    readonly userId: string
    readonly title: string
    readonly at: string
  }
  | { readonly _tag: "RequestStarted"; readonly request: StartedRequest }
  | {
    readonly _tag: "RequestFinished"
    readonly tenantId: string
    readonly id: string
    readonly outcome: Outcome
    readonly at: string
  }
  | { readonly _tag: "ConversationTouched"; readonly tenantId: string; readonly id: string; readonly at: string }
  | { readonly _tag: "RequestReplaced"; readonly tenantId: string; readonly id: string; readonly replacedBy: string }
  | {
    readonly _tag: "PromptUsed"
    readonly tenantId: string
    readonly promptId: string
    readonly version: number
    readonly at: string
  }

/** The current time as ISO 8601 UTC with microseconds (monotonic within the process). */
export const preciseNow = () => {
  const micros = Math.round((performance.timeOrigin + performance.now()) * 1000)
  const iso = new Date(Math.floor(micros / 1000)).toISOString()
  return `${iso.slice(0, 23)}${String(micros % 1000).padStart(3, "0")}Z`
}

/** The form every API answer gives a time: ISO 8601 UTC with milliseconds (as isoUtc formats a column). */
export const apiTime = (precise: string) => `${precise.slice(0, 23)}Z`

const key = (tenantId: string, id: string) => `${tenantId}\u0000${id}`

/** A batch's rows, keyed and typed as the statement's `jsonb_to_recordset` definitions read them. */
const rowsOf = (records: ReadonlyArray<Record>) => {
  const conversations: Array<object> = []
  const requests = new Map<string, { [column: string]: unknown }>()
  const finished = new Map<string, object>()
  const touched = new Map<string, { tenant_id: string; id: string; at: string }>()
  const replaced: Array<object> = []
  const promptUses = new Map<
    string,
    { tenant_id: string; prompt_id: string; version: number; uses: number; at: string }
  >()
  for (const record of records) {
    switch (record._tag) {
      case "ConversationStarted":
        conversations.push({
          tenant_id: record.tenantId,
          id: record.id,
          user_id: record.userId,
          title: record.title,
          at: record.at
        })
        break
      case "RequestStarted": {
        const r = record.request
        requests.set(key(r.tenantId, r.id), {
          tenant_id: r.tenantId,
          id: r.id,
          conversation_id: r.conversationId,
          user_id: r.userId,
          inputs: r.inputs,
          status: "RUNNING",
          provider_id: r.providerId,
          model: r.model,
          streamed: r.streamed,
          used_prompt: r.usedPrompt,
          has_image: r.hasImage,
          is_retry: r.isRetry,
          created_at: r.at
        })
        break
      }
      case "RequestFinished": {
        const k = key(record.tenantId, record.id)
        const outcome = {
          status: record.outcome.status,
          response: record.outcome.response,
          input_tokens: record.outcome.inputTokens ?? null,
          output_tokens: record.outcome.outputTokens ?? null,
          latency_ms: record.outcome.latencyMs,
          first_token_ms: record.outcome.firstTokenMs ?? null,
          error_message: record.outcome.errorMessage ?? null,
          tool_calls: record.outcome.toolCalls ?? [],
          citations: record.outcome.citations ?? [],
          completed_at: record.at
        }
        const started = requests.get(k)
        // The first outcome stands, as the statement's `status = 'RUNNING'` keeps it for rows written earlier.
        if (started !== undefined) {
          if (started.status === "RUNNING") Object.assign(started, outcome)
        } else if (!finished.has(k)) {
          finished.set(k, { tenant_id: record.tenantId, id: record.id, ...outcome })
        }
        break
      }
      case "ConversationTouched": {
        const k = key(record.tenantId, record.id)
        const earlier = touched.get(k)
        if (earlier === undefined || earlier.at < record.at) {
          touched.set(k, { tenant_id: record.tenantId, id: record.id, at: record.at })
        }
        break
      }
      case "RequestReplaced":
        replaced.push({ tenant_id: record.tenantId, id: record.id, replaced_by: record.replacedBy })
        break
      case "PromptUsed": {
        const k = `${key(record.tenantId, record.promptId)}\u0000${record.version}`
        const use = promptUses.get(k)
        if (use === undefined) {
          promptUses.set(k, {
            tenant_id: record.tenantId,
            prompt_id: record.promptId,
            version: record.version,
            uses: 1,
            at: record.at
          })
        } else {
          use.uses++
          if (use.at < record.at) use.at = record.at
        }
        break
      }
    }
  }
  return {
    conversations,
    requests: [...requests.values()],
    finished: [...finished.values()],
    touched: [...touched.values()],
    replaced,
    prompt_uses: [...promptUses.values()]
  }
}

/**
 * How many of the queue's first records one statement may write: at most `limit`, and never a
 * request's replacement with another record of that request, since a statement's two UPDATEs of
 * one row keep only one, and an UPDATE does not see a row the same statement inserts.
 */
const batchLength = (queue: ReadonlyArray<Record>, limit: number) => {
  const requests = new Set<string>()
  const end = Math.min(queue.length, limit)
  for (let i = 0; i < end; i++) {
    const record = queue[i]!
    if (record._tag === "RequestReplaced" && requests.has(key(record.tenantId, record.id))) return i
    if (record._tag === "RequestStarted") requests.add(key(record.request.tenantId, record.request.id))
    if (record._tag === "RequestFinished") requests.add(key(record.tenantId, record.id))
  }
  return end
}

/** SQLSTATE classes of a statement that will fail however often it is tried: bad data, a broken constraint, an unknown object. */
const isPermanent = (error: SqlError.SqlError) => {
  const code = (error.cause as { readonly code?: unknown } | undefined)?.code
  return typeof code === "string" && /^(22|23|42)[0-9A-Z]{3}$/.test(code)
}

/** What the database said of a refused statement: SQLSTATE and message. */
const refusal = (error: SqlError.SqlError) => {
  const cause = error.cause as { readonly code?: unknown; readonly message?: unknown } | undefined
  return `${String(cause?.code ?? "no SQLSTATE")}: ${String(cause?.message ?? error.message)}`
}

/** PostgreSQL's `integer`, the type of every number a record holds (tokens, milliseconds, versions). */
const INTEGER_MAX = 2_147_483_647

const boundedNumber = (value: unknown): unknown =>
  typeof value !== "number"
    ? value
    : !Number.isFinite(value)
    ? null
    : Math.max(-INTEGER_MAX, Math.min(INTEGER_MAX, Math.round(value)))

/** `fields` with every number bounded, or undefined when none needed it. */
const boundedFields = <A extends object>(fields: A): A | undefined => {
  let changed = false
  const bounded = Object.fromEntries(
    Object.entries(fields).map(([name, value]) => {
      const kept = boundedNumber(value)
      if (kept !== value) changed = true
      return [name, kept]
    })
  )
  return changed ? (bounded as A) : undefined
}

/**
 * A record in a form the database accepts whatever a provider reported: every number rounded into
 * the `integer` range (a usage count of five billion tokens overflows it). Text needs no such step:
 * StorableText.ts has already made it storable. The record itself when nothing changes.
 */
const acceptableForm = (record: Record): Record => {
  if (record._tag === "RequestFinished") {
    const outcome = boundedFields(record.outcome)
    return outcome === undefined ? record : { ...record, outcome }
  }
  return record._tag === "PromptUsed" ? boundedFields(record) ?? record : record
}

const describe = (record: Record) =>
  record._tag === "RequestStarted"
    ? `RequestStarted ${record.request.tenantId}/${record.request.id}`
    : `${record._tag} ${record.tenantId}/${"id" in record ? record.id : record.promptId}`

export class RequestRecorder extends Effect.Service<RequestRecorder>()("gateway/RequestRecorder", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const settings = yield* RequestRecorderConfig

    /**
     * A batch statement's part for each kind of row: a CTE that reads its rows from the batch's
     * jsonb. PGlite parses and plans every part of a statement each time it runs one, and at a
     * model's pace a batch holds one or two kinds of rows: a statement of those parts alone takes
     * its thread a half to two thirds of the time of one with all six.
     */
    const parts: { readonly [Kind in keyof ReturnType<typeof rowsOf>]: Statement.Fragment } = {
      conversations: sql`new_conversations AS (
          INSERT INTO conversations (tenant_id, id, user_id, title, created_at, updated_at)
          SELECT tenant_id, id, user_id, title, at, at
          FROM jsonb_to_recordset((SELECT rows -> 'conversations' FROM batch)) AS x(tenant_id text, id text, user_id text, title text, at timestamptz)
        )`,
      requests: sql`new_requests AS (
          INSERT INTO llm_requests (tenant_id, id, conversation_id, user_id, inputs, status, provider_id, model, streamed, used_prompt, has_image, is_retry,
            created_at, response, input_tokens, output_tokens, latency_ms, first_token_ms, error_message, tool_calls, citations, completed_at)
          SELECT tenant_id, id, conversation_id, user_id, inputs, status, provider_id, model, streamed, used_prompt, has_image, is_retry,
            created_at, coalesce(response, ''), input_tokens, output_tokens, latency_ms, first_token_ms, error_message,
            coalesce(tool_calls, '[]'), coalesce(citations, '[]'), completed_at
          FROM jsonb_to_recordset((SELECT rows -> 'requests' FROM batch)) AS x(tenant_id text, id text, conversation_id text, user_id text, inputs jsonb,
            status text, provider_id text, model text, streamed boolean, used_prompt boolean, has_image boolean, is_retry boolean, created_at timestamptz,
            response text, input_tokens integer, output_tokens integer, latency_ms integer, first_token_ms integer, error_message text,
            tool_calls jsonb, citations jsonb, completed_at timestamptz)
        )`,
      finished: sql`finished AS (
          UPDATE llm_requests AS r SET status = x.status, response = x.response, input_tokens = x.input_tokens, output_tokens = x.output_tokens,
            latency_ms = x.latency_ms, first_token_ms = x.first_token_ms, error_message = x.error_message,
            tool_calls = x.tool_calls, citations = x.citations, completed_at = x.completed_at
          FROM jsonb_to_recordset((SELECT rows -> 'finished' FROM batch)) AS x(tenant_id text, id text, status text, response text, input_tokens integer,
            output_tokens integer, latency_ms integer, first_token_ms integer, error_message text, tool_calls jsonb, citations jsonb,
            completed_at timestamptz)
          WHERE r.tenant_id = x.tenant_id AND r.id = x.id AND r.status = 'RUNNING'
        )`,
      touched: sql`touched AS (
          UPDATE conversations AS c SET updated_at = greatest(c.updated_at, x.at)
          FROM jsonb_to_recordset((SELECT rows -> 'touched' FROM batch)) AS x(tenant_id text, id text, at timestamptz)
          WHERE c.tenant_id = x.tenant_id AND c.id = x.id
        )`,
      replaced: sql`replaced AS (
          UPDATE llm_requests AS r SET replaced_by = x.replaced_by
          FROM jsonb_to_recordset((SELECT rows -> 'replaced' FROM batch)) AS x(tenant_id text, id text, replaced_by text)
          WHERE r.tenant_id = x.tenant_id AND r.id = x.id
        )`,
      prompt_uses: sql`prompt_uses AS (
          INSERT INTO prompt_usage (tenant_id, prompt_id, version, uses, last_used_at)
          SELECT tenant_id, prompt_id, version, uses, at
          FROM jsonb_to_recordset((SELECT rows -> 'prompt_uses' FROM batch)) AS x(tenant_id text, prompt_id text, version integer, uses integer, at timestamptz)
          ON CONFLICT (tenant_id, prompt_id, version) DO UPDATE
            SET uses = prompt_usage.uses + excluded.uses, last_used_at = greatest(prompt_usage.last_used_at, excluded.last_used_at)
        )`
    }
    const kinds = Object.keys(parts) as ReadonlyArray<keyof typeof parts>

    /** One statement writes a whole batch, the rows in one jsonb parameter, with the parts of the kinds it has. */
    const write = (records: ReadonlyArray<Record>): Effect.Effect<void, SqlError.SqlError> => {
      const rows = rowsOf(records)
      const present = kinds.filter((kind) => rows[kind].length > 0)
      if (present.length === 0) return Effect.void
      return sql`WITH batch AS (SELECT ${sqlJson(rows)}::jsonb AS rows), ${sql.csv(present.map((kind) => parts[kind]))}
        SELECT 1`.pipe(Effect.asVoid)
    }

    /**
     * Writes a batch until it is written. A batch the database refuses for its data is written
     * record by record; a refused record is logged and written again in a form it accepts
     * (`acceptableForm`), and dropped only when even that is refused (a request whose conversation
     * was deleted meanwhile). Any other failure (the database away) is retried.
     */
    const writeSurely = (records: ReadonlyArray<Record>): Effect.Effect<void> =>
      write(records).pipe(
        Effect.catchAll((error) =>
          !isPermanent(error)
            ? Effect.fail(error)
            : records.length === 1
            ? writeRefused(records[0]!, error)
            : Effect.forEach(records, (record) => writeSurely([record]), { discard: true })
        ),
        Effect.tapError((error) =>
          Effect.logWarning(`Writing ${records.length} request records failed; trying again`, error)
        ),
        Effect.retry(Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))),
        Effect.orDie
      )

    const writeRefused = (record: Record, error: SqlError.SqlError): Effect.Effect<void, SqlError.SqlError> => {
      const acceptable = acceptableForm(record)
      const dropped = (reason: SqlError.SqlError) =>
        Effect.logError(`The database refuses ${describe(record)} (${refusal(reason)}): it is dropped`)
      if (acceptable === record) return dropped(error)
      return Effect.logError(
        `The database refuses ${describe(record)} (${
          refusal(error)
        }): writing it with its numbers bounded to the columns' range`
      ).pipe(
        Effect.zipRight(write([acceptable])),
        Effect.catchAll((again) => (isPermanent(again) ? dropped(again) : Effect.fail(again)))
      )
    }

    let queue: Array<Record> = []
    /** Records enqueued, and written, since the start. */
    let enqueued = 0
    let written = 0
    let waiters: Array<{ readonly upTo: number; readonly done: Deferred.Deferred<void> }> = []
    /** Completed when a record arrives for an idle writer, or a reader needs the records at once. */
    let wake = yield* Deferred.make<void>()
    let urgent = false

    const notify = Effect.suspend(() => Deferred.succeed(wake, undefined))

    const writer = Effect.gen(function*() {
      while (true) {
        if (queue.length === 0) {
          yield* Deferred.await(wake)
          wake = yield* Deferred.make<void>()
        }
        if (!urgent && queue.length < settings.batch) {
          yield* Effect.raceFirst(Effect.sleep(settings.delay), Deferred.await(wake))
          wake = yield* Deferred.make<void>()
        }
        urgent = false
        // A wake left over from a batch written at once can bring the writer here with nothing to write.
        if (queue.length === 0) continue
        const batch = queue.slice(0, batchLength(queue, settings.batch))
        queue = queue.slice(batch.length)
        yield* writeSurely(batch)
        written += batch.length
        const [done, waiting] = [waiters.filter((w) => w.upTo <= written), waiters.filter((w) => w.upTo > written)]
        waiters = waiting
        // A reader still waits (its records did not fit in one statement): the next batch goes at once.
        if (waiting.length > 0) urgent = true
        yield* Effect.forEach(done, (w) => Deferred.succeed(w.done, undefined), { discard: true })
      }
    })

    const enqueue = (record: Record) =>
      Effect.suspend(() => {
        queue.push(record)
        enqueued++
        return queue.length === 1 || queue.length >= settings.batch ? notify : Effect.void
      })

    /**
     * For the records that start something: while the database is slow or away, new requests wait
     * for the writer rather than records pile up without end. (What running requests record next
     * is always taken: it is bounded by them.)
     */
    const enqueueWhenRoom = (record: Record) =>
      Effect.suspend(() => (queue.length >= settings.queue ? settled : Effect.void)).pipe(
        Effect.zipRight(enqueue(record))
      )

    /** Every record enqueued until now is written. */
    const settled: Effect.Effect<void, InternalError> = Effect.suspend(() => {
      if (written >= enqueued) return Effect.void
      return Effect.gen(function*() {
        const done = yield* Deferred.make<void>()
        waiters.push({ upTo: enqueued, done })
        urgent = true
        yield* notify
        yield* Deferred.await(done).pipe(
          Effect.timeoutFail({
            duration: settings.settleTimeout,
            onTimeout: () =>
              new InternalError({
                message: `The database has not taken the latest request records for ${
                  Duration.format(settings.settleTimeout)
                }`
              })
          })
        )
      })
    })

    yield* Effect.forkScoped(writer)
    // A graceful stop lets the writer write every record first (it is interrupted only after this).
    yield* Effect.addFinalizer(() =>
      settled.pipe(
        Effect.catchAll(() =>
          Effect.logError(`${enqueued - written} request records could not be written before the gateway stopped`)
        )
      )
    )

    // The enqueuers are not named steps (Effect.fn): each only queues a record, a request makes
    // several on its way to the answer, and a span costs about 10 µs of CPU each time; a failure
    // around them is named by the step that called them (Requests.ask, …).
    return {
      settled,
      conversationStarted: (tenantId: string, id: string, userId: string, title: string, at: string) =>
        enqueueWhenRoom({ _tag: "ConversationStarted", tenantId, id, userId, title, at }),
      requestStarted: (request: StartedRequest) => enqueueWhenRoom({ _tag: "RequestStarted", request }),
      requestFinished: (tenantId: string, id: string, outcome: Outcome, at: string) =>
        enqueue({ _tag: "RequestFinished", tenantId, id, outcome, at }),
      conversationTouched: (tenantId: string, id: string, at: string) =>
        enqueue({ _tag: "ConversationTouched", tenantId, id, at }),
      requestReplaced: (tenantId: string, id: string, replacedBy: string) =>
        enqueue({ _tag: "RequestReplaced", tenantId, id, replacedBy }),
      promptUsed: (tenantId: string, promptId: string, version: number, at: string) =>
        enqueue({ _tag: "PromptUsed", tenantId, promptId, version, at })
    }
  })
}) {}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any method of any service: parameters are contravariant, unknown would admit none
type Methods = { readonly [name: string]: (...args: ReadonlyArray<any>) => Effect.Effect<any, any, any> }
type AfterRecords<S extends Methods> = {
  readonly [K in keyof S]: S[K] extends (...args: infer P) => Effect.Effect<infer A, infer E, infer R>
    ? (...args: P) => Effect.Effect<A, E | InternalError, R>
    : never
}

/**
 * `service` whose every method first awaits `settled` (a reader of the records sees every record
 * enqueued before it), each named `<serviceName>.<method>` as `Effect.fn` names it, so that a
 * failure's trace says which step failed.
 */
export const afterRecords = <S extends Methods>(
  serviceName: string,
  settled: Effect.Effect<void, InternalError>,
  service: S
): AfterRecords<S> =>
  Object.fromEntries(
    Object.entries(service).map(([name, method]) => [
      name,
      Effect.fn(`${serviceName}.${name}`)((...args: ReadonlyArray<unknown>) =>
        Effect.zipRight(settled, Effect.suspend(() => method(...args)))
      )
    ])
  ) as AfterRecords<S>
