/**
 * The gateway's orchestration contract (spec: gateway-api.md), part of GatewayApi: plans, their
 * durable executions, scripts and the temp files agent runs produce. Contract only: no service here.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { GatewayErrors } from "../../schemas/gateway/GatewayErrors.ts"
import { PlanExecution, PlanExecutionSummary, RunPlan } from "../../schemas/gateway/PlanExecutions.ts"
import { Plan, PlanCreate, PlanUpdate } from "../../schemas/gateway/Plans.ts"
import { Script, ScriptCreate, ScriptDraftUpdate, ScriptSummary } from "../../schemas/gateway/Scripts.ts"
import { AdminAuthentication, UserAuthentication } from "./Authentication.ts"

const NoContent = HttpApiSchema.Empty(204)

const planId = HttpApiSchema.param("id", Schema.String)

/** Plan definitions, checked whole on every write (the model: docs/gateway-plans.md). */
export class AdminPlansGroup extends HttpApiGroup.make("adminPlans")
  .add(HttpApiEndpoint.get("list", "/plans").addSuccess(Schema.Array(Plan)))
  .add(HttpApiEndpoint.get("get")`/plans/${planId}`.addSuccess(Plan))
  .add(HttpApiEndpoint.post("create", "/plans").setPayload(PlanCreate).addSuccess(Plan, { status: 201 }))
  .add(HttpApiEndpoint.put("update")`/plans/${planId}`.setPayload(PlanUpdate).addSuccess(Plan))
  .add(HttpApiEndpoint.del("remove")`/plans/${planId}`.addSuccess(NoContent))
  .addError(GatewayErrors.BadRequest)
  .addError(GatewayErrors.NotFound)
  .addError(GatewayErrors.Conflict)
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin")
{}

const executionId = HttpApiSchema.param("id", Schema.String)

/** Runs of plans, durable: pausable, resumable, taken over by another gateway when theirs dies (docs/gateway-plan-executions.md). */
export class AdminPlanExecutionsGroup extends HttpApiGroup.make("adminPlanExecutions")
  .add(
    HttpApiEndpoint.get("list", "/plan-executions").addSuccess(Schema.Array(PlanExecutionSummary)).annotate(
      OpenApi.Description,
      "Main executions, newest first; nested ones are listed in their parent's children."
    )
  )
  .add(
    HttpApiEndpoint.get("get")`/plan-executions/${executionId}`.addSuccess(PlanExecution).annotate(
      OpenApi.Description,
      "One execution (main or nested) with every node's state; poll for progress."
    )
  )
  .add(
    HttpApiEndpoint.post("run", "/plan-executions/run").setPayload(RunPlan).addSuccess(PlanExecution, { status: 202 })
      .annotate(OpenApi.Description, "Creates the execution RUNNING and starts it; 404 when the plan does not exist.")
  )
  .add(
    HttpApiEndpoint.post("pause")`/plan-executions/${executionId}/pause`.addSuccess(PlanExecution).annotate(
      OpenApi.Description,
      "PAUSED at once: running nodes finish (their outputs kept), none starts; 409 unless RUNNING."
    )
  )
  .add(
    HttpApiEndpoint.post("resume")`/plan-executions/${executionId}/resume`.addSuccess(PlanExecution).annotate(
      OpenApi.Description,
      "RUNNING again from the persisted state: finished nodes never run again; 409 unless PAUSED."
    )
  )
  .add(
    HttpApiEndpoint.post("stop")`/plan-executions/${executionId}/stop`.addSuccess(PlanExecution).annotate(
      OpenApi.Description,
      "CANCELLED, with its nested executions; running nodes are interrupted, the finished ones kept; 409 once ended."
    )
  )
  .add(
    HttpApiEndpoint.del("remove")`/plan-executions/${executionId}`.addSuccess(NoContent).annotate(
      OpenApi.Description,
      "Deletes the execution and its nested ones, stopping them if they run."
    )
  )
  .addError(GatewayErrors.NotFound)
  .addError(GatewayErrors.Conflict)
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin")
{}

const scriptId = HttpApiSchema.param("id", Schema.String)

