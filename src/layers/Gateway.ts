/**
 * The AI gateway: its HttpApi with handlers under /api/v1, the actuator, OpenAPI at /v3/api-docs
 * and the explorer at /swagger-ui/index.html, on the process's infrastructure (shared with the broker).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect, Layer } from "effect"
import { ActuatorHttpLive } from "../http/gateway/ActuatorHttp.ts"
import { AdminActivityHttpLive } from "../http/gateway/AdminActivityHttp.ts"
import { AdminLlmHttpLive } from "../http/gateway/AdminLlmHttp.ts"
import { AdminAgentsHttpLive } from "../http/gateway/AgentsHttp.ts"
import { GatewayApi, gatewayErrorShape } from "../http/gateway/Api.ts"
import { AdminApplicationsHttpLive } from "../http/gateway/ApplicationsHttp.ts"
import { AdminAuthenticationLive, documentIdentity, UserAuthenticationLive } from "../http/gateway/Authentication.ts"
import { ChannelAuthenticationLive } from "../http/gateway/ChannelAuthentication.ts"
import { ChannelsHttpLive } from "../http/gateway/ChannelsHttp.ts"
import { ConversationsHttpLive } from "../http/gateway/ConversationsHttp.ts"
import { AdminPlanExecutionsHttpLive } from "../http/gateway/PlanExecutionsHttp.ts"
import { AdminPlansHttpLive } from "../http/gateway/PlansHttp.ts"
import { AdminPromptsHttpLive, AdminTemplatingHttpLive, PromptsHttpLive } from "../http/gateway/PromptsHttp.ts"
import { RequestsHttpLive } from "../http/gateway/RequestsHttp.ts"
import { AdminScriptsHttpLive, ScriptsHttpLive } from "../http/gateway/ScriptsHttp.ts"
import { TempFilesHttpLive } from "../http/gateway/TempFilesHttp.ts"
import { AdminMcpHttpLive, AdminToolsHttpLive } from "../http/gateway/ToolsHttp.ts"
import { UsersHttpLive } from "../http/gateway/UsersHttp.ts"
import { WebComponentsHttpLive } from "../http/gateway/WebComponentsHttp.ts"
import { Actuator, LevelFilterLive } from "../services/gateway/actuator/Actuator.ts"
import { Agents } from "../services/gateway/agents/Agents.ts"
import { Applications } from "../services/gateway/applications/Applications.ts"
import { UserChannels } from "../services/gateway/channels/UserChannels.ts"
import { Conversations } from "../services/gateway/conversations/Conversations.ts"
import { ExecutionRunnerLive } from "../services/gateway/executions/ExecutionRunner.ts"
import { ExecutionStore } from "../services/gateway/executions/ExecutionStore.ts"
import { NodeWork } from "../services/gateway/executions/NodeWork.ts"
import { PlanExecutions } from "../services/gateway/executions/PlanExecutions.ts"
import { ProviderConfigs } from "../services/gateway/llm/ProviderConfigs.ts"
import { Plans } from "../services/gateway/plans/Plans.ts"
import { Prompts } from "../services/gateway/prompts/Prompts.ts"
import { Templates } from "../services/gateway/prompts/Templates.ts"
import { RequestRecorder } from "../services/gateway/records/RequestRecorder.ts"
import { Requests } from "../services/gateway/requests/Requests.ts"
import { Scripts } from "../services/gateway/scripts/Scripts.ts"
import { Statistics } from "../services/gateway/statistics/Statistics.ts"
import { Users } from "../services/gateway/statistics/Users.ts"
import { TempFiles } from "../services/gateway/tempfiles/TempFiles.ts"
import { Tenancy, TenancyConfig } from "../services/gateway/tenancy/Tenancy.ts"
import { McpClients } from "../services/gateway/tools/McpClients.ts"
import { McpServers } from "../services/gateway/tools/McpServers.ts"
import { ToolRegistry } from "../services/gateway/tools/ToolRegistry.ts"
import { WebComponentAssets } from "../services/gateway/webcomponents/WebComponentAssets.ts"
import { listen } from "./Listen.ts"
import { servedApi } from "./ServedApi.ts"

/**
 * The services the gateway's handlers use, on the process's infrastructure (InfrastructureLive:
 * the SQL client, storage settings, the file system). Each brings the services it needs (its
 * `dependencies`), each built once however many need it. The recorder is here too: tests write
 * records through it.
 */
export const GatewayServicesLive = Layer.mergeAll(
  Requests.Default,
  Conversations.Default,
  Statistics.Default,
  Users.Default,
  Prompts.Default,
  Applications.Default,
  Agents.Default,
  Plans.Default,
  PlanExecutions.Default,
  // Plan executions are taken up and driven in the background, on whichever gateway is free.
  ExecutionRunnerLive.pipe(Layer.provide([NodeWork.Default, ExecutionStore.Default])),
  Scripts.Default,
  // Tools keep the files they produce here; expired ones are swept in the background.
  TempFiles.Default,
  // Native tools and the tenant's MCP servers, with their open connections.
  ToolRegistry.Default,
  McpServers.Default,
  McpClients.Default,
  Templates.Default,
  ProviderConfigs.Default,
  Actuator.Default,
  Tenancy.Default,
  RequestRecorder.Default,
  // Streamed generations reach their user's WebSocket channels (Requests publishes into the same instance).
  UserChannels.Default,
  WebComponentAssets.Default,
  UserAuthenticationLive,
  AdminAuthenticationLive,
  ChannelAuthenticationLive
)

// The OpenAPI document says how callers identify themselves, as configured.
const GatewayRoutesLive = Layer.unwrapEffect(
  TenancyConfig.pipe(
    Effect.orDie,
    Effect.map((config) => HttpApiBuilder.api(GatewayApi.annotate(OpenApi.Transform, documentIdentity(config))))
  )
).pipe(
  Layer.provide([
    ActuatorHttpLive,
    UsersHttpLive,
    AdminLlmHttpLive,
    AdminPromptsHttpLive,
    AdminApplicationsHttpLive,
    AdminAgentsHttpLive,
    AdminPlansHttpLive,
    AdminPlanExecutionsHttpLive,
    AdminToolsHttpLive,
    AdminMcpHttpLive,
    AdminScriptsHttpLive,
    AdminTemplatingHttpLive,
    PromptsHttpLive,
    ConversationsHttpLive,
    RequestsHttpLive,
    AdminActivityHttpLive,
    ScriptsHttpLive,
    TempFilesHttpLive,
    ChannelsHttpLive,
    WebComponentsHttpLive
  ])
)

/** The gateway's HTTP application, without server or services (tests serve it on an ephemeral port). */
export const GatewayApp = servedApi({
  api: GatewayApi,
  shape: gatewayErrorShape,
  // Questions carry images as base64.
  bodyLimit: { name: "GATEWAY_MAX_JSON_BODY_BYTES", fallback: 32 * 1024 * 1024 },
  routes: GatewayRoutesLive
}).pipe(Layer.provide(LevelFilterLive))

export const GatewayLive = listen("GATEWAY", 8090, GatewayApp, GatewayServicesLive)
