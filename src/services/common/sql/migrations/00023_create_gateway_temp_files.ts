import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Gateway: files tools produce, kept for a while for the tenant that produced them. In the
  // database rather than the blob store so that any gateway over it serves them; the expiry index
  // serves the sweep that removes them.
  yield* sql`CREATE TABLE temp_files (
    file_key text PRIMARY KEY,
    tenant_id text NOT NULL,
    content_type text NOT NULL,
    file_name text,
    content bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
  )`
  yield* sql`CREATE INDEX temp_files_expiry ON temp_files (expires_at)`
})
