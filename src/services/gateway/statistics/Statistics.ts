/**
 * Usage statistics, computed in SQL from the requests, conversations and prompt uses the gateway
 * records. Every figure is scoped to a reach (a tenant, or one user of it) and, where it has one,
 * to a time window. What each figure counts: docs/gateway-statistics.md.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { DateTime, Effect, Schema } from "effect"
import type { PageParams } from "../../../schemas/gateway/Conversations.ts"
import { BadRequest } from "../../../schemas/gateway/GatewayErrors.ts"
import {
  Feature,
  FeatureAdoption,
  FeatureUse,
  GlobalStatistics,
  type Interval,
  ModelUsage,
  PromptTimeSaved,
  Timeseries,
  TimeseriesPoint,
  type TimeWindow,
  UserActivity,
  UserStatistics
} from "../../../schemas/gateway/Statistics.ts"
import { CurrentPrincipal, type Reach } from "../../../schemas/gateway/Tenancy.ts"
import { isoUtc, pageOf, reachFilter } from "../../common/sql/Fragments.ts"
import { Conversations } from "../conversations/Conversations.ts"
import { afterRecords, RequestRecorder } from "../records/RequestRecorder.ts"
import { currentTenant, tenantReach } from "../tenancy/CurrentReach.ts"

/** Buckets of a time series when the window is not given, ending now. */
const DEFAULT_BUCKETS: Record<Interval, number> = { HOUR: 48, DAY: 30, WEEK: 26, MONTH: 12 }
/** Most buckets one time series answers. */
const MAX_BUCKETS = 1_000
const BUCKET_MS: Record<Interval, number> = {
  HOUR: 3_600_000,
  DAY: 86_400_000,
  WEEK: 7 * 86_400_000,
  MONTH: 31 * 86_400_000
}

const Int = Schema.Number
const NullableNumber = Schema.NullOr(Schema.Number)

const ActivityRow = Schema.Struct({
  conversations: Int,
  requests: Int,
  completedRequests: Int,
  failedRequests: Int,
  stoppedRequests: Int,
  inputTokens: Int,
  outputTokens: Int,
  averageLatencyMs: NullableNumber,
  feedbackGood: Int,
  feedbackBad: Int
})

const UserRow = Schema.Struct({
  userId: Schema.String,
  ...ActivityRow.fields,
  lastActivityAt: Schema.NullOr(Schema.String)
})

const isoOf = (value: DateTime.Utc | undefined) => (value === undefined ? null : DateTime.formatIso(value))

/** A window whose `from` is not before its `to` is a mistake, not an empty answer. */
const checkWindow = (window: TimeWindow) =>
  window.from !== undefined && window.to !== undefined &&
    DateTime.toEpochMillis(window.from) >= DateTime.toEpochMillis(window.to)
    ? Effect.fail(new BadRequest({ message: "from must be before to" }))
    : Effect.void

