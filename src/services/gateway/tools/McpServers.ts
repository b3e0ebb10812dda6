/**
 * A tenant's MCP server configurations, in SQL (spec: "Admin: tools, scripts, MCP servers"). The
 * id is chosen by the administrator (it is the `<server>` of `mcp:<server>/<tool>`); header values
 * are stored encrypted, as a provider's API key is, and read back masked. A stdio server runs a
 * program on the gateway's machine: it can be registered only when GATEWAY_MCP_STDIO_ENABLED is set.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Config, Effect, Option, Schema } from "effect"
import { BadRequest, Conflict, McpServerNotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import { McpServer, type McpServerInput, type McpServerUpdate } from "../../../schemas/gateway/McpServers.ts"
import { failOnUniqueViolation, isoUtc } from "../../common/sql/Fragments.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"
import { Secrets } from "../llm/Secrets.ts"
import { currentTenant } from "../tenancy/CurrentReach.ts"

export const McpServersConfig = Config.all({
  /** Whether stdio servers (programs started by the gateway) may be registered and started. */
  stdioEnabled: Config.boolean("GATEWAY_MCP_STDIO_ENABLED").pipe(Config.withDefault(false))
})

const JsonStrings = Schema.Union(Schema.Array(Schema.String), Schema.parseJson(Schema.Array(Schema.String)))

