/**
 * The AI gateway's HTTP contract (spec: gateway-api.md): every API path under /api/v1, the
 * actuator outside it. Every error is `{code, message, status}`. Contract only: no service here.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Agent, AgentCreate, AgentUpdate } from "../../schemas/gateway/Agents.ts"
import { Application, ApplicationCreate, ApplicationUpdate } from "../../schemas/gateway/Applications.ts"
import {
  Conversation,
  ConversationCreate,
  ConversationListParams,
  Page,
  PageParams
} from "../../schemas/gateway/Conversations.ts"
import { GatewayErrors } from "../../schemas/gateway/GatewayErrors.ts"
import {
  ExtraParamDescriptor,
  ProviderConfigInput,
  ProviderConfigUpdate,
  ProviderConfigView
} from "../../schemas/gateway/LlmProviders.ts"
import { McpServer, McpServerInput, McpServerTools, McpServerUpdate } from "../../schemas/gateway/McpServers.ts"
import {
  AvailablePrompt,
  DraftCreate,
  Prompt,
  PromptCreate,
  PromptDisplay,
  PromptStatistics,
  PromptSummary,
  PromptUsage,
  PromptVersion,
  RenderedPrompt,
  TemplatingCompletion,
  VersionStatistics,
  VersionUpdate
} from "../../schemas/gateway/Prompts.ts"
import { LlmRequest, RequestBody, RequestQuery, RetryBody } from "../../schemas/gateway/Requests.ts"
import {
  FeatureAdoption,
  GlobalStatistics,
  ModelUsage,
  PromptTimeSaved,
  Timeseries,
  TimeseriesParams,
  TimeWindow,
  TopPromptsParams,
  UserActivity,
  UserDetailsParams,
  UserStatistics
} from "../../schemas/gateway/Statistics.ts"
import { UserDetails } from "../../schemas/gateway/Tenancy.ts"
import { ToolInfo } from "../../schemas/gateway/Tools.ts"
import type { ErrorShape } from "../common/ErrorBodies.ts"
import { AdminAuthentication, UserAuthentication } from "./Authentication.ts"
import { ChannelAuthentication } from "./ChannelAuthentication.ts"
import {
  AdminPlanExecutionsGroup,
  AdminPlansGroup,
  AdminScriptsGroup,
  ScriptsGroup,
  TempFilesGroup
} from "./OrchestrationApi.ts"

const NoContent = HttpApiSchema.Empty(204)

export const HealthStatus = Schema.Struct({
  status: Schema.Literal("UP", "DOWN"),
  components: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ status: Schema.Literal("UP", "DOWN"), details: Schema.optional(Schema.Unknown) })
  })
})

export const LoggerLevel = Schema.Literal("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF")
export const LoggerLevels = Schema.Struct({ configuredLevel: Schema.NullOr(LoggerLevel), effectiveLevel: LoggerLevel })
export const Loggers = Schema.Struct({
  levels: Schema.Array(LoggerLevel),
  loggers: Schema.Record({ key: Schema.String, value: LoggerLevels })
})

export class ActuatorGroup extends HttpApiGroup.make("actuator")
  .add(
    HttpApiEndpoint.get("health", "/actuator/health").addSuccess(HealthStatus).addError(HealthStatus, { status: 503 })
  )
  .add(
    HttpApiEndpoint.get("info", "/actuator/info").addSuccess(
      Schema.Record({ key: Schema.String, value: Schema.Unknown })
    )
  )
  .add(HttpApiEndpoint.get("loggers", "/actuator/loggers").addSuccess(Loggers))
  .add(
    HttpApiEndpoint.get("logger", "/actuator/loggers/:name").setPath(Schema.Struct({ name: Schema.String })).addSuccess(
      LoggerLevels
    )
  )
  .add(
    HttpApiEndpoint.post("setLogger", "/actuator/loggers/:name")
      .setPath(Schema.Struct({ name: Schema.String }))
      .setPayload(Schema.Struct({ configuredLevel: Schema.NullOr(LoggerLevel) }))
      .addSuccess(NoContent)
      .annotate(
        OpenApi.Description,
        "Changes a logger's level at run time (the root logger is 'ROOT'); null resets it."
      )
  )
  .addError(GatewayErrors.MissingTenant)
  .addError(GatewayErrors.MissingUser)
  .addError(GatewayErrors.Unauthorized)
  .addError(GatewayErrors.Forbidden)
{}

export class UsersGroup extends HttpApiGroup.make("users")
  .add(HttpApiEndpoint.get("details", "/users/details").addSuccess(UserDetails))
  .middleware(UserAuthentication)
  .prefix("/api/v1")
{}

const providerId = HttpApiSchema.param("id", Schema.String)
const typeName = HttpApiSchema.param("name", Schema.String)

export class AdminLlmGroup extends HttpApiGroup.make("adminLlm")
  .add(HttpApiEndpoint.get("types", "/providers").addSuccess(Schema.Array(Schema.String)))
  .add(
    HttpApiEndpoint.get("extraParams")`/providers/${typeName}/extra-params`.addSuccess(
      Schema.Array(ExtraParamDescriptor)
    )
  )
  .add(HttpApiEndpoint.get("list", "/provider-conf").addSuccess(Schema.Array(ProviderConfigView)))
  .add(HttpApiEndpoint.get("get")`/provider-conf/${providerId}`.addSuccess(ProviderConfigView))
  .add(
    HttpApiEndpoint.post("create", "/provider-conf").setPayload(ProviderConfigInput).addSuccess(ProviderConfigView, {
      status: 201
    })
  )
  .add(
    HttpApiEndpoint.put("update")`/provider-conf/${providerId}`.setPayload(ProviderConfigUpdate).addSuccess(
      ProviderConfigView
    )
  )
  .add(HttpApiEndpoint.del("remove")`/provider-conf/${providerId}`.addSuccess(NoContent))
  .addError(GatewayErrors.BadRequest)
  .addError(GatewayErrors.LlmProviderNotFound)
  .addError(GatewayErrors.Conflict)
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin/llm")
{}

const promptId = HttpApiSchema.param("id", Schema.String)
const promptVersion = HttpApiSchema.param("version", Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative()))

/** Prompts with their version lifecycle (spec: "Admin: prompts"; bodies in docs/gateway-prompts.md). */
export class AdminPromptsGroup extends HttpApiGroup.make("adminPrompts")
  .add(HttpApiEndpoint.get("list", "/prompts").addSuccess(Schema.Array(PromptSummary)))
  .add(HttpApiEndpoint.post("create", "/prompts").setPayload(PromptCreate).addSuccess(Prompt, { status: 201 }))
  .add(HttpApiEndpoint.get("categories", "/prompts/categories").addSuccess(Schema.Array(Schema.String)))
  .add(HttpApiEndpoint.get("get")`/prompts/${promptId}`.addSuccess(Prompt))
  .add(HttpApiEndpoint.del("remove")`/prompts/${promptId}`.addSuccess(NoContent))
  .add(HttpApiEndpoint.get("usage")`/prompts/${promptId}/usage`.addSuccess(PromptUsage))
  .add(HttpApiEndpoint.get("statistics")`/prompts/${promptId}/statistics`.addSuccess(PromptStatistics))
  .add(
    HttpApiEndpoint.get("render")`/prompts/${promptId}/render`
      .setUrlParams(Schema.Struct({
        version: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative())),
        /** The variables as JSON, for clients that cannot send a body with GET. */
        variables: Schema.optional(Schema.String)
      }))
      .addSuccess(RenderedPrompt)
      .annotate(
        OpenApi.Description,
        "Renders the active version, or `version`. Variables: a JSON object as the body (Content-Type: application/json) or in the query parameter `variables`."
      )
  )
  .add(HttpApiEndpoint.get("versions")`/prompts/${promptId}/versions`.addSuccess(Schema.Array(PromptVersion)))
  .add(
    HttpApiEndpoint.post("createDraft")`/prompts/${promptId}/versions`.setPayload(DraftCreate).addSuccess(
      PromptVersion,
      { status: 201 }
    )
  )
  .add(HttpApiEndpoint.get("version")`/prompts/${promptId}/versions/${promptVersion}`.addSuccess(PromptVersion))
  .add(
    HttpApiEndpoint.put("updateVersion")`/prompts/${promptId}/versions/${promptVersion}`.setPayload(VersionUpdate)
      .addSuccess(PromptVersion)
  )
  .add(HttpApiEndpoint.del("discardDraft")`/prompts/${promptId}/versions/${promptVersion}`.addSuccess(NoContent))
  .add(
    HttpApiEndpoint.get("versionStatistics")`/prompts/${promptId}/versions/${promptVersion}/statistics`.addSuccess(
      VersionStatistics
    )
  )
  .addError(GatewayErrors.BadRequest)
  .addError(GatewayErrors.NotFound)
  .addError(GatewayErrors.Conflict)
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin")
{}

