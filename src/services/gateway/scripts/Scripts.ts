/**
 * A tenant's scripts, in SQL (spec: "States and transitions: Scripts"): a draft set by PUT, scanned,
 * then published (only when its last scan certified it) or force-published, and the deployed
 * content served to pages. Every transition is one statement whose WHERE holds its condition, so a
 * draft changed while it is scanned or published is never deployed on another draft's scan.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Config, Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { BadRequest, Conflict, NotFound, Unauthorized } from "../../../schemas/gateway/GatewayErrors.ts"
import { Script, type ScriptCreate, ScriptScan, ScriptSummary } from "../../../schemas/gateway/Scripts.ts"
import { failOnUniqueViolation, isoUtc, tenantRecords } from "../../common/sql/Fragments.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"
import { currentTenant } from "../tenancy/CurrentReach.ts"
import { ScriptScanner } from "./ScriptScanner.ts"

export const ScriptsConfig = Config.all({
  /** Largest draft, in bytes of UTF-8: the scan sends it whole to the model. */
  maxBytes: Config.integer("SCRIPT_MAX_BYTES").pipe(Config.withDefault(256 * 1024))
})

const JsonScan = Schema.NullOr(Schema.Union(ScriptScan, Schema.parseJson(ScriptScan)))

class ScriptRow extends Schema.Class<ScriptRow>("ScriptRow")({
  id: Schema.String,
  name: Schema.String,
  draftContent: Schema.NullOr(Schema.String),
  draftRevision: Schema.Number,
  scan: JsonScan,
  deployedContent: Schema.NullOr(Schema.String),
  deployedAt: Schema.NullOr(Schema.String),
  deployedCertified: Schema.NullOr(Schema.Boolean),
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}

const summaryOf = (row: ScriptRow) =>
  new ScriptSummary({
    id: row.id,
    name: row.name,
    hasDraft: row.draftContent !== null,
    scanOutcome: row.scan?.outcome ?? null,
    deployedAt: row.deployedAt,
    deployedCertified: row.deployedCertified,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  })

const scriptOf = (row: ScriptRow) =>
  new Script({
    ...summaryOf(row),
    draftContent: row.draftContent,
    deployedContent: row.deployedContent,
    scan: row.scan
  })

/** The deployed content as pages load it, with its entity tag. */
export interface DeployedScript {
  readonly content: string
  readonly etag: string
}

const notFound = (id: string) => new NotFound({ message: `No script '${id}'` })
const noDraft = (id: string) => new Conflict({ message: `Script '${id}' has no draft: set one with PUT first` })
const nameTaken = (name: string) => new Conflict({ message: `A script named '${name}' already exists` })

export class Scripts extends Effect.Service<Scripts>()("gateway/Scripts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const scanner = yield* ScriptScanner
    const settings = yield* ScriptsConfig
    const columns = sql`id, name, draft_content, draft_revision, scan, deployed_content,
      ${isoUtc(sql, "deployed_at")} AS deployed_at, deployed_certified,
      ${isoUtc(sql, "created_at")} AS created_at, ${isoUtc(sql, "updated_at")} AS updated_at`

    const { all, load } = tenantRecords(sql, {
      table: "scripts",
      columns,
      Row: ScriptRow,
      orderBy: "lower(name)",
      notFound
    })

    /**
     * Runs a conditional write of the script; when it touched no row, says why from the row as it
     * is now: gone (404), or the condition `refusal` names (409).
     */
    const transition = (
      tenantId: string,
      id: string,
      write: Effect.Effect<ReadonlyArray<unknown>, unknown>,
      refusal: (row: ScriptRow) => Conflict
    ) =>
      Effect.gen(function*() {
        const written = yield* Effect.orDie(write)
        const row = yield* load(tenantId, id)
        if (written.length === 0) return yield* refusal(row)
        return scriptOf(row)
      })

    /** Moves the draft to deployed (when `certified`, only a draft its last scan certified); the draft and its scan are then gone. */
    const deploy = (tenantId: string, id: string, certified: boolean) =>
      sql`UPDATE scripts SET deployed_content = draft_content,
            deployed_etag = '"' || encode(sha256(convert_to(draft_content, 'UTF8')), 'hex') || '"',
            deployed_at = now(), deployed_certified = ${certified},
            draft_content = NULL, draft_revision = draft_revision + 1, scan = NULL, updated_at = now()
          WHERE tenant_id = ${tenantId} AND id = ${id} AND draft_content IS NOT NULL
            ${certified ? sql`AND scan ->> 'outcome' = 'CERTIFIED'` : sql``}
          RETURNING id`

    return {
      list: Effect.fn("Scripts.list")(function*() {
        return (yield* all(yield* currentTenant)).map(summaryOf)
      }),

      get: Effect.fn("Scripts.get")(function*(id: string) {
        return scriptOf(yield* load(yield* currentTenant, id))
      }),

      create: Effect.fn("Scripts.create")(function*(input: ScriptCreate) {
        const tenantId = yield* currentTenant
        const id = randomUUID()
        const clash = yield* sql`SELECT id FROM scripts
          WHERE tenant_id = ${tenantId} AND lower(name) = lower(${input.name})`.pipe(Effect.orDie)
        if (clash.length > 0) return yield* nameTaken(input.name)
        yield* sql`INSERT INTO scripts ${sql.insert({ tenantId, id, name: input.name })}`.pipe(
          failOnUniqueViolation(() => nameTaken(input.name))
        )
        return scriptOf(yield* load(tenantId, id))
      }),

      /** A new draft; the last scan was of another one, so it is cleared. */
      setDraft: Effect.fn("Scripts.setDraft")(function*(id: string, content: string) {
        const tenantId = yield* currentTenant
        const bytes = Buffer.byteLength(content, "utf8")
        if (bytes > settings.maxBytes) {
          return yield* new BadRequest({
            message: `The draft has ${bytes} bytes; scripts may have ${settings.maxBytes} (SCRIPT_MAX_BYTES)`
          })
        }
        const written = yield* sql`UPDATE scripts SET draft_content = ${content}, draft_revision = draft_revision + 1,
            scan = NULL, updated_at = now()
          WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING id`.pipe(Effect.orDie)
        if (written.length === 0) return yield* notFound(id)
        return scriptOf(yield* load(tenantId, id))
      }),

      /**
       * Scans the draft and keeps the outcome with it. No transaction is held while the model thinks;
       * the outcome is written only if the draft is still the one scanned (409 otherwise).
       */
      scan: Effect.fn("Scripts.scan")(function*(id: string) {
        const tenantId = yield* currentTenant
        const row = yield* load(tenantId, id)
        if (row.draftContent === null) return yield* noDraft(id)
        const scan = yield* scanner.scan(row.draftContent)
        return yield* transition(
          tenantId,
          id,
          sql`UPDATE scripts SET scan = ${sqlJson(scan)}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND draft_revision = ${row.draftRevision} RETURNING id`,
          () =>
            new Conflict({
              message: `The draft of script '${id}' changed while it was scanned: this outcome is not kept; scan again`
            })
        )
      }),

      /** Deploys the draft its last scan certified (409 without a draft, or when not certified). */
      publish: Effect.fn("Scripts.publish")(function*(id: string) {
        const tenantId = yield* currentTenant
        return yield* transition(tenantId, id, deploy(tenantId, id, true), (row) =>
          row.draftContent === null
            ? noDraft(id)
            : new Conflict({
              message: row.scan === null
                ? `The draft of script '${id}' is not certified: scan it first (or force-publish it)`
                : `The draft of script '${id}' is not certified: its scan was ${row.scan.outcome}`
            }))
      }),

      /** Deploys the draft without a scan (409 without a draft); the script then says it was not certified. */
      forcePublish: Effect.fn("Scripts.forcePublish")(function*(id: string) {
        const tenantId = yield* currentTenant
        return yield* transition(tenantId, id, deploy(tenantId, id, false), () => noDraft(id))
      }),

      /** Drops the draft and its scan (409 without one); the deployed content stays. */
      discardDraft: Effect.fn("Scripts.discardDraft")(function*(id: string) {
        const tenantId = yield* currentTenant
        yield* transition(
          tenantId,
          id,
          sql`UPDATE scripts SET draft_content = NULL, draft_revision = draft_revision + 1, scan = NULL,
              updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND draft_content IS NOT NULL RETURNING id`,
          () => noDraft(id)
        )
      }),

      remove: Effect.fn("Scripts.remove")(function*(id: string) {
        const tenantId = yield* currentTenant
        const deleted = yield* sql`DELETE FROM scripts WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING id`.pipe(
          Effect.orDie
        )
        if (deleted.length === 0) return yield* notFound(id)
      }),

      /** What pages load: 404 for a script the tenant does not have, 401 for one never deployed. */
      deployed: Effect.fn("Scripts.deployed")(function*(id: string) {
        const tenantId = yield* currentTenant
        const rows = yield* sql<{ deployedContent: string | null; deployedEtag: string | null }>`
          SELECT deployed_content, deployed_etag FROM scripts WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
          Effect.orDie
        )
        const row = rows[0]
        if (row === undefined) return yield* notFound(id)
        if (row.deployedContent === null || row.deployedEtag === null) {
          return yield* new Unauthorized({ message: `Script '${id}' has never been deployed` })
        }
        return { content: row.deployedContent, etag: row.deployedEtag } satisfies DeployedScript
      }),

      /** The draft for a preview; 404 when there is none. */
      draft: Effect.fn("Scripts.draft")(function*(id: string) {
        const row = yield* load(yield* currentTenant, id)
        if (row.draftContent === null) return yield* new NotFound({ message: `Script '${id}' has no draft` })
        return row.draftContent
      })
    }
  }),
  dependencies: [ScriptScanner.Default]
}) {}
