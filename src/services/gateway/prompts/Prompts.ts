/**
 * A tenant's prompts and their versions, in SQL (spec: "Prompt aggregate", "Prompt versions").
 * Every statement is scoped to the tenant. A prompt always has exactly one published version (v0
 * is created published) and at most one draft; published and archived versions are read-only.
 * Version writes lock the prompt's row, so two drafts or two publications cannot race.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { Conflict, NotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import {
  ApplicationRef,
  AvailablePrompt,
  type DraftCreate,
  Prompt,
  type PromptCreate,
  PromptDisplay,
  PromptLlm,
  PromptStatistics,
  PromptSummary,
  PromptUsage,
  PromptVersion,
  QuickPrompt,
  RenderedPrompt,
  VersionState,
  VersionStatistics,
  type VersionUpdate
} from "../../../schemas/gateway/Prompts.ts"
import { CurrentPrincipal } from "../../../schemas/gateway/Tenancy.ts"
import { isoUtc } from "../../common/sql/Fragments.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"
import { RequestRecorder } from "../records/RequestRecorder.ts"
import { currentTenant } from "../tenancy/CurrentReach.ts"
import { Templates } from "./Templates.ts"

const JsonObject = Schema.Union(
  Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
)

class PromptRow extends Schema.Class<PromptRow>("PromptRow")({
  id: Schema.String,
  base: Schema.Boolean,
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}

class VersionRow extends Schema.Class<VersionRow>("VersionRow")({
  promptId: Schema.String,
  version: Schema.Number,
  state: VersionState,
  template: Schema.String,
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  quickPrompt: Schema.NullOr(JsonObject),
  llm: JsonObject,
  timeSavedSeconds: Schema.NullOr(Schema.Number),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  publishedAt: Schema.NullOr(Schema.String)
}) {}

class UsageRow extends Schema.Class<UsageRow>("UsageRow")({
  version: Schema.Number,
  uses: Schema.Union(Schema.Number, Schema.NumberFromString),
  lastUsedAt: Schema.NullOr(Schema.String)
}) {}

const decodeLlm = Schema.decodeUnknownSync(PromptLlm)
const decodeQuickPrompt = Schema.decodeUnknownSync(QuickPrompt)

const versionOf = (row: VersionRow) =>
  new PromptVersion({
    version: row.version,
    draft: row.state === "draft",
    state: row.state,
    template: row.template,
    name: row.name,
    description: row.description,
    category: row.category,
    quickPrompt: row.quickPrompt === null ? null : decodeQuickPrompt(row.quickPrompt),
    llm: decodeLlm(row.llm),
    timeSavedSeconds: row.timeSavedSeconds,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    publishedAt: row.publishedAt
  })

/** The versioned content of a version row, as the columns to write. */
interface Content {
  readonly template: string
  readonly name: string | null
  readonly description: string | null
  readonly category: string | null
  readonly quickPrompt: QuickPrompt | null
  readonly llm: PromptLlm
  readonly timeSavedSeconds: number | null
}

const contentOf = (version: PromptVersion): Content => ({
  template: version.template,
  name: version.name,
  description: version.description,
  category: version.category,
  quickPrompt: version.quickPrompt,
  llm: version.llm,
  timeSavedSeconds: version.timeSavedSeconds
})

/** The content given in a body over `base`: an omitted field is kept, `null` clears it. */
const merge = (base: Content, input: DraftCreate | VersionUpdate | PromptCreate): Content => ({
  template: input.template ?? base.template,
  name: input.name === undefined ? base.name : input.name,
  description: input.description === undefined ? base.description : input.description,
  category: input.category === undefined ? base.category : input.category,
  quickPrompt: input.quickPrompt === undefined ? base.quickPrompt : input.quickPrompt,
  llm: input.llm === undefined ? base.llm : input.llm ?? new PromptLlm({}),
  timeSavedSeconds: input.timeSavedSeconds === undefined ? base.timeSavedSeconds : input.timeSavedSeconds
})

const columns = (content: Content) => ({
  template: content.template,
  name: content.name,
  description: content.description,
  category: content.category,
  quickPrompt: content.quickPrompt === null ? null : sqlJson(content.quickPrompt),
  llm: sqlJson(content.llm),
  timeSavedSeconds: content.timeSavedSeconds
})

