import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // A document's annotations go with it, and those of its parts (`<id>/<i>…`) too: removing a
  // document needs nothing of the annotations feature, which stands above the documents one.
  yield* sql`CREATE FUNCTION annotations_follow_documents() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM annotations WHERE document_id = OLD.id OR left(document_id, length(OLD.id) + 1) = OLD.id || '/';
      RETURN OLD;
    END
  $$`
  yield* sql`CREATE TRIGGER annotations_follow_documents AFTER DELETE ON documents
    FOR EACH ROW EXECUTE FUNCTION annotations_follow_documents()`
})
