import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Which broker process finished the order (host:pid:nonce), for operators of several brokers on one database.
  yield* sql`ALTER TABLE orders ADD COLUMN processed_by text`
})
