import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Gateway: a tenant's MCP servers; the id is the name in `mcp:<id>/<tool>`. Header values are
  // stored encrypted (they carry API keys), as a provider's key is.
  yield* sql`CREATE TABLE mcp_servers (
    tenant_id text NOT NULL,
    id text NOT NULL,
    name text,
    transport text NOT NULL,
    url text,
    headers_sealed text,
    header_names jsonb NOT NULL DEFAULT '[]',
    command text,
    args jsonb NOT NULL DEFAULT '[]',
    use_in_requests boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
  )`
  // The document a conversation is about, which the document tools read.
  yield* sql`ALTER TABLE conversations ADD COLUMN document_id text`
  // What the tool loop did for a request, and the pages its answer cites.
  yield* sql`ALTER TABLE llm_requests ADD COLUMN tool_calls jsonb NOT NULL DEFAULT '[]'`
  yield* sql`ALTER TABLE llm_requests ADD COLUMN citations jsonb NOT NULL DEFAULT '[]'`
})
