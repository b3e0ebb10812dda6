/**
 * The annotations table: the only place that speaks SQL about annotations. A row is either an
 * annotation kept by the broker, or a user's change to one read from the PDF file (replaced, or
 * deleted: a tombstone, so that the file's copy stays hidden).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import { Annotation } from "../../../schemas/broker/Annotations.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"

const Body = Schema.Union(Annotation, Schema.parseJson(Annotation))

const Row = Schema.Struct({
  id: Schema.String,
  body: Body,
  fromFile: Schema.Boolean,
  deleted: Schema.Boolean
})
export type AnnotationRow = typeof Row.Type

const decodeRows = Schema.decodeUnknown(Schema.Array(Row))
const encodeBody = Schema.encodeSync(Annotation)

export class AnnotationStore extends Effect.Service<AnnotationStore>()("docstack/AnnotationStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const upsert = (documentId: string, annotation: Annotation, fromFile: boolean, deleted: boolean) =>
      sql`INSERT INTO annotations ${
        sql.insert({
          documentId,
          id: annotation.id!.id,
          page: annotation.page,
          type: annotation.type,
          body: sqlJson(encodeBody(annotation)),
          fromFile,
          deleted
        })
      } ON CONFLICT (document_id, id) DO UPDATE SET page = excluded.page, type = excluded.type, body = excluded.body,
          deleted = excluded.deleted, updated_at = now()`

    return {
      /** Every row of the document, in the order they were made. */
      forDocument: (documentId: string) =>
        sql`SELECT id, body, from_file, deleted FROM annotations WHERE document_id = ${documentId} ORDER BY seq`.pipe(
          Effect.flatMap(decodeRows),
          Effect.orDie
        ),

      /** Writes the annotations (new ones and changes) in one transaction. */
      save: (
        documentId: string,
        annotations: ReadonlyArray<{ readonly annotation: Annotation; readonly fromFile: boolean }>
      ) =>
        sql.withTransaction(
          Effect.forEach(annotations, (a) => upsert(documentId, a.annotation, a.fromFile, false), { discard: true })
        ).pipe(Effect.orDie),

      /** Removes the broker's annotations and hides the file's ones (tombstones), in one transaction. */
      remove: (documentId: string, stored: ReadonlyArray<string>, fromFile: ReadonlyArray<Annotation>) =>
        sql.withTransaction(
          Effect.zipRight(
            stored.length === 0
              ? Effect.void
              : sql`DELETE FROM annotations WHERE document_id = ${documentId} AND ${sql.in("id", stored)}`,
            Effect.forEach(fromFile, (annotation) => upsert(documentId, annotation, true, true), { discard: true })
          )
        ).pipe(Effect.orDie)
    }
  })
}) {}
