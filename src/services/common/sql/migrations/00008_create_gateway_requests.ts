import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Gateway: each request to a language model, its answer, usage and latency (for the statistics).
  yield* sql`CREATE TABLE llm_requests (
    tenant_id text NOT NULL,
    id text NOT NULL,
    conversation_id text NOT NULL,
    user_id text NOT NULL,
    inputs jsonb NOT NULL,
    response text NOT NULL DEFAULT '',
    status text NOT NULL,
    provider_id text,
    model text,
    input_tokens integer,
    output_tokens integer,
    latency_ms integer,
    first_token_ms integer,
    feedback text,
    error_message text,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    completed_at timestamptz,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, conversation_id) REFERENCES conversations (tenant_id, id) ON DELETE CASCADE
  )`
  yield* sql`CREATE INDEX llm_requests_conversation_idx ON llm_requests (tenant_id, conversation_id, created_at)`
})