const applicationId = HttpApiSchema.param("id", Schema.String)

/** Application configurations (spec: "Admin: applications, agents, plans"; bodies in docs/gateway-applications.md). */
export class AdminApplicationsGroup extends HttpApiGroup.make("adminApplications")
  .add(HttpApiEndpoint.get("list", "/application-conf").addSuccess(Schema.Array(Application)))
  .add(HttpApiEndpoint.get("get")`/application-conf/${applicationId}`.addSuccess(Application))
  .add(
    HttpApiEndpoint.post("create", "/application-conf").setPayload(ApplicationCreate).addSuccess(Application, {
      status: 201
    })
  )
  .add(
    HttpApiEndpoint.put("update")`/application-conf/${applicationId}`.setPayload(ApplicationUpdate).addSuccess(
      Application
    )
  )
  .add(HttpApiEndpoint.del("remove")`/application-conf/${applicationId}`.addSuccess(NoContent))
  .addError(GatewayErrors.BadRequest)
  .addError(GatewayErrors.NotFound)
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin/application")
{}

const agentId = HttpApiSchema.param("id", Schema.String)

/** Agent configurations, run by AGENT nodes of plans (bodies in docs/gateway-applications.md). */
export class AdminAgentsGroup extends HttpApiGroup.make("adminAgents")
  .add(HttpApiEndpoint.get("list", "/agent-conf").addSuccess(Schema.Array(Agent)))
  .add(HttpApiEndpoint.get("get")`/agent-conf/${agentId}`.addSuccess(Agent))
  .add(HttpApiEndpoint.post("create", "/agent-conf").setPayload(AgentCreate).addSuccess(Agent, { status: 201 }))
  .add(HttpApiEndpoint.put("update")`/agent-conf/${agentId}`.setPayload(AgentUpdate).addSuccess(Agent))
  .add(HttpApiEndpoint.del("remove")`/agent-conf/${agentId}`.addSuccess(NoContent))
  .addError(GatewayErrors.BadRequest)
  .addError(GatewayErrors.NotFound)
  .addError(GatewayErrors.McpServerNotFound)
  .addError(GatewayErrors.Conflict)
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin/agent")
{}