class McpServerRow extends Schema.Class<McpServerRow>("McpServerRow")({
  id: Schema.String,
  name: Schema.NullOr(Schema.String),
  transport: Schema.Literal("http", "sse", "stdio"),
  url: Schema.NullOr(Schema.String),
  headersSealed: Schema.NullOr(Schema.String),
  headerNames: JsonStrings,
  command: Schema.NullOr(Schema.String),
  args: JsonStrings,
  useInRequests: Schema.Boolean,
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}

/** A configuration as a client connects with it: headers in clear. */
export interface McpServerForUse {
  readonly tenantId: string
  readonly server: McpServer
  readonly headers: Readonly<Record<string, string>>
}

const viewOf = (row: McpServerRow) =>
  new McpServer({
    id: row.id,
    name: row.name,
    transport: row.transport,
    url: row.url,
    headers: Object.fromEntries(row.headerNames.map((name) => [name, "****"])),
    command: row.command,
    args: row.args,
    useInRequests: row.useInRequests,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  })

const notFound = (id: string) => new McpServerNotFound({ message: `No MCP server '${id}'` })

export class McpServers extends Effect.Service<McpServers>()("gateway/McpServers", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* Secrets
    const { stdioEnabled } = yield* McpServersConfig
    const columns = sql`id, name, transport, url, headers_sealed, header_names, command, args, use_in_requests,
      ${isoUtc(sql, "created_at")} AS created_at, ${isoUtc(sql, "updated_at")} AS updated_at`

    const findAll = SqlSchema.findAll({
      Request: Schema.String,
      Result: McpServerRow,
      execute: (tenantId) => sql`SELECT ${columns} FROM mcp_servers WHERE tenant_id = ${tenantId} ORDER BY id`
    })
    const findOne = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.String }),
      Result: McpServerRow,
      execute: ({ id, tenantId }) =>
        sql`SELECT ${columns} FROM mcp_servers WHERE tenant_id = ${tenantId} AND id = ${id}`
    })
    const load = (tenantId: string, id: string) =>
      findOne({ tenantId, id }).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed }))
      )

    /** What each transport needs; a stdio server only where the gateway allows programs to be started. */
    const validate = (input: McpServerInput | McpServerUpdate) => {
      if (input.transport === "stdio") {
        if (!stdioEnabled) {
          return Effect.fail(
            new BadRequest({
              message:
                "stdio MCP servers start a program on the gateway's machine and are disabled (GATEWAY_MCP_STDIO_ENABLED)"
            })
          )
        }
        return input.command === undefined
          ? Effect.fail(new BadRequest({ message: "A stdio MCP server needs a command" }))
          : Effect.void
      }
      return input.url === undefined
        ? Effect.fail(new BadRequest({ message: `An ${input.transport} MCP server needs a url` }))
        : Effect.void
    }

    const fields = (input: McpServerInput | McpServerUpdate) => ({
      name: input.name ?? null,
      transport: input.transport,
      url: input.transport === "stdio" ? null : input.url ?? null,
      command: input.transport === "stdio" ? input.command ?? null : null,
      args: sqlJson(input.transport === "stdio" ? input.args ?? [] : []),
      useInRequests: input.useInRequests
    })

    const sealedHeaders = (headers: Readonly<Record<string, string>>) =>
      Effect.map(secrets.encrypt(JSON.stringify(headers)), (sealed) => ({
        headersSealed: sealed,
        headerNames: sqlJson(Object.keys(headers))
      }))

    const headersOf = (row: McpServerRow) =>
      row.headersSealed === null
        ? Effect.succeed({})
        : secrets.decrypt(row.headersSealed).pipe(
          Effect.map((text) => JSON.parse(text) as Record<string, string>),
          Effect.orDie
        )

    return {
      list: Effect.fn("McpServers.list")(function*() {
        return (yield* findAll(yield* currentTenant).pipe(Effect.orDie)).map(viewOf)
      }),

      get: Effect.fn("McpServers.get")(function*(id: string) {
        return viewOf(yield* load(yield* currentTenant, id))
      }),

      create: Effect.fn("McpServers.create")(function*(input: McpServerInput) {
        const tenantId = yield* currentTenant
        yield* validate(input)
        const row = { tenantId, id: input.id, ...fields(input), ...(yield* sealedHeaders(input.headers ?? {})) }
        yield* sql`INSERT INTO mcp_servers ${sql.insert(row)}`.pipe(
          failOnUniqueViolation(() => new Conflict({ message: `An MCP server '${input.id}' already exists` }))
        )
        return viewOf(yield* load(tenantId, input.id))
      }),

      update: Effect.fn("McpServers.update")(function*(id: string, input: McpServerUpdate) {
        const tenantId = yield* currentTenant
        if (input.id !== undefined && input.id !== id) {
          return yield* new BadRequest({ message: `The body's id '${input.id}' is not the path's '${id}'` })
        }
        yield* load(tenantId, id)
        yield* validate(input)
        const headers = input.headers === undefined ? {} : yield* sealedHeaders(input.headers)
        yield* sql`UPDATE mcp_servers SET ${sql.update({ ...fields(input), ...headers })}, updated_at = now()
          WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(Effect.orDie)
        return viewOf(yield* load(tenantId, id))
      }),

      remove: Effect.fn("McpServers.remove")(function*(id: string) {
        const tenantId = yield* currentTenant
        yield* load(tenantId, id)
        yield* sql`DELETE FROM mcp_servers WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(Effect.orDie)
      }),

      /** The configuration with its headers in clear, for a connection; MCP_SERVER_NOT_FOUND otherwise. */
      forUse: Effect.fn("McpServers.forUse")(function*(id: string) {
        const tenantId = yield* currentTenant
        const row = yield* load(tenantId, id)
        return { tenantId, server: viewOf(row), headers: yield* headersOf(row) } satisfies McpServerForUse
      }),

      /** The servers whose tools every request of the tenant is offered. */
      inRequests: Effect.fn("McpServers.inRequests")(function*() {
        const tenantId = yield* currentTenant
        const rows = (yield* findAll(tenantId).pipe(Effect.orDie)).filter((row) => row.useInRequests)
        return yield* Effect.forEach(
          rows,
          (row) =>
            Effect.map(
              headersOf(row),
              (headers) => ({ tenantId, server: viewOf(row), headers }) satisfies McpServerForUse
            )
        )
      }),

      stdioEnabled
    }
  }),
  dependencies: [Secrets.Default]
}) {}
