/**
 * Scripts (spec: "States and transitions: Scripts", "Admin: tools, scripts, MCP servers"): JavaScript
 * a tenant's pages load from the gateway, with a draft that is scanned before it is published. The
 * spec names the name, the draft content and the deployed content; the other fields and the scan's
 * outcome are this gateway's choices (docs/gateway-scripts.md).
 */
import { Schema } from "effect"
import { ConfigurationName } from "./Applications.ts"

/** Body of POST /admin/scripts: the name only; unique in the tenant whatever its case (409 otherwise). */
export class ScriptCreate extends Schema.Class<ScriptCreate>("ScriptCreate")({
  name: ConfigurationName
}) {}

/** Body of PUT /admin/scripts/{id}: the new draft (its size is bounded by SCRIPT_MAX_BYTES). */
export class ScriptDraftUpdate extends Schema.Class<ScriptDraftUpdate>("ScriptDraftUpdate")({
  draftContent: Schema.String
}) {}

/**
 * What a scan decided about the draft it read. Only CERTIFIED lets the draft be published;
 * INCONCLUSIVE is a scan that could not decide (the model refused, failed, or answered no verdict).
 */
export const ScanOutcome = Schema.Literal("CERTIFIED", "REJECTED", "INCONCLUSIVE")
export type ScanOutcome = typeof ScanOutcome.Type

/** The last scan of the current draft; a new draft clears it. */
export class ScriptScan extends Schema.Class<ScriptScan>("ScriptScan")({
  outcome: ScanOutcome,
  /** Who decided: the static pre-screen (the model was not asked) or the model. */
  decidedBy: Schema.Literal("pre-screen", "llm"),
  /** Why, one finding a line: the pre-screen's rules broken, the model's reasons, or why it could not decide. */
  reasons: Schema.Array(Schema.String),
  /** The provider configuration and model asked; null when the pre-screen decided. */
  providerId: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  /** The model's answer as it came, for an admin reading why; null when there was none. */
  answer: Schema.NullOr(Schema.String),
  scannedAt: Schema.String
}) {}

/** A script in the list: its state without its contents. */
export class ScriptSummary extends Schema.Class<ScriptSummary>("ScriptSummary")({
  id: Schema.String,
  name: Schema.String,
  hasDraft: Schema.Boolean,
  /** The outcome of the current draft's last scan; null when it was never scanned (or there is no draft). */
  scanOutcome: Schema.NullOr(ScanOutcome),
  /** When the deployed content was published; null while never deployed (GET /scripts/{id} is 401). */
  deployedAt: Schema.NullOr(Schema.String),
  /** Whether the deployed content passed a scan (false: force-published); null while never deployed. */
  deployedCertified: Schema.NullOr(Schema.Boolean),
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}

/** One script with its contents and its draft's last scan. */
export class Script extends ScriptSummary.extend<Script>("Script")({
  draftContent: Schema.NullOr(Schema.String),
  deployedContent: Schema.NullOr(Schema.String),
  scan: Schema.NullOr(ScriptScan)
}) {}