/** The native tools (docs/gateway-tools.md). */
export class AdminToolsGroup extends HttpApiGroup.make("adminTools")
  .add(
    HttpApiEndpoint.get("list", "/tools").addSuccess(Schema.Array(ToolInfo)).annotate(
      OpenApi.Description,
      "The native tools with their names, descriptions and arguments (JSON Schema); `needs` says when a request is offered one."
    )
  )
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin")
{}

const mcpServerId = HttpApiSchema.param("id", Schema.String)

/** MCP server configurations; their tools are `mcp:<id>/<tool>` (docs/gateway-tools.md). */
export class AdminMcpGroup extends HttpApiGroup.make("adminMcp")
  .add(HttpApiEndpoint.get("list", "/mcp-conf").addSuccess(Schema.Array(McpServer)))
  .add(HttpApiEndpoint.get("get")`/mcp-conf/${mcpServerId}`.addSuccess(McpServer))
  .add(HttpApiEndpoint.post("create", "/mcp-conf").setPayload(McpServerInput).addSuccess(McpServer, { status: 201 }))
  .add(HttpApiEndpoint.put("update")`/mcp-conf/${mcpServerId}`.setPayload(McpServerUpdate).addSuccess(McpServer))
  .add(HttpApiEndpoint.del("remove")`/mcp-conf/${mcpServerId}`.addSuccess(NoContent))
  .add(
    HttpApiEndpoint.get("tools")`/mcp-conf/${mcpServerId}/tools`.addSuccess(McpServerTools).annotate(
      OpenApi.Description,
      "Connects to the server now and lists its tools: the connection test. A server that cannot be reached is INTERNAL_ERROR naming why."
    )
  )
  .addError(GatewayErrors.BadRequest)
  .addError(GatewayErrors.McpServerNotFound)
  .addError(GatewayErrors.Conflict)
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin/mcp")
{}