/** Scripts: a draft, its scan, publishing (states and choices in docs/gateway-scripts.md). */
export class AdminScriptsGroup extends HttpApiGroup.make("adminScripts")
  .add(HttpApiEndpoint.get("list", "/scripts").addSuccess(Schema.Array(ScriptSummary)))
  .add(HttpApiEndpoint.get("get")`/scripts/${scriptId}`.addSuccess(Script))
  .add(
    HttpApiEndpoint.post("create", "/scripts").setPayload(ScriptCreate).addSuccess(Script, { status: 201 }).annotate(
      OpenApi.Description,
      "Creates a script with its name only: no draft, never deployed; 409 when the tenant has the name (whatever its case)."
    )
  )
  .add(
    HttpApiEndpoint.put("update")`/scripts/${scriptId}`.setPayload(ScriptDraftUpdate).addSuccess(Script).annotate(
      OpenApi.Description,
      "Sets the draft; the last scan (of the earlier draft) is cleared."
    )
  )
  .add(
    HttpApiEndpoint.post("scan")`/scripts/${scriptId}/scan`
      .addSuccess(Script)
      .addError(GatewayErrors.ScanConfigurationError)
      .annotate(
        OpenApi.Description,
        "Scans the draft (static pre-screen, then the model of SCRIPT_SCAN_PROVIDER) and keeps the outcome with it: CERTIFIED, REJECTED or INCONCLUSIVE; 409 without a draft, 422 when no model is configured."
      )
  )
  .add(
    HttpApiEndpoint.post("publish")`/scripts/${scriptId}/publish`.addSuccess(Script).annotate(
      OpenApi.Description,
      "Deploys the draft its last scan certified; the draft is then gone. 409 without a draft or when it is not certified."
    )
  )
  .add(
    HttpApiEndpoint.post("forcePublish")`/scripts/${scriptId}/force-publish`.addSuccess(Script).annotate(
      OpenApi.Description,
      "Deploys the draft without a scan (deployedCertified false); 409 without a draft."
    )
  )
  .add(HttpApiEndpoint.del("discardDraft")`/scripts/${scriptId}/draft`.addSuccess(NoContent))
  .add(HttpApiEndpoint.del("remove")`/scripts/${scriptId}`.addSuccess(NoContent))
  .addError(GatewayErrors.BadRequest)
  .addError(GatewayErrors.NotFound)
  .addError(GatewayErrors.Conflict)
  .middleware(AdminAuthentication)
  .prefix("/api/v1/admin")
{}

const JavaScript = HttpApiSchema.Text({ contentType: "application/javascript" })

/** Scripts as pages load them. */
export class ScriptsGroup extends HttpApiGroup.make("scripts")
  .add(
    HttpApiEndpoint.get("deployed")`/scripts/${scriptId}`
      .setHeaders(Schema.Struct({ "if-none-match": Schema.optional(Schema.String) }))
      .addSuccess(JavaScript)
      .addSuccess(HttpApiSchema.Empty(304))
      .addError(GatewayErrors.Unauthorized)
      .annotate(
        OpenApi.Description,
        "The deployed content with its ETag, revalidated on every use (Cache-Control: no-cache); 304 when If-None-Match names it, 401 while never deployed."
      )
  )
  .add(
    HttpApiEndpoint.get("draft")`/scripts/${scriptId}/draft`.addSuccess(JavaScript).annotate(
      OpenApi.Description,
      "The draft, for a preview (never cached); 404 when there is none."
    )
  )
  .addError(GatewayErrors.NotFound)
  .middleware(UserAuthentication)
  .prefix("/api/v1")
{}

/** Files tools and agent runs produce, for their tenant, until they expire (docs/gateway-temp-files.md). */
export class TempFilesGroup extends HttpApiGroup.make("tempFiles")
  .add(
    HttpApiEndpoint.get("download")`/temp-files/${HttpApiSchema.param("fileKey", Schema.String)}`
      .addSuccess(HttpApiSchema.Uint8Array())
      .addError(GatewayErrors.FileNotFound)
      .annotate(
        OpenApi.Description,
        "The file's bytes with the type it was stored with; 404 when the key is unknown, another tenant's or expired."
      )
  )
  .middleware(UserAuthentication)
{}
