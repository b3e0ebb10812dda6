import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Gateway: a tenant's scripts; a name is unique in the tenant whatever its case. The draft's
  // revision counts every change of the draft, so a scan's outcome is kept only for the draft it
  // read; `scan` is the outcome of the current draft's last scan. The deployed content keeps its
  // entity tag (a hash of it, written with it) for pages that load it again.
  yield* sql`CREATE TABLE scripts (
    tenant_id text NOT NULL,
    id text NOT NULL,
    name text NOT NULL,
    draft_content text,
    draft_revision integer NOT NULL DEFAULT 0,
    scan jsonb,
    deployed_content text,
    deployed_etag text,
    deployed_at timestamptz,
    deployed_certified boolean,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
  )`
  yield* sql`CREATE UNIQUE INDEX scripts_name ON scripts (tenant_id, lower(name))`
})
