import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // A retry answers a question again: the earlier request names its replacement and leaves the history.
  yield* sql`ALTER TABLE llm_requests ADD COLUMN replaced_by text`
})
