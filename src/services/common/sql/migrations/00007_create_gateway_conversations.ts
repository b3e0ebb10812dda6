import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Gateway: a user's conversations and the requests (turns) in them.
  yield* sql`CREATE TABLE conversations (
    tenant_id text NOT NULL,
    id text NOT NULL,
    user_id text NOT NULL,
    title text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
  )`
  yield* sql`CREATE INDEX conversations_user_idx ON conversations (tenant_id, user_id, updated_at DESC)`
})
