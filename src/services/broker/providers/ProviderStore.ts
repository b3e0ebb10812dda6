/**
 * Which provider holds a document opened through POST /registry/documents, the parameters that name
 * it there, the credentials of its latest opening and when its content was fetched (table
 * provider_documents, migration 00015): the only place that speaks SQL about them.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { ProviderParameters } from "../../../schemas/provider/ProviderContract.ts"
import { sqlJson } from "../../common/sql/StorableText.ts"

/** jsonb comes back parsed from both drivers; text is accepted too. */
const JsonParameters = Schema.Union(ProviderParameters, Schema.parseJson(ProviderParameters))

export class ProviderRecord extends Schema.Class<ProviderRecord>("ProviderRecord")({
  documentId: Schema.String,
  provider: Schema.String,
  parameters: JsonParameters,
  credentials: JsonParameters,
  /** Milliseconds since the epoch. */
  fetchedAt: Schema.Number
}) {}

export class ProviderStore extends Effect.Service<ProviderStore>()("docstack/ProviderStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findById = SqlSchema.findOne({
      Request: Schema.String,
      Result: ProviderRecord,
      execute: (id) =>
        sql`SELECT document_id, provider, parameters, credentials,
                   (extract(epoch FROM fetched_at) * 1000)::float8 AS fetched_at
            FROM provider_documents WHERE document_id = ${id}`
    })

    return {
      find: Effect.fn("ProviderStore.find")((documentId: string) => findById(documentId).pipe(Effect.orDie)),

      /** Records (or replaces) where a document came from, fetched now. */
      save: Effect.fn("ProviderStore.save")((
        documentId: string,
        provider: string,
        parameters: ProviderParameters,
        credentials: ProviderParameters
      ) =>
        sql`INSERT INTO provider_documents ${
          sql.insert({
            documentId,
            provider,
            parameters: sqlJson(parameters),
            credentials: sqlJson(credentials)
          })
        } ON CONFLICT (document_id) DO UPDATE SET provider = EXCLUDED.provider, parameters = EXCLUDED.parameters,
            credentials = EXCLUDED.credentials, fetched_at = now()`.pipe(Effect.asVoid, Effect.orDie)
      ),

      /** The latest opening's credentials; `refetched` also marks the content as fetched now. */
      touch: Effect.fn("ProviderStore.touch")((
        documentId: string,
        credentials: ProviderParameters,
        refetched: boolean
      ) =>
        (refetched
          ? sql`UPDATE provider_documents SET credentials = ${sqlJson(credentials)}, fetched_at = now()
                WHERE document_id = ${documentId}`
          : sql`UPDATE provider_documents SET credentials = ${sqlJson(credentials)}
                WHERE document_id = ${documentId}`).pipe(Effect.asVoid, Effect.orDie)
      )
    }
  })
}) {}
