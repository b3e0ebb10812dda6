import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // The viewer's rendition targets (brokers), in order; POST/PUT weather change them, and they
  // survive a restart (docs/viewer.md "Rendition targets").
  yield* sql`CREATE TABLE viewer_targets (
    url text PRIMARY KEY,
    position integer NOT NULL
  )`
  // Which target serves a document (its root ID, as the broker knows it): every call for one
  // document goes to the same broker while it answers; a viewer instance that has not seen the
  // document yet reads it here, so instances behind a load balancer agree.
  yield* sql`CREATE TABLE viewer_documents (
    document_id text PRIMARY KEY,
    target text NOT NULL,
    assigned_at timestamptz NOT NULL DEFAULT now()
  )`
  // Sessions, kept here rather than in one instance's memory, so that no load balancer needs
  // sticky sessions (docs/viewer.md "Sessions").
  yield* sql`CREATE TABLE viewer_sessions (
    id text PRIMARY KEY,
    current_document text,
    user_name text,
    user_agent text,
    version_user_agent text,
    created_at timestamptz NOT NULL DEFAULT now(),
    touched_at timestamptz NOT NULL DEFAULT now()
  )`
  // Composite containers built by the GET/PUT sequence until PUT final registers them with a broker.
  yield* sql`CREATE TABLE viewer_containers (
    id text PRIMARY KEY,
    title text NOT NULL,
    children jsonb NOT NULL DEFAULT '[]',
    finalized boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
})
