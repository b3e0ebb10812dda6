import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Asynchronous work (conversions now; transformations and comparisons share the table and its scheduler).
  yield* sql`CREATE TABLE orders (
    id text PRIMARY KEY,
    kind text NOT NULL,
    state text NOT NULL,
    document_id text,
    format text,
    request jsonb NOT NULL DEFAULT '{}',
    result jsonb,
    error_message text,
    queued_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz,
    processed_at timestamptz,
    processing_ms bigint,
    attempts integer NOT NULL DEFAULT 0,
    lease_owner text,
    lease_until timestamptz
  )`
  yield* sql`CREATE INDEX orders_claim_idx ON orders (state, queued_at)`
  yield* sql`CREATE INDEX orders_document_idx ON orders (document_id)`
  // What a composite file (email, ZIP) holds, derived from its bytes like a rendition.
  yield* sql`CREATE TABLE expansions (
    source_hash text PRIMARY KEY,
    parts jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  // Every blob an expansion points at, so that deleting a document frees exactly the unshared ones.
  yield* sql`CREATE TABLE expansion_blobs (
    source_hash text NOT NULL,
    blob_hash text NOT NULL,
    PRIMARY KEY (source_hash, blob_hash)
  )`
  yield* sql`CREATE INDEX expansion_blobs_blob_idx ON expansion_blobs (blob_hash)`
})
