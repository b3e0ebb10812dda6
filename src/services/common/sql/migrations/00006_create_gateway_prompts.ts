import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Gateway: a tenant's prompts; the versioned content is in prompt_versions.
  yield* sql`CREATE TABLE prompts (
    tenant_id text NOT NULL,
    id text NOT NULL,
    base boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
  )`
  yield* sql`CREATE TABLE prompt_versions (
    tenant_id text NOT NULL,
    prompt_id text NOT NULL,
    version integer NOT NULL,
    state text NOT NULL CHECK (state IN ('draft', 'published', 'archived')),
    template text NOT NULL,
    name text,
    description text,
    category text,
    quick_prompt jsonb,
    llm jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz,
    PRIMARY KEY (tenant_id, prompt_id, version),
    FOREIGN KEY (tenant_id, prompt_id) REFERENCES prompts (tenant_id, id) ON DELETE CASCADE
  )`
  // At most one draft and one published version per prompt.
  yield* sql`CREATE UNIQUE INDEX prompt_versions_one_draft ON prompt_versions (tenant_id, prompt_id) WHERE state = 'draft'`
  yield* sql`CREATE UNIQUE INDEX prompt_versions_one_published ON prompt_versions (tenant_id, prompt_id) WHERE state = 'published'`
  // Uses of each version, filled by the request pipeline.
  yield* sql`CREATE TABLE prompt_usage (
    tenant_id text NOT NULL,
    prompt_id text NOT NULL,
    version integer NOT NULL,
    uses bigint NOT NULL DEFAULT 0,
    last_used_at timestamptz,
    PRIMARY KEY (tenant_id, prompt_id, version),
    FOREIGN KEY (tenant_id, prompt_id) REFERENCES prompts (tenant_id, id) ON DELETE CASCADE
  )`
})
