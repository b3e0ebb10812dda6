/**
 * The documents table and the renditions derived from content: the only place that speaks SQL
 * about documents.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Config, Effect, Option, Schema } from "effect"
import { DocumentAlreadyExists } from "../../../schemas/broker/Document.ts"
import { Lru } from "../../common/Lru.ts"
import { failOnUniqueViolation } from "../../common/sql/Fragments.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"

export class PageRecord extends Schema.Class<PageRecord>("PageRecord")({
  width: Schema.Number,
  height: Schema.Number,
  rotation: Schema.Int,
  dpi: Schema.Int
}) {}

const Pages = Schema.Array(PageRecord)
/** What one page weighs in a page list as JSON, about: `{"width":612,"height":792,"rotation":0,"dpi":72},`. */
const PAGE_JSON_BYTES = 50
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
  pages: JsonPages,
  info: JsonInfo
}) {}

const JsonUnknown = Schema.Union(Schema.parseJson(), Schema.Unknown)

/** What a composite file holds, as the expander stored it (see Containers). */
class ExpansionRow extends Schema.Class<ExpansionRow>("ExpansionRow")({ parts: JsonUnknown }) {}

export interface NewDocument {
  readonly id: string
  readonly title: string | null
  readonly mimeType: string
  readonly format: string
  readonly sourceHash: string | null
  readonly sourceSize: number | null
  readonly registeredPages: ReadonlyArray<PageRecord> | null
  /** Where its rendition is kept when not under the source hash (see Renditions.renditionKey). */
  readonly renditionKey: string | null
}

/** A document's row as read, its rendition's page list still JSON text (decoded once per rendition, see find). */
class DocumentRow extends Schema.Class<DocumentRow>("DocumentRow")({
  ...DocumentRecord.fields,
  renditionPages: Schema.NullOr(Schema.String)
}) {}

export const DocumentRegistryConfig = Config.all({
  /**
   * The page lists of renditions kept decoded, by their size as JSON: every request about a page
   * reads its document's record, and decoding a list of hundreds of pages each time cost more than
   * the rest of a cached page image's request.
   */
  pageListCacheBytes: Config.integer("RENDITION_PAGE_LIST_CACHE_BYTES").pipe(Config.withDefault(4 * 1024 * 1024))
})