export class AdminTemplatingGroup extends HttpApiGroup.make("adminTemplating")
  .add(HttpApiEndpoint.get("completion", "/templating/completion").addSuccess(TemplatingCompletion))
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin")
{}

/** Prompts as users see them: never a template or an LLM configuration. */
export class PromptsGroup extends HttpApiGroup.make("prompts")
  .add(HttpApiEndpoint.get("available", "/prompts").addSuccess(Schema.Array(AvailablePrompt)))
  .add(HttpApiEndpoint.get("display", "/prompts/display").addSuccess(Schema.Array(PromptDisplay)))
  .middleware(UserAuthentication)
  .prefix("/api/v1")
{}

const conversationId = HttpApiSchema.param("conversation_id", Schema.String)

export class ConversationsGroup extends HttpApiGroup.make("conversations")
  .add(
    HttpApiEndpoint.post("create", "/conversations").setPayload(ConversationCreate).addSuccess(Conversation, {
      status: 201
    })
  )
  .add(
    HttpApiEndpoint.get("list", "/conversations")
      .setUrlParams(ConversationListParams)
      .addSuccess(Page(Conversation))
      .annotate(
        OpenApi.Description,
        "The current user's conversations, most recently active first; page from 0, size 1-100 (default 20), search in titles."
      )
  )
  .add(HttpApiEndpoint.get("get")`/conversations/${conversationId}`.addSuccess(Conversation))
  .add(HttpApiEndpoint.del("remove")`/conversations/${conversationId}`.addSuccess(NoContent))
  .add(
    HttpApiEndpoint.post("stop")`/conversations/${conversationId}/stop`
      .addSuccess(Schema.Struct({ stopped: Schema.Boolean }))
      .annotate(
        OpenApi.Description,
        "Stops the generation in progress: the upstream call is cancelled, the partial answer kept and marked STOPPED. stopped is false when nothing was running."
      )
  )
  .addError(GatewayErrors.NotFound)
  .middleware(UserAuthentication)
  .prefix("/api/v1")
{}

const requestId = HttpApiSchema.param("request_id", Schema.String)

