import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Gateway: one row per LLM provider configuration of a tenant; the API key is stored encrypted.
  yield* sql`CREATE TABLE llm_providers (
    tenant_id text NOT NULL,
    id text NOT NULL,
    type text NOT NULL,
    name text,
    model text NOT NULL,
    api_key_encrypted text,
    api_key_last4 text,
    base_url text,
    headers jsonb NOT NULL DEFAULT '{}',
    extra_params jsonb NOT NULL DEFAULT '{}',
    capabilities jsonb NOT NULL DEFAULT '{}',
    fallback_provider_id text,
    is_default boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
  )`
})
