import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Gateway: a tenant's plan definitions; the node graph is one JSON document, checked on writing.
  yield* sql`CREATE TABLE plans (
    tenant_id text NOT NULL,
    id text NOT NULL,
    title text NOT NULL,
    description text,
    nodes jsonb NOT NULL,
    output text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
  )`
  yield* sql`CREATE UNIQUE INDEX plans_title ON plans (tenant_id, lower(title))`
  // The records a plan's nodes name (kind: prompt, agent or plan), kept beside the graph so that
  // "who uses this agent" is one indexed query rather than a scan of every plan's JSON.
  yield* sql`CREATE TABLE plan_references (
    tenant_id text NOT NULL,
    plan_id text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('prompt', 'agent', 'plan')),
    ref_id text NOT NULL,
    PRIMARY KEY (tenant_id, plan_id, kind, ref_id),
    FOREIGN KEY (tenant_id, plan_id) REFERENCES plans (tenant_id, id) ON DELETE CASCADE
  )`
  yield* sql`CREATE INDEX plan_references_ref ON plan_references (tenant_id, kind, ref_id)`
})