const notFound = (id: string) => new NotFound({ message: `No prompt '${id}'` })
const versionNotFound = (id: string, version: number) =>
  new NotFound({ message: `Prompt '${id}' has no version ${version}` })
const notTheDraft = (id: string, version: PromptVersion, action: string) =>
  new Conflict({
    message:
      `Cannot ${action} version ${version.version} of prompt '${id}': it is ${version.state}, only the draft can be changed`
  })

export class Prompts extends Effect.Service<Prompts>()("gateway/Prompts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const templates = yield* Templates
    const recorder = yield* RequestRecorder
    const iso = (column: string) => isoUtc(sql, column)
    const promptColumns = sql`id, base, ${iso("created_at")} AS created_at, ${iso("updated_at")} AS updated_at`
    const versionColumns =
      sql`prompt_id, version, state, template, name, description, category, quick_prompt, llm, time_saved_seconds,
      ${iso("created_at")} AS created_at, ${iso("updated_at")} AS updated_at,
      CASE WHEN published_at IS NULL THEN NULL ELSE ${iso("published_at")} END AS published_at`

    const findPrompt = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.String, lock: Schema.Boolean }),
      Result: PromptRow,
      execute: ({ id, lock, tenantId }) =>
        sql`SELECT ${promptColumns} FROM prompts WHERE tenant_id = ${tenantId} AND id = ${id} ${
          lock ? sql.literal("FOR UPDATE") : sql.literal("")
        }`
    })
    const listPrompts = SqlSchema.findAll({
      Request: Schema.String,
      Result: PromptRow,
      execute: (tenantId) => sql`SELECT ${promptColumns} FROM prompts WHERE tenant_id = ${tenantId} ORDER BY id`
    })
    const findVersions = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.optional(Schema.String) }),
      Result: VersionRow,
      execute: ({ id, tenantId }) =>
        id === undefined
          ? sql`SELECT ${versionColumns} FROM prompt_versions WHERE tenant_id = ${tenantId} ORDER BY prompt_id, version`
          : sql`SELECT ${versionColumns} FROM prompt_versions WHERE tenant_id = ${tenantId} AND prompt_id = ${id} ORDER BY version`
    })
    const findUsage = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.String }),
      Result: UsageRow,
      execute: ({ id, tenantId }) =>
        sql`SELECT version, uses, CASE WHEN last_used_at IS NULL THEN NULL ELSE ${
          iso("last_used_at")
        } END AS last_used_at
            FROM prompt_usage WHERE tenant_id = ${tenantId} AND prompt_id = ${id} ORDER BY version`
    })

    /** The prompt's row (locked for the transaction when `lock`) and its versions, or NOT_FOUND. */
    const load = (tenantId: string, id: string, lock = false) =>
      Effect.gen(function*() {
        const row = yield* findPrompt({ tenantId, id, lock }).pipe(Effect.orDie)
        if (Option.isNone(row)) return yield* notFound(id)
        const versions = (yield* findVersions({ tenantId, id }).pipe(Effect.orDie)).map(versionOf)
        return { row: row.value, versions }
      })

    const active = (id: string, versions: ReadonlyArray<PromptVersion>) => {
      const published = versions.find((v) => v.state === "published")
      // Cannot happen: v0 is created published and publishing replaces the published version.
      if (published === undefined) throw new Error(`Prompt '${id}' has no published version`)
      return published
    }

    const summaryFields = (row: PromptRow, versions: ReadonlyArray<PromptVersion>) => {
      const current = active(row.id, versions)
      return {
        id: row.id,
        base: row.base,
        name: current.name,
        description: current.description,
        category: current.category,
        quickPrompt: current.quickPrompt,
        activeVersion: current.version,
        draftVersion: versions.find((v) => v.draft)?.version ?? null,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt
      }
    }

    /** Every prompt of the tenant with its versions (one query each). */
    const loadAll = (tenantId: string) =>
      Effect.gen(function*() {
        const rows = yield* listPrompts(tenantId).pipe(Effect.orDie)
        const versions = yield* findVersions({ tenantId }).pipe(Effect.orDie)
        return rows.map((row) => ({ row, versions: versions.filter((v) => v.promptId === row.id).map(versionOf) }))
      })

    const aggregate = (tenantId: string, id: string) =>
      load(tenantId, id).pipe(
        Effect.map(({ row, versions }) => new Prompt({ ...summaryFields(row, versions), versions }))
      )

    const pick = (id: string, versions: ReadonlyArray<PromptVersion>, version: number | undefined) => {
      if (version === undefined) return Effect.succeed(active(id, versions))
      const found = versions.find((v) => v.version === version)
      return found === undefined ? Effect.fail(versionNotFound(id, version)) : Effect.succeed(found)
    }

    const touch = (tenantId: string, id: string) =>
      sql`UPDATE prompts SET updated_at = now() WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(Effect.orDie)

    const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))

    /**
     * The Applications that reference the prompt: the one place that decides, for DELETE and for
     * GET /usage. Read here from the applications' tables rather than through their service, which
     * stands on this one (it checks that the prompts it lists exist).
     */
    const referencingApplications = (
      tenantId: string,
      promptId: string
    ): Effect.Effect<ReadonlyArray<ApplicationRef>> =>
      sql<{ id: string; name: string }>`SELECT a.id, a.name FROM application_prompts p
        JOIN applications a ON a.tenant_id = p.tenant_id AND a.id = p.application_id
        WHERE p.tenant_id = ${tenantId} AND p.prompt_id = ${promptId} ORDER BY lower(a.name)`.pipe(
        Effect.map((rows) => rows.map((row) => new ApplicationRef({ id: row.id, name: row.name }))),
        Effect.orDie
      )

    const usageOf = (tenantId: string, id: string) =>
      Effect.gen(function*() {
        const { row } = yield* load(tenantId, id)
        const applications = yield* referencingApplications(tenantId, id)
        const reasons = [
          ...(row.base ? ["It is a base prompt"] : []),
          ...applications.map((application) =>
            `It is referenced by the Application '${application.name}' (${application.id})`
          )
        ]
        return new PromptUsage({ promptId: id, deletable: reasons.length === 0, reasons, applications })
      })

    /** The active version, or `version`, rendered for the current principal (who the template sees as user and tenant). */
    const renderVersion = (id: string, version: number | undefined, variables: Readonly<Record<string, unknown>>) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const { versions } = yield* load(principal.tenantId, id)
        const chosen = yield* pick(id, versions, version)
        const text = yield* templates.render(chosen.template, variables, principal)
        return { text, version: chosen.version, llm: chosen.llm }
      })

    const versionStatistics = (
      id: string,
      versions: ReadonlyArray<PromptVersion>,
      usageRows: ReadonlyArray<UsageRow>
    ) =>
      versions.map((v) => {
        const used = usageRows.find((u) => u.version === v.version)
        return new VersionStatistics({
          promptId: id,
          version: v.version,
          uses: used?.uses ?? 0,
          lastUsedAt: used?.lastUsedAt ?? null
        })
      })

    /** The active version of each of the tenant's prompts, by prompt. */
    const activeVersions = (tenantId: string) =>
      loadAll(tenantId).pipe(
        Effect.map((all) => all.map(({ row, versions }) => ({ row, current: active(row.id, versions) })))
      )

    // Every prompt read or written is one of the current principal's tenant.
    return {
      list: Effect.fn("Prompts.list")(function*() {
        const all = yield* loadAll(yield* currentTenant)
        return all.map(({ row, versions }) => new PromptSummary(summaryFields(row, versions)))
      }),

      get: Effect.fn("Prompts.get")(function*(id: string) {
        return yield* aggregate(yield* currentTenant, id)
      }),

      create: Effect.fn("Prompts.create")(function*(input: PromptCreate) {
        const tenantId = yield* currentTenant
        yield* templates.check(input.template)
        yield* inTransaction(Effect.gen(function*() {
          if (Option.isSome(yield* findPrompt({ tenantId, id: input.id, lock: true }).pipe(Effect.orDie))) {
            return yield* new Conflict({ message: `A prompt '${input.id}' already exists` })
          }
          yield* sql`INSERT INTO prompts ${sql.insert({ tenantId, id: input.id, base: input.base ?? false })}`.pipe(
            Effect.orDie
          )
          const content = merge({
            template: input.template,
            name: null,
            description: null,
            category: null,
            quickPrompt: null,
            llm: new PromptLlm({}),
            timeSavedSeconds: null
          }, input)
          yield* sql`INSERT INTO prompt_versions ${
            sql.insert({ tenantId, promptId: input.id, version: 0, state: "published", ...columns(content) })
          }`.pipe(
            Effect.zipRight(
              sql`UPDATE prompt_versions SET published_at = created_at WHERE tenant_id = ${tenantId} AND prompt_id = ${input.id}`
            ),
            Effect.orDie
          )
        }))
        return yield* aggregate(tenantId, input.id)
      }),

      versions: Effect.fn("Prompts.versions")(function*(id: string) {
        return (yield* load(yield* currentTenant, id)).versions
      }),

      version: Effect.fn("Prompts.version")(function*(id: string, version: number) {
        const { versions } = yield* load(yield* currentTenant, id)
        return yield* pick(id, versions, version)
      }),

      createDraft: Effect.fn("Prompts.createDraft")(function*(id: string, input: DraftCreate) {
        const tenantId = yield* currentTenant
        if (input.template !== undefined) yield* templates.check(input.template)
        const number = yield* inTransaction(Effect.gen(function*() {
          const { versions } = yield* load(tenantId, id, true)
          const draft = versions.find((v) => v.draft)
          if (draft) {
            return yield* new Conflict({
              message:
                `Prompt '${id}' already has a draft (version ${draft.version}): edit, publish or discard it first`
            })
          }
          const next = Math.max(...versions.map((v) => v.version)) + 1
          const content = merge(contentOf(active(id, versions)), input)
          yield* sql`INSERT INTO prompt_versions ${
            sql.insert({ tenantId, promptId: id, version: next, state: "draft", ...columns(content) })
          }`.pipe(Effect.orDie)
          yield* touch(tenantId, id)
          return next
        }))
        return yield* load(tenantId, id).pipe(Effect.flatMap(({ versions }) => pick(id, versions, number)))
      }),

      updateVersion: Effect.fn("Prompts.updateVersion")(function*(id: string, version: number, input: VersionUpdate) {
        const tenantId = yield* currentTenant
        if (input.template !== undefined) yield* templates.check(input.template)
        yield* inTransaction(Effect.gen(function*() {
          const { versions } = yield* load(tenantId, id, true)
          const target = yield* pick(id, versions, version)
          if (!target.draft) return yield* notTheDraft(id, target, input.draft ? "edit" : "publish")
          const content = merge(contentOf(target), input)
          yield* sql`UPDATE prompt_versions SET ${sql.update(columns(content))}, updated_at = now()
                     WHERE tenant_id = ${tenantId} AND prompt_id = ${id} AND version = ${version}`.pipe(Effect.orDie)
          if (!input.draft) {
            // The published version first, so that one version at most is ever published.
            yield* sql`UPDATE prompt_versions SET state = 'archived', updated_at = now()
                       WHERE tenant_id = ${tenantId} AND prompt_id = ${id} AND state = 'published'`.pipe(Effect.orDie)
            yield* sql`UPDATE prompt_versions SET state = 'published', published_at = now(), updated_at = now()
                       WHERE tenant_id = ${tenantId} AND prompt_id = ${id} AND version = ${version}`.pipe(Effect.orDie)
          }
          yield* touch(tenantId, id)
        }))
        return yield* load(tenantId, id).pipe(Effect.flatMap(({ versions }) => pick(id, versions, version)))
      }),

      discardDraft: Effect.fn("Prompts.discardDraft")(function*(id: string, version: number) {
        const tenantId = yield* currentTenant
        // A pending use of the draft must not outlive it.
        yield* recorder.settled
        yield* inTransaction(Effect.gen(function*() {
          const { versions } = yield* load(tenantId, id, true)
          const target = yield* pick(id, versions, version)
          if (!target.draft) return yield* notTheDraft(id, target, "discard")
          yield* sql`DELETE FROM prompt_versions WHERE tenant_id = ${tenantId} AND prompt_id = ${id} AND version = ${version}`
            .pipe(Effect.orDie)
          // The number will be given to the next draft: its uses must not be counted for it.
          yield* sql`DELETE FROM prompt_usage WHERE tenant_id = ${tenantId} AND prompt_id = ${id} AND version = ${version}`
            .pipe(Effect.orDie)
          yield* touch(tenantId, id)
        }))
      }),

      remove: Effect.fn("Prompts.remove")(function*(id: string) {
        const tenantId = yield* currentTenant
        // A pending use of the prompt must not outlive it (nor be counted for a new prompt of its name).
        yield* recorder.settled
        const verdict = yield* usageOf(tenantId, id)
        if (!verdict.deletable) {
          return yield* new Conflict({ message: `Prompt '${id}' cannot be deleted: ${verdict.reasons.join("; ")}` })
        }
        yield* sql`DELETE FROM prompts WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(Effect.orDie)
      }),

      usage: Effect.fn("Prompts.usage")(function*(id: string) {
        return yield* usageOf(yield* currentTenant, id)
      }),

      categories: Effect.fn("Prompts.categories")(function*() {
        const tenantId = yield* currentTenant
        const rows = yield* sql<{ category: string }>`SELECT DISTINCT category FROM prompt_versions
          WHERE tenant_id = ${tenantId} AND state = 'published' AND category IS NOT NULL AND category <> '' ORDER BY category`
          .pipe(Effect.orDie)
        return rows.map((row) => row.category)
      }),

      /** GET /admin/prompts/{id}/render: the active version, or `version`. */
      render: Effect.fn("Prompts.render")(
        function*(id: string, version: number | undefined, variables: Readonly<Record<string, unknown>>) {
          const rendered = yield* renderVersion(id, version, variables)
          return new RenderedPrompt({ promptId: id, version: rendered.version, text: rendered.text })
        }
      ),

      /**
       * For the request pipeline: a `prompt` content item rendered with its payload, and the LLM
       * settings of the version used. An unknown prompt or version is NOT_FOUND; a template that
       * fails is BAD_REQUEST.
       */
      renderForRequest: Effect.fn("Prompts.renderForRequest")(renderVersion),

      /** Uses of the prompt, per version and in all. */
      statistics: Effect.fn("Prompts.statistics")(function*(id: string) {
        const tenantId = yield* currentTenant
        // Uses are recorded behind the requests (RequestRecorder): this process's pending ones count too.
        yield* recorder.settled
        const { versions } = yield* load(tenantId, id)
        const perVersion = versionStatistics(id, versions, yield* findUsage({ tenantId, id }).pipe(Effect.orDie))
        const lastUsed = perVersion.map((v) => v.lastUsedAt).filter((at): at is string => at !== null).sort().at(-1) ??
          null
        return new PromptStatistics({
          promptId: id,
          uses: perVersion.reduce((sum, v) => sum + v.uses, 0),
          lastUsedAt: lastUsed,
          versions: perVersion
        })
      }),

      versionStatistics: Effect.fn("Prompts.versionStatistics")(function*(id: string, version: number) {
        const tenantId = yield* currentTenant
        yield* recorder.settled
        const { versions } = yield* load(tenantId, id)
        const target = yield* pick(id, versions, version)
        return versionStatistics(id, [target], yield* findUsage({ tenantId, id }).pipe(Effect.orDie))[0]!
      }),

      /** GET /api/v1/prompts: what users may pick; never templates or LLM settings. */
      available: Effect.fn("Prompts.available")(function*() {
        const all = yield* activeVersions(yield* currentTenant)
        return all.map(({ current, row }) =>
          new AvailablePrompt({
            id: row.id,
            name: current.name,
            description: current.description,
            category: current.category,
            activeVersion: current.version
          })
        )
      }),

      /** GET /api/v1/prompts/display: Quick Prompt settings of the enabled prompts, by category, order and label. */
      display: Effect.fn("Prompts.display")(function*() {
        const all = yield* activeVersions(yield* currentTenant)
        return all
          .flatMap(({ current, row }) =>
            current.quickPrompt?.enabled
              ? [
                new PromptDisplay({
                  id: row.id,
                  label: current.quickPrompt.label,
                  icon: current.quickPrompt.icon ?? null,
                  order: current.quickPrompt.order ?? null,
                  category: current.category,
                  description: current.description
                })
              ]
              : []
          )
          .sort((a, b) =>
            (a.category ?? "").localeCompare(b.category ?? "") ||
            (a.order ?? Number.MAX_SAFE_INTEGER) - (b.order ?? Number.MAX_SAFE_INTEGER) ||
            a.label.localeCompare(b.label)
          )
      })
    }
  }),
  dependencies: [Templates.Default, RequestRecorder.Default]
}) {}
