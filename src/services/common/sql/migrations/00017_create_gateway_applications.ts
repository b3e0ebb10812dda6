import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Gateway: a tenant's Application configurations; a name is unique in the tenant whatever its case.
  yield* sql`CREATE TABLE applications (
    tenant_id text NOT NULL,
    id text NOT NULL,
    name text NOT NULL,
    description text,
    llm jsonb NOT NULL DEFAULT '{}',
    enabled boolean NOT NULL DEFAULT true,
    settings jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
  )`
  yield* sql`CREATE UNIQUE INDEX applications_name ON applications (tenant_id, lower(name))`
  // The prompts an Application offers. A referenced prompt cannot be deleted (the prompts service
  // answers 409 first; the key is there for a deletion racing a new reference).
  yield* sql`CREATE TABLE application_prompts (
    tenant_id text NOT NULL,
    application_id text NOT NULL,
    prompt_id text NOT NULL,
    position integer NOT NULL,
    PRIMARY KEY (tenant_id, application_id, prompt_id),
    FOREIGN KEY (tenant_id, application_id) REFERENCES applications (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, prompt_id) REFERENCES prompts (tenant_id, id)
  )`
  yield* sql`CREATE INDEX application_prompts_prompt ON application_prompts (tenant_id, prompt_id)`
})
