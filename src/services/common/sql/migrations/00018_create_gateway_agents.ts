import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Gateway: a tenant's agent configurations; a title is unique in the tenant whatever its case.
  yield* sql`CREATE TABLE agents (
    tenant_id text NOT NULL,
    id text NOT NULL,
    title text NOT NULL,
    description text,
    instructions text NOT NULL,
    llm jsonb NOT NULL DEFAULT '{}',
    tools jsonb NOT NULL DEFAULT '[]',
    max_tool_cycles integer,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
  )`
  yield* sql`CREATE UNIQUE INDEX agents_title ON agents (tenant_id, lower(title))`
})
