import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Documents opened through POST /registry/documents: which provider holds them and the parameters
  // that name them there (docs/providers.md). `credentials` are the authentication parameters of
  // the latest opening, used to fetch a folder's files on first use and for the annotation proxy;
  // `fetched_at` is when the content was last fetched, for PROVIDER_CACHE_TTL. A folder's files
  // (documents `<id>/<i>`) have no row: their parameters are in the folder's expansion.
  yield* sql`CREATE TABLE provider_documents (
    document_id text PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    provider text NOT NULL,
    parameters jsonb NOT NULL,
    credentials jsonb NOT NULL DEFAULT '{}',
    fetched_at timestamptz NOT NULL DEFAULT now()
  )`
})
