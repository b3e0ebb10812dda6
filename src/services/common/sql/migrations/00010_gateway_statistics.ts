import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // What each request used, for the feature-adoption statistics.
  yield* sql`ALTER TABLE llm_requests
    ADD COLUMN streamed boolean NOT NULL DEFAULT false,
    ADD COLUMN used_prompt boolean NOT NULL DEFAULT false,
    ADD COLUMN has_image boolean NOT NULL DEFAULT false,
    ADD COLUMN is_retry boolean NOT NULL DEFAULT false`
  // Tenant-wide statistics and admin lists read requests by time.
  yield* sql`CREATE INDEX llm_requests_tenant_time_idx ON llm_requests (tenant_id, created_at)`
  // The work one use of a prompt version saves (seconds, estimated by the admin): "time saved" statistics.
  yield* sql`ALTER TABLE prompt_versions ADD COLUMN time_saved_seconds integer`
})
