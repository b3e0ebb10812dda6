import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Derived from content, shared by every document with the same bytes.
  yield* sql`CREATE TABLE renditions (
    source_hash text PRIMARY KEY,
    rendition_hash text NOT NULL,
    pages jsonb NOT NULL,
    info jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE TABLE documents (
    id text PRIMARY KEY,
    title text,
    mime_type text NOT NULL,
    format text NOT NULL,
    source_hash text,
    source_size bigint,
    registered_pages jsonb,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX documents_source_hash_idx ON documents (source_hash)`
  yield* sql`CREATE INDEX renditions_rendition_hash_idx ON renditions (rendition_hash)`
})
