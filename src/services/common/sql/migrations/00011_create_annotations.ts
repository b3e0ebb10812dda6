import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Annotations kept by the broker for documents opened through POST /documents. `body` is the
  // annotation as the API shows it; a row for an annotation read from the PDF file itself is a
  // user's change to it (`deleted` when they removed it).
  yield* sql`CREATE TABLE annotations (
    document_id text NOT NULL,
    id text NOT NULL,
    page integer NOT NULL,
    type text NOT NULL,
    body jsonb NOT NULL,
    from_file boolean NOT NULL DEFAULT false,
    deleted boolean NOT NULL DEFAULT false,
    -- Lists keep the order annotations were made in, also those of one request (one transaction).
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (document_id, id)
  )`
})