export class Statistics extends Effect.Service<Statistics>()("gateway/Statistics", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const conversations = yield* Conversations
    const recorder = yield* RequestRecorder
    const iso = (column: string) => isoUtc(sql, column)

    const inWindow = (window: TimeWindow, column: string) =>
      sql`${sql.literal(column)} >= COALESCE(${isoOf(window.from)}::timestamptz, '-infinity') AND ${
        sql.literal(column)
      } < COALESCE(${isoOf(window.to)}::timestamptz, 'infinity')`

    /** The figures over a set of requests (the FROM clause's rows), as columns named like ActivityRow. */
    const activityColumns = sql`count(*)::int AS requests,
      count(*) FILTER (WHERE status = 'COMPLETED')::int AS completed_requests,
      count(*) FILTER (WHERE status = 'FAILED')::int AS failed_requests,
      count(*) FILTER (WHERE status = 'STOPPED')::int AS stopped_requests,
      COALESCE(sum(input_tokens), 0)::int AS input_tokens,
      COALESCE(sum(output_tokens), 0)::int AS output_tokens,
      (avg(latency_ms) FILTER (WHERE status = 'COMPLETED'))::float8 AS average_latency_ms,
      count(*) FILTER (WHERE feedback = 'GOOD')::int AS feedback_good,
      count(*) FILTER (WHERE feedback = 'BAD')::int AS feedback_bad`

    /** Per user of the reach: their requests' figures and conversations, most recently active first. */
    const userRows = (reach: Reach, limit: number, offset: number) =>
      sql`WITH r AS (
          SELECT user_id, ${activityColumns}, max(created_at) AS last_request FROM llm_requests WHERE ${
        reachFilter(sql, reach)
      } GROUP BY user_id
        ), c AS (
          SELECT user_id, count(*)::int AS conversations, max(updated_at) AS last_change FROM conversations WHERE ${
        reachFilter(sql, reach)
      } GROUP BY user_id
        ), u AS (
          SELECT COALESCE(c.user_id, r.user_id) AS user_id, COALESCE(c.conversations, 0) AS conversations,
            COALESCE(r.requests, 0) AS requests, COALESCE(r.completed_requests, 0) AS completed_requests,
            COALESCE(r.failed_requests, 0) AS failed_requests, COALESCE(r.stopped_requests, 0) AS stopped_requests,
            COALESCE(r.input_tokens, 0) AS input_tokens, COALESCE(r.output_tokens, 0) AS output_tokens, r.average_latency_ms,
            COALESCE(r.feedback_good, 0) AS feedback_good, COALESCE(r.feedback_bad, 0) AS feedback_bad,
            GREATEST(c.last_change, r.last_request) AS last_activity
          FROM c FULL JOIN r ON c.user_id = r.user_id
        )
        SELECT user_id, conversations, requests, completed_requests, failed_requests, stopped_requests, input_tokens, output_tokens,
          average_latency_ms, feedback_good, feedback_bad, CASE WHEN last_activity IS NULL THEN NULL ELSE ${
        iso("last_activity")
      } END AS last_activity_at,
          count(*) OVER ()::int AS total
        FROM u ORDER BY last_activity DESC NULLS LAST, user_id LIMIT ${limit} OFFSET ${offset}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ ...UserRow.fields, total: Int })))),
        Effect.orDie
      )

    const timeSavedSql = (tenantId: string) =>
      sql`SELECT u.prompt_id, sum(u.uses)::int AS uses, COALESCE(sum(u.uses * v.time_saved_seconds), 0)::int AS time_saved_seconds
        FROM prompt_usage u LEFT JOIN prompt_versions v ON v.tenant_id = u.tenant_id AND v.prompt_id = u.prompt_id AND v.version = u.version
        WHERE u.tenant_id = ${tenantId} GROUP BY u.prompt_id`

    /** One user's figures (zeros for a user with no activity). */
    const figuresOf = (tenantId: string, userId: string) =>
      userRows({ tenantId, userId }, 1, 0).pipe(
        Effect.map(([row]) => {
          if (row === undefined) {
            return new UserStatistics({
              userId,
              conversations: 0,
              requests: 0,
              completedRequests: 0,
              failedRequests: 0,
              stoppedRequests: 0,
              inputTokens: 0,
              outputTokens: 0,
              averageLatencyMs: null,
              feedbackGood: 0,
              feedbackBad: 0,
              lastActivityAt: null
            })
          }
          const { total: _total, ...figures } = row
          return new UserStatistics(figures)
        })
      )

    // Figures of the current principal's tenant (the caller's own for `user`). Every figure counts
    // this process's pending records too (RequestRecorder).
    return afterRecords("Statistics", recorder.settled, {
      /** Figures of every user of the tenant. */
      users: (page: number, size: number) =>
        Effect.gen(function*() {
          const rows = yield* userRows(yield* tenantReach(), size, page * size)
          return pageOf(
            rows.map(({ total: _total, ...row }) => new UserStatistics(row)),
            page,
            size,
            rows[0]?.total ?? 0
          )
        }),

      /** The caller's own figures. */
      user: () => Effect.flatMap(CurrentPrincipal, (principal) => figuresOf(principal.tenantId, principal.userId)),

      /** A user's figures and a page of their conversations, most recent first. */
      activity: (userId: string, page: PageParams) =>
        Effect.gen(function*() {
          const tenantId = yield* currentTenant
          const activity = yield* Effect.all({
            statistics: figuresOf(tenantId, userId),
            conversations: conversations.listInTenant({ ...page, userId })
          })
          return new UserActivity({ userId, ...activity })
        }),

      global: (timeWindow: TimeWindow) =>
        Effect.gen(function*() {
          const tenantId = yield* currentTenant
          yield* checkWindow(timeWindow)
          const [row] = yield* sql`SELECT ${activityColumns}, count(DISTINCT user_id)::int AS users,
              (avg(first_token_ms) FILTER (WHERE first_token_ms IS NOT NULL))::float8 AS average_first_token_ms,
              (SELECT count(*)::int FROM conversations WHERE tenant_id = ${tenantId} AND ${
            inWindow(timeWindow, "created_at")
          }) AS conversations,
              (SELECT count(*)::int FROM prompts WHERE tenant_id = ${tenantId}) AS prompts,
              (SELECT COALESCE(sum(time_saved_seconds), 0)::int FROM (${
            timeSavedSql(tenantId)
          }) AS saved) AS time_saved_seconds
            FROM llm_requests WHERE tenant_id = ${tenantId} AND ${inWindow(timeWindow, "created_at")}`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({
              ...ActivityRow.fields,
              users: Int,
              averageFirstTokenMs: NullableNumber,
              prompts: Int,
              timeSavedSeconds: Int
            })))),
            Effect.orDie
          )
          return new GlobalStatistics({ from: isoOf(timeWindow.from), to: isoOf(timeWindow.to), ...row! })
        }),

      timeseries: (interval: Interval, timeWindow: TimeWindow) =>
        Effect.gen(function*() {
          const tenantId = yield* currentTenant
          const to = timeWindow.to ?? DateTime.unsafeNow()
          const part = interval === "HOUR"
            ? "hour"
            : interval === "DAY"
            ? "day"
            : interval === "WEEK"
            ? "week"
            : "month"
          // By default the last buckets up to now, the current one included: whole buckets only.
          const from = timeWindow.from ??
            DateTime.subtract(DateTime.startOf(to, part, { weekStartsOn: 1 }), {
              [`${part}s`]: DEFAULT_BUCKETS[interval] - 1
            })
          const spanMs = DateTime.toEpochMillis(to) - DateTime.toEpochMillis(from)
          if (spanMs <= 0) return yield* new BadRequest({ message: "from must be before to" })
          // Months are counted as 28 days here so that no window of MAX_BUCKETS real months passes.
          if (spanMs / (interval === "MONTH" ? 28 * 86_400_000 : BUCKET_MS[interval]) > MAX_BUCKETS) {
            return yield* new BadRequest({
              message:
                `At most ${MAX_BUCKETS} ${interval.toLowerCase()} buckets in one time series; narrow from/to or take a longer interval`
            })
          }
          const unit = interval.toLowerCase()
          const points = yield* sql`SELECT ${iso("b.start")} AS start,
              count(DISTINCT r.user_id)::int AS users, count(r.id)::int AS requests,
              (SELECT count(*)::int FROM conversations c WHERE c.tenant_id = ${tenantId}
                AND date_trunc(${unit}, c.created_at AT TIME ZONE 'UTC') = b.start AND ${
            inWindow({ from, to }, "c.created_at")
          }) AS conversations,
              count(r.id) FILTER (WHERE r.status = 'FAILED')::int AS failed_requests,
              COALESCE(sum(r.input_tokens), 0)::int AS input_tokens, COALESCE(sum(r.output_tokens), 0)::int AS output_tokens
            FROM generate_series(
              date_trunc(${unit}, ${DateTime.formatIso(from)}::timestamptz AT TIME ZONE 'UTC'),
              ${DateTime.formatIso(to)}::timestamptz AT TIME ZONE 'UTC' - interval '1 microsecond',
              ${`1 ${unit}`}::interval
            ) AS b(start)
            LEFT JOIN llm_requests r ON r.tenant_id = ${tenantId} AND date_trunc(${unit}, r.created_at AT TIME ZONE 'UTC') = b.start
              AND ${inWindow({ from, to }, "r.created_at")}
            GROUP BY b.start ORDER BY b.start`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(TimeseriesPoint))),
            Effect.orDie
          )
          return new Timeseries({ interval, from: DateTime.formatIso(from), to: DateTime.formatIso(to), points })
        }),

      llmDistribution: (timeWindow: TimeWindow) =>
        checkWindow(timeWindow).pipe(
          Effect.zipRight(currentTenant),
          Effect.flatMap((tenantId) =>
            sql`SELECT provider_id AS provider, model, count(*)::int AS requests,
            COALESCE(sum(input_tokens), 0)::int AS input_tokens, COALESCE(sum(output_tokens), 0)::int AS output_tokens,
            (avg(latency_ms) FILTER (WHERE status = 'COMPLETED'))::float8 AS average_latency_ms
          FROM llm_requests WHERE tenant_id = ${tenantId} AND ${inWindow(timeWindow, "created_at")}
          GROUP BY provider_id, model ORDER BY requests DESC, provider_id, model`.pipe(
              Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({
                provider: Schema.NullOr(Schema.String),
                model: Schema.NullOr(Schema.String),
                requests: Int,
                inputTokens: Int,
                outputTokens: Int,
                averageLatencyMs: NullableNumber
              })))),
              Effect.orDie,
              Effect.map((rows) => {
                const total = rows.reduce((sum, row) => sum + row.requests, 0)
                return rows.map((row) => new ModelUsage({ ...row, share: row.requests / total }))
              })
            )
          )
        ),

      featureAdoption: (timeWindow: TimeWindow) =>
        Effect.gen(function*() {
          const tenantId = yield* currentTenant
          yield* checkWindow(timeWindow)
          const requests =
            sql`SELECT user_id, created_at, streamed, used_prompt, has_image, is_retry, feedback IS NOT NULL AS gave_feedback,
              row_number() OVER (PARTITION BY conversation_id ORDER BY created_at, id) > 1 AS follow_up
            FROM llm_requests WHERE tenant_id = ${tenantId}`
          const uses =
            yield* sql`SELECT f.feature, count(*) FILTER (WHERE f.used)::int AS requests, count(DISTINCT r.user_id) FILTER (WHERE f.used)::int AS users
            FROM (${requests}) AS r CROSS JOIN LATERAL (VALUES
              ('STREAMING', r.streamed), ('PROMPTS', r.used_prompt), ('IMAGES', r.has_image),
              ('RETRY', r.is_retry), ('FEEDBACK', r.gave_feedback), ('MULTI_TURN', r.follow_up)
            ) AS f(feature, used)
            WHERE ${inWindow(timeWindow, "r.created_at")} GROUP BY f.feature`.pipe(
              Effect.flatMap(
                Schema.decodeUnknown(Schema.Array(Schema.Struct({ feature: Feature, requests: Int, users: Int })))
              ),
              Effect.orDie
            )
          const [{ activeUsers }] = yield* sql`SELECT count(DISTINCT user_id)::int AS active_users FROM llm_requests
            WHERE tenant_id = ${tenantId} AND ${inWindow(timeWindow, "created_at")}`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Tuple(Schema.Struct({ activeUsers: Int })))),
            Effect.orDie
          )
          const features = Feature.literals.map((feature) => {
            const use = uses.find((u) => u.feature === feature)
            const users = use?.users ?? 0
            return new FeatureUse({
              feature,
              requests: use?.requests ?? 0,
              users,
              adoption: activeUsers === 0 ? 0 : users / activeUsers
            })
          })
          return new FeatureAdoption({ from: isoOf(timeWindow.from), to: isoOf(timeWindow.to), activeUsers, features })
        }),

      topPromptsTimeSaved: (limit: number) =>
        Effect.flatMap(currentTenant, (tenantId) =>
          sql`SELECT saved.prompt_id, saved.uses, saved.time_saved_seconds,
            (SELECT name FROM prompt_versions p WHERE p.tenant_id = ${tenantId} AND p.prompt_id = saved.prompt_id AND p.state = 'published') AS name
          FROM (${timeSavedSql(tenantId)}) AS saved
          ORDER BY saved.time_saved_seconds DESC, saved.uses DESC, saved.prompt_id LIMIT ${limit}`.pipe(
            Effect.flatMap(Schema.decodeUnknown(Schema.Array(PromptTimeSaved))),
            Effect.orDie
          ))
    })
  }),
  dependencies: [Conversations.Default, RequestRecorder.Default]
}) {}
