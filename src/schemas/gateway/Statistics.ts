/**
 * Usage statistics of the gateway (spec: "Admin: users, conversations, requests, statistics"; the
 * fields are not shown there: see docs/gateway-statistics.md for what each figure counts).
 */
import { Schema } from "effect"
import { Conversation, Page, PageParams } from "./Conversations.ts"

/** An optional time window: `from` inclusive, `to` exclusive, ISO 8601. */
export const TimeWindow = Schema.Struct({
  from: Schema.optional(Schema.DateTimeUtc),
  to: Schema.optional(Schema.DateTimeUtc)
})
export type TimeWindow = typeof TimeWindow.Type

/** The figures of a set of requests: one user's, a tenant's, one time bucket's. */
const activityFields = {
  conversations: Schema.Int,
  requests: Schema.Int,
  completedRequests: Schema.Int,
  failedRequests: Schema.Int,
  stoppedRequests: Schema.Int,
  inputTokens: Schema.Int,
  outputTokens: Schema.Int,
  /** Mean time to the whole answer, over completed requests (null when none). */
  averageLatencyMs: Schema.NullOr(Schema.Number),
  feedbackGood: Schema.Int,
  feedbackBad: Schema.Int
}

export class UserStatistics extends Schema.Class<UserStatistics>("UserStatistics")({
  userId: Schema.String,
  ...activityFields,
  /** The last request or conversation change (null when the user has none). */
  lastActivityAt: Schema.NullOr(Schema.String)
}) {}

export const UserDetailsParams = Schema.Struct({ userId: Schema.NonEmptyString, ...PageParams.fields })

/** GET /admin/users/details: a user's figures and a page of their conversations, most recent first. */
export class UserActivity extends Schema.Class<UserActivity>("UserActivity")({
  userId: Schema.String,
  statistics: UserStatistics,
  conversations: Page(Conversation)
}) {}

export class GlobalStatistics extends Schema.Class<GlobalStatistics>("GlobalStatistics")({
  from: Schema.NullOr(Schema.String),
  to: Schema.NullOr(Schema.String),
  /** Users who sent at least one request in the window. */
  users: Schema.Int,
  ...activityFields,
  /** Mean time to the first streamed token (null when nothing was streamed). */
  averageFirstTokenMs: Schema.NullOr(Schema.Number),
  /** Prompts of the tenant (not windowed). */
  prompts: Schema.Int,
  /** Uses of prompts × each version's `timeSavedSeconds` (all time: prompt use counts are not windowed). */
  timeSavedSeconds: Schema.Int
}) {}

export const Interval = Schema.Literal("HOUR", "DAY", "WEEK", "MONTH")
export type Interval = typeof Interval.Type

export const TimeseriesParams = Schema.Struct({
  interval: Schema.optionalWith(Interval, { default: () => "DAY" as const }),
  ...TimeWindow.fields
})

export class TimeseriesPoint extends Schema.Class<TimeseriesPoint>("TimeseriesPoint")({
  /** Start of the bucket, ISO 8601 UTC. */
  start: Schema.String,
  users: Schema.Int,
  conversations: Schema.Int,
  requests: Schema.Int,
  failedRequests: Schema.Int,
  inputTokens: Schema.Int,
  outputTokens: Schema.Int
}) {}

export class Timeseries extends Schema.Class<Timeseries>("Timeseries")({
  interval: Interval,
  from: Schema.String,
  to: Schema.String,
  /** Every bucket of the window in order, empty ones included. */
  points: Schema.Array(TimeseriesPoint)
}) {}

export class ModelUsage extends Schema.Class<ModelUsage>("ModelUsage")({
  provider: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  requests: Schema.Int,
  /** Share of the window's requests, 0-1. */
  share: Schema.Number,
  inputTokens: Schema.Int,
  outputTokens: Schema.Int,
  averageLatencyMs: Schema.NullOr(Schema.Number)
}) {}

export const Feature = Schema.Literal("STREAMING", "PROMPTS", "IMAGES", "RETRY", "FEEDBACK", "MULTI_TURN")

export class FeatureUse extends Schema.Class<FeatureUse>("FeatureUse")({
  feature: Feature,
  /** Requests that used it (MULTI_TURN: requests after the first of their conversation). */
  requests: Schema.Int,
  users: Schema.Int,
  /** users / activeUsers, 0-1. */
  adoption: Schema.Number
}) {}

export class FeatureAdoption extends Schema.Class<FeatureAdoption>("FeatureAdoption")({
  from: Schema.NullOr(Schema.String),
  to: Schema.NullOr(Schema.String),
  /** Users with at least one request in the window. */
  activeUsers: Schema.Int,
  features: Schema.Array(FeatureUse)
}) {}

export const TopPromptsParams = Schema.Struct({
  limit: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100)), { default: () => 10 })
})

export class PromptTimeSaved extends Schema.Class<PromptTimeSaved>("PromptTimeSaved")({
  promptId: Schema.String,
  name: Schema.NullOr(Schema.String),
  uses: Schema.Int,
  timeSavedSeconds: Schema.Int
}) {}