export class RequestsGroup extends HttpApiGroup.make("requests")
  .add(
    HttpApiEndpoint.post("ask", "/requests").setPayload(RequestBody).setUrlParams(RequestQuery).addSuccess(LlmRequest, {
      status: 201
    })
  )
  .add(
    HttpApiEndpoint.post("askStreaming", "/requests/stream")
      .setPayload(RequestBody)
      .setUrlParams(RequestQuery)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }))
      .annotate(
        OpenApi.Description,
        "The answer as server-sent events: start, delta (text as it comes), usage, then done or error; a comment line every 15 s keeps proxies from closing the connection."
      )
  )
  .add(
    HttpApiEndpoint.post("retry", "/requests/retry")
      .setPayload(RetryBody)
      .setUrlParams(RequestQuery)
      .addSuccess(LlmRequest, { status: 201 })
      .annotate(
        OpenApi.Description,
        "Answers the conversation's last question again, as a new request (the earlier answer stays, left out of the history)."
      )
  )
  .add(
    HttpApiEndpoint.post("retryStreaming", "/requests/retry/stream").setPayload(RetryBody).setUrlParams(RequestQuery)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }))
  )
  .add(
    HttpApiEndpoint.get("list", "/requests")
      .setUrlParams(Schema.Struct({ conversation: Schema.String, ...PageParams.fields }))
      .addSuccess(Page(LlmRequest))
  )
  .add(HttpApiEndpoint.get("get")`/requests/${requestId}`.addSuccess(LlmRequest))
  .add(HttpApiEndpoint.del("remove")`/requests/${requestId}`.addSuccess(NoContent))
  .add(
    HttpApiEndpoint.put("feedback")`/requests/${requestId}/feedback/${
      HttpApiSchema.param("feedback", Schema.Literal("GOOD", "BAD"))
    }`.addSuccess(LlmRequest)
  )
  .addError(GatewayErrors.NotFound)
  .addError(GatewayErrors.LlmBadRequest)
  .addError(GatewayErrors.LlmProviderNotFound)
  .addError(GatewayErrors.LlmCapabilityError)
  .addError(GatewayErrors.ToolCyclesExceeded)
  .middleware(UserAuthentication)
  .prefix("/api/v1")
{}

/** The user's real-time channel (docs/gateway-web-components.md): their streamed generations, over a WebSocket. */
export class ChannelsGroup extends HttpApiGroup.make("channels")
  .add(
    HttpApiEndpoint.get("subscribe")`/ws/${HttpApiSchema.param("userId", Schema.String)}`
      .addSuccess(HttpApiSchema.Empty(101))
      .addError(GatewayErrors.Forbidden)
      .annotate(
        OpenApi.Description,
        "A WebSocket (send Upgrade: websocket) on which every event of the user's streamed generations arrives as JSON text, as on POST /requests/stream, with its requestId and conversationId. Only the caller's own userId (403 otherwise); with JWT the token may be the query parameter access_token."
      )
  )
  .middleware(ChannelAuthentication)
{}

/** The chat, quick prompt and admin web components, public like any page's static files (built into web/dist/web-components). */
export class WebComponentsGroup extends HttpApiGroup.make("webComponents")
  .add(
    HttpApiEndpoint.get("asset", "/api/web-components/*")
      .setPath(Schema.Struct({ "*": Schema.String }))
      .setHeaders(Schema.Struct({ "if-none-match": Schema.optional(Schema.String) }))
      .addSuccess(HttpApiSchema.Text({ contentType: "text/javascript" }))
      .addSuccess(HttpApiSchema.Empty(304))
      .addError(GatewayErrors.NotFound)
      .annotate(
        OpenApi.Description,
        "chat/script, chat/style, quick-prompt/script, quick-prompt/style, admin/script, admin/style, and the files the bundles load (shared chunks, source maps), with an ETag."
      )
  )
{}

