/**
 * Every migration, in order. A landed migration is never edited: add the next number instead.
 */
import * as Migrator from "@effect/sql/Migrator"
import createDocuments from "./00001_create_documents.ts"
import createOrdersAndExpansions from "./00002_create_orders_and_expansions.ts"
import ordersProcessedBy from "./00003_orders_processed_by.ts"
import documentsRenditionKey from "./00004_documents_rendition_key.ts"
import createGatewayProviders from "./00005_create_gateway_providers.ts"
import createGatewayPrompts from "./00006_create_gateway_prompts.ts"
import createGatewayConversations from "./00007_create_gateway_conversations.ts"
import createGatewayRequests from "./00008_create_gateway_requests.ts"
import requestsReplacedBy from "./00009_requests_replaced_by.ts"
import gatewayStatistics from "./00010_gateway_statistics.ts"
import createAnnotations from "./00011_create_annotations.ts"
import annotationsCreationOrder from "./00012_annotations_creation_order.ts"
import annotationsFollowDocuments from "./00013_annotations_follow_documents.ts"
import ordersQueueOrder from "./00014_orders_queue_order.ts"
import createProviderDocuments from "./00015_create_provider_documents.ts"
import createViewerTables from "./00016_create_viewer_tables.ts"
import createGatewayApplications from "./00017_create_gateway_applications.ts"
import createGatewayAgents from "./00018_create_gateway_agents.ts"
import createGatewayPlans from "./00019_create_gateway_plans.ts"
import createGatewayPlanExecutions from "./00020_create_gateway_plan_executions.ts"
import createGatewayScripts from "./00022_create_gateway_scripts.ts"
import createGatewayTempFiles from "./00023_create_gateway_temp_files.ts"
import gatewayTools from "./00024_gateway_tools.ts"

export const migrations = Migrator.fromRecord({
  "00001_create_documents": createDocuments,
  "00002_create_orders_and_expansions": createOrdersAndExpansions,
  "00003_orders_processed_by": ordersProcessedBy,
  "00004_documents_rendition_key": documentsRenditionKey,
  "00005_create_gateway_providers": createGatewayProviders,
  "00006_create_gateway_prompts": createGatewayPrompts,
  "00007_create_gateway_conversations": createGatewayConversations,
  "00008_create_gateway_requests": createGatewayRequests,
  "00009_requests_replaced_by": requestsReplacedBy,
  "00010_gateway_statistics": gatewayStatistics,
  "00011_create_annotations": createAnnotations,
  "00012_annotations_creation_order": annotationsCreationOrder,
  "00013_annotations_follow_documents": annotationsFollowDocuments,
  "00014_orders_queue_order": ordersQueueOrder,
  "00015_create_provider_documents": createProviderDocuments,
  "00016_create_viewer_tables": createViewerTables,
  "00017_create_gateway_applications": createGatewayApplications,
  "00018_create_gateway_agents": createGatewayAgents,
  "00019_create_gateway_plans": createGatewayPlans,
  "00020_create_gateway_plan_executions": createGatewayPlanExecutions,
  "00022_create_gateway_scripts": createGatewayScripts,
  "00023_create_gateway_temp_files": createGatewayTempFiles,
  "00024_gateway_tools": gatewayTools
})
