/**
 * The documents table and the renditions derived from content: the only place that speaks SQL
 * about documents.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import { DocumentAlreadyExists } from "../schemas/Document.ts"

export class PageRecord extends Schema.Class<PageRecord>("PageRecord")({
  width: Schema.Number,
  height: Schema.Number,
  rotation: Schema.Int,
  dpi: Schema.Int
}) {}

const Pages = Schema.Array(PageRecord)
const Info = Schema.Record({ key: Schema.String, value: Schema.String })
const JsonInfo = Schema.Union(Info, Schema.parseJson(Info))
/** jsonb comes back parsed from both drivers; accept text too, for drivers that do not parse it. */
const JsonPages = Schema.Union(Pages, Schema.parseJson(Pages))

export class DocumentRecord extends Schema.Class<DocumentRecord>("DocumentRecord")({
  id: Schema.String,
  title: Schema.NullOr(Schema.String),
  mimeType: Schema.String,
  format: Schema.String,
  sourceHash: Schema.NullOr(Schema.String),
  sourceSize: Schema.NullOr(Schema.Number),
  /** Pages given by POST /documents/layout, for documents without a file. */
  registeredPages: Schema.NullOr(JsonPages),
  renditionHash: Schema.NullOr(Schema.String),
  renditionPages: Schema.NullOr(JsonPages),
  renditionInfo: Schema.NullOr(JsonInfo)
}) {}

export class Rendition extends Schema.Class<Rendition>("Rendition")({
  renditionHash: Schema.String,
  pages: JsonPages
}) {}

export interface NewDocument {
  readonly id: string
  readonly title: string | null
  readonly mimeType: string
  readonly format: string
  readonly sourceHash: string | null
  readonly sourceSize: number | null
  readonly registeredPages: ReadonlyArray<PageRecord> | null
}

const isUniqueViolation = (error: SqlError) => (error.cause as { code?: string } | undefined)?.code === "23505"

export class DocumentRegistry extends Effect.Service<DocumentRegistry>()("docstack/DocumentRegistry", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findById = SqlSchema.findOne({
      Request: Schema.String,
      Result: DocumentRecord,
      execute: (id) =>
        sql`SELECT d.id, d.title, d.mime_type, d.format, d.source_hash, d.source_size::float8 AS source_size,
                   d.registered_pages, r.rendition_hash, r.pages AS rendition_pages, r.info AS rendition_info
            FROM documents d LEFT JOIN renditions r ON r.source_hash = d.source_hash
            WHERE d.id = ${id}`
    })

    const findRendition = SqlSchema.findOne({
      Request: Schema.String,
      Result: Rendition,
      execute: (sourceHash) => sql`SELECT rendition_hash, pages FROM renditions WHERE source_hash = ${sourceHash}`
    })

    /** Whether any document or rendition still points at these bytes. */
    const isReferenced = (hash: string) =>
      sql`SELECT 1 FROM documents WHERE source_hash = ${hash}
          UNION ALL SELECT 1 FROM renditions WHERE rendition_hash = ${hash} OR source_hash = ${hash} LIMIT 1`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    return {
      find: Effect.fn("DocumentRegistry.find")((id: string) => findById(id).pipe(Effect.orDie)),

      insert: Effect.fn("DocumentRegistry.insert")((doc: NewDocument) =>
        sql`INSERT INTO documents ${
          sql.insert({
            id: doc.id,
            title: doc.title,
            mimeType: doc.mimeType,
            format: doc.format,
            sourceHash: doc.sourceHash,
            sourceSize: doc.sourceSize,
            registeredPages: doc.registeredPages === null ? null : JSON.stringify(doc.registeredPages)
          })
        }`.pipe(
          Effect.asVoid,
          Effect.catchTag("SqlError", (error) => isUniqueViolation(error) ? Effect.fail(DocumentAlreadyExists.of(doc.id)) : Effect.die(error))
        )
      ),

      /** Removes the document; answers the hashes that no document references any more. */
      remove: Effect.fn("DocumentRegistry.remove")((id: string) =>
        sql.withTransaction(
          Effect.gen(function*() {
            const deleted = yield* sql<{ sourceHash: string | null }>`DELETE FROM documents WHERE id = ${id} RETURNING source_hash`
            const sourceHash = deleted[0]?.sourceHash
            if (!sourceHash) return { removed: deleted.length > 0, orphans: [] as Array<string> }
            const stillUsed = yield* sql`SELECT 1 FROM documents WHERE source_hash = ${sourceHash} LIMIT 1`
            if (stillUsed.length > 0) return { removed: true, orphans: [] as Array<string> }
            const renditions = yield* sql<{ renditionHash: string }>`DELETE FROM renditions WHERE source_hash = ${sourceHash} RETURNING rendition_hash`
            const orphans = new Set<string>()
            // A hash may still be another document's original or another source's rendition (a PDF is its own).
            for (const hash of new Set([sourceHash, ...renditions.map((r) => r.renditionHash)])) {
              if (!(yield* isReferenced(hash))) orphans.add(hash)
            }
            return { removed: true, orphans: [...orphans] }
          })
        ).pipe(Effect.orDie)
      ),

      rendition: Effect.fn("DocumentRegistry.rendition")((sourceHash: string) =>
        findRendition(sourceHash).pipe(Effect.orDie)
      ),

      saveRendition: Effect.fn("DocumentRegistry.saveRendition")(
        (sourceHash: string, renditionHash: string, pages: ReadonlyArray<PageRecord>, info: Readonly<Record<string, string>>) =>
          sql`INSERT INTO renditions ${sql.insert({ sourceHash, renditionHash, pages: JSON.stringify(pages), info: JSON.stringify(info) })}
              ON CONFLICT (source_hash) DO UPDATE SET rendition_hash = EXCLUDED.rendition_hash, pages = EXCLUDED.pages, info = EXCLUDED.info`.pipe(Effect.asVoid, Effect.orDie)
      ),

      isReferenced: Effect.fn("DocumentRegistry.isReferenced")((hash: string) => isReferenced(hash).pipe(Effect.orDie))
    } as const
  })
}) {}