/** Admin views of the tenant's activity: any user's conversations and requests, and the statistics. */
export class AdminActivityGroup extends HttpApiGroup.make("adminActivity")
  .add(
    HttpApiEndpoint.get("userStatistics", "/users/statistics")
      .setUrlParams(PageParams)
      .addSuccess(Page(UserStatistics))
      .annotate(OpenApi.Description, "Every user of the tenant with their figures, most recently active first.")
  )
  .add(HttpApiEndpoint.get("userDetails", "/users/details").setUrlParams(UserDetailsParams).addSuccess(UserActivity))
  .add(
    HttpApiEndpoint.get("conversations", "/conversations")
      .setUrlParams(Schema.Struct({ ...ConversationListParams.fields, userId: Schema.optional(Schema.String) }))
      .addSuccess(Page(Conversation))
      .annotate(
        OpenApi.Description,
        "All conversations of the tenant (or of userId), most recently active first; search in titles."
      )
  )
  .add(HttpApiEndpoint.get("conversation")`/conversations/${conversationId}`.addSuccess(Conversation))
  .add(HttpApiEndpoint.del("removeConversation")`/conversations/${conversationId}`.addSuccess(NoContent))
  .add(
    HttpApiEndpoint.get("requests", "/requests")
      .setUrlParams(
        Schema.Struct({
          conversation: Schema.optional(Schema.String),
          userId: Schema.optional(Schema.String),
          ...PageParams.fields
        })
      )
      .addSuccess(Page(LlmRequest))
      .annotate(OpenApi.Description, "Requests of the tenant newest first, or of one conversation oldest first.")
  )
  .add(HttpApiEndpoint.get("request")`/requests/${requestId}`.addSuccess(LlmRequest))
  .add(HttpApiEndpoint.del("removeRequest")`/requests/${requestId}`.addSuccess(NoContent))
  .add(HttpApiEndpoint.get("global", "/stats/global").setUrlParams(TimeWindow).addSuccess(GlobalStatistics))
  .add(HttpApiEndpoint.get("timeseries", "/stats/timeseries").setUrlParams(TimeseriesParams).addSuccess(Timeseries))
  .add(
    HttpApiEndpoint.get("llmDistribution", "/stats/llm-distribution").setUrlParams(TimeWindow).addSuccess(
      Schema.Array(ModelUsage)
    )
  )
  .add(
    HttpApiEndpoint.get("featureAdoption", "/stats/feature-adoption").setUrlParams(TimeWindow).addSuccess(
      FeatureAdoption
    )
  )
  .add(
    HttpApiEndpoint.get("topPromptsTimeSaved", "/stats/top-prompts-time-saved").setUrlParams(TopPromptsParams)
      .addSuccess(Schema.Array(PromptTimeSaved))
  )
  .addError(GatewayErrors.NotFound)
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin")
{}

export class GatewayApi extends HttpApi.make("gateway")
  .add(ActuatorGroup)
  .add(UsersGroup)
  .add(AdminLlmGroup)
  .add(AdminPromptsGroup)
  .add(AdminApplicationsGroup)
  .add(AdminAgentsGroup)
  .add(AdminPlansGroup)
  .add(AdminPlanExecutionsGroup)
  .add(AdminToolsGroup)
  .add(AdminMcpGroup)
  .add(AdminScriptsGroup)
  .add(AdminTemplatingGroup)
  .add(PromptsGroup)
  .add(ConversationsGroup)
  .add(RequestsGroup)
  .add(AdminActivityGroup)
  .add(ScriptsGroup)
  .add(TempFilesGroup)
  .add(ChannelsGroup)
  .add(WebComponentsGroup)
  .addError(GatewayErrors.BadRequest)
  .addError(GatewayErrors.InternalError)
  .annotate(OpenApi.Title, "AI gateway")
  .annotate(OpenApi.Version, "2026.2.0")
{}

/** Answers the HTTP layer makes itself (unknown route, unreadable body) in the gateway's error body. */
export const gatewayErrorShape: ErrorShape = {
  body: (status, kind, message) => ({
    code: kind === "notFound"
      ? "RESOURCE_NOT_FOUND"
      : kind === "badRequest" || kind === "decode"
      ? "BAD_REQUEST"
      : status === 405
      ? "NOT_IMPLEMENTED"
      : "INTERNAL_ERROR",
    message,
    status
  }),
  // The spec's body has no more fields: the identifier goes into the message.
  identified: (body, errorId) => ({ ...body, message: `${String(body.message)} (error ${errorId})` })
}