export class DocumentRegistry extends Effect.Service<DocumentRegistry>()("docstack/DocumentRegistry", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* DocumentRegistryConfig

    const findRow = SqlSchema.findOne({
      Request: Schema.String,
      Result: DocumentRow,
      execute: (id) =>
        sql`SELECT d.id, d.title, d.mime_type, d.format, d.source_hash, d.source_size::float8 AS source_size,
                   d.registered_pages, r.rendition_hash, r.pages::text AS rendition_pages, r.info AS rendition_info
            FROM documents d LEFT JOIN renditions r ON r.source_hash = COALESCE(d.rendition_key, d.source_hash)
            WHERE d.id = ${id}`
    })

    // Keyed by the rendition's hash: its pages are those of the PDF with that hash, so an entry is
    // never stale, whichever broker wrote the row.
    const pageLists = new Lru<ReadonlyArray<PageRecord>>(
      config.pageListCacheBytes,
      undefined,
      (pages) => pages.length * PAGE_JSON_BYTES
    )
    const decodePages = Schema.decode(Schema.parseJson(Pages))
    const pagesOfRendition = (hash: string, json: string) => {
      const known = pageLists.get(hash)
      return known !== undefined ? Effect.succeed(known) : decodePages(json).pipe(
        Effect.orDie,
        Effect.tap((pages) => pageLists.set(hash, pages))
      )
    }

    const findById = (id: string) =>
      findRow(id).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (row) =>
            row.renditionHash === null || row.renditionPages === null
              ? Effect.succeedSome(new DocumentRecord({ ...row, renditionPages: null }, true))
              : pagesOfRendition(row.renditionHash, row.renditionPages).pipe(
                Effect.map((pages) => Option.some(new DocumentRecord({ ...row, renditionPages: pages }, true)))
              )
        }))
      )

    const findRendition = SqlSchema.findOne({
      Request: Schema.String,
      Result: Rendition,
      execute: (sourceHash) => sql`SELECT rendition_hash, pages, info FROM renditions WHERE source_hash = ${sourceHash}`
    })

    const findExpansion = SqlSchema.findOne({
      Request: Schema.String,
      Result: ExpansionRow,
      execute: (sourceHash) => sql`SELECT parts FROM expansions WHERE source_hash = ${sourceHash}`
    })

    /**
     * Whether anything still points at these bytes as a source: a document, a composite file's part,
     * or the rendition of some other source (a PDF is its own rendition, which does not count).
     */
    const isReferenced = (hash: string) =>
      sql`SELECT 1 FROM documents WHERE source_hash = ${hash}
          UNION ALL SELECT 1 FROM expansion_blobs WHERE blob_hash = ${hash}
          UNION ALL SELECT 1 FROM renditions WHERE rendition_hash = ${hash} AND source_hash <> ${hash} LIMIT 1`.pipe(
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
            registeredPages: doc.registeredPages === null ? null : sqlJson(doc.registeredPages),
            renditionKey: doc.renditionKey
          })
        }`.pipe(
          Effect.asVoid,
          failOnUniqueViolation(() => DocumentAlreadyExists.of(doc.id))
        )
      ),

      /**
       * Removes the document with the parts registered under it (a provider folder's files, `<id>/<i>`);
       * answers the hashes of their bytes, for `release`.
       */
      remove: Effect.fn("DocumentRegistry.remove")((id: string) =>
        sql<{ id: string; sourceHash: string | null }>`DELETE FROM documents
          WHERE id = ${id} OR left(id, length(${id}) + 1) = ${id} || '/' RETURNING id, source_hash`.pipe(
          Effect.map((deleted) => ({
            removed: deleted.some((row) => row.id === id),
            sourceHashes: deleted.flatMap((row) => (row.sourceHash === null ? [] : [row.sourceHash]))
          })),
          Effect.orDie
        )
      ),

      /** Removes only the parts registered under a document (its files are fetched again on next use). */
      removeParts: Effect.fn("DocumentRegistry.removeParts")((id: string) =>
        sql<{ sourceHash: string | null }>`DELETE FROM documents
          WHERE left(id, length(${id}) + 1) = ${id} || '/' RETURNING source_hash`.pipe(
          Effect.map((deleted) => deleted.flatMap((row) => (row.sourceHash === null ? [] : [row.sourceHash]))),
          Effect.orDie
        )
      ),

      /**
       * Forgets what was derived from bytes nothing refers to any more (renditions, expansions), and
       * so on down to their own parts; answers every hash whose bytes may now be deleted.
       */
      release: Effect.fn("DocumentRegistry.release")((hashes: ReadonlyArray<string>) =>
        sql.withTransaction(
          Effect.gen(function*() {
            const pending = [...new Set(hashes)]
            const orphans = new Set<string>()
            while (pending.length > 0) {
              const hash = pending.pop()!
              if (orphans.has(hash) || (yield* isReferenced(hash))) continue
              orphans.add(hash)
              const renditions = yield* sql<{ renditionHash: string }>`DELETE FROM renditions
                WHERE source_hash = ${hash} OR source_hash LIKE ${`${hash}~%`} RETURNING rendition_hash`
              const parts = yield* sql<
                { blobHash: string }
              >`DELETE FROM expansion_blobs WHERE source_hash = ${hash} RETURNING blob_hash`
              yield* sql`DELETE FROM expansions WHERE source_hash = ${hash}`
              pending.push(...renditions.map((r) => r.renditionHash), ...parts.map((p) => p.blobHash))
            }
            return [...orphans]
          })
        ).pipe(Effect.orDie)
      ),

      rendition: Effect.fn("DocumentRegistry.rendition")((sourceHash: string) =>
        findRendition(sourceHash).pipe(Effect.orDie)
      ),

      saveRendition: Effect.fn("DocumentRegistry.saveRendition")(
        (
          sourceHash: string,
          renditionHash: string,
          pages: ReadonlyArray<PageRecord>,
          info: Readonly<Record<string, string>>
        ) =>
          sql`INSERT INTO renditions ${
            sql.insert({ sourceHash, renditionHash, pages: sqlJson(pages), info: sqlJson(info) })
          }
              ON CONFLICT (source_hash) DO UPDATE SET rendition_hash = EXCLUDED.rendition_hash, pages = EXCLUDED.pages, info = EXCLUDED.info`
            .pipe(Effect.asVoid, Effect.orDie)
      ),

      expansion: Effect.fn("DocumentRegistry.expansion")((sourceHash: string) =>
        findExpansion(sourceHash).pipe(Effect.map(Option.map((row) => row.parts)), Effect.orDie)
      ),

      saveExpansion: Effect.fn("DocumentRegistry.saveExpansion")((
        sourceHash: string,
        parts: unknown,
        blobHashes: ReadonlyArray<string>
      ) =>
        sql.withTransaction(
          Effect.gen(function*() {
            yield* sql`INSERT INTO expansions ${sql.insert({ sourceHash, parts: sqlJson(parts) })}
                       ON CONFLICT (source_hash) DO UPDATE SET parts = EXCLUDED.parts`
            yield* sql`DELETE FROM expansion_blobs WHERE source_hash = ${sourceHash}`
            if (blobHashes.length > 0) {
              yield* sql`INSERT INTO expansion_blobs ${
                sql.insert([...new Set(blobHashes)].map((blobHash) => ({ sourceHash, blobHash })))
              }`
            }
          })
        ).pipe(Effect.asVoid, Effect.orDie)
      ),

      isReferenced: Effect.fn("DocumentRegistry.isReferenced")((hash: string) => isReferenced(hash).pipe(Effect.orDie))
    } as const
  })
}) {}
