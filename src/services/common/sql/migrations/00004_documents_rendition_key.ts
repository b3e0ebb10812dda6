import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // The rendition a document uses when it depends on more than its bytes (the same bytes named .csv
  // or .txt convert differently); NULL means the one keyed by its source hash.
  yield* sql`ALTER TABLE documents ADD COLUMN rendition_key text`
})
