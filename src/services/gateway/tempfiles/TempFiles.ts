/**
 * Temporary files (spec: GET /temp-files/{fileKey}): bytes a tool or an agent run produces, kept
 * for the tenant of the run for TEMP_FILE_TTL and served at /temp-files/{fileKey}. A key is
 * unguessable; another tenant's key, an expired one and an unknown one all read as not found.
 * Expired files are swept from the database every TEMP_FILE_SWEEP_INTERVAL by every gateway.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Config, Duration, Effect, Schedule, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { FileNotFound } from "../../../schemas/gateway/GatewayErrors.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import { currentTenant } from "../tenancy/CurrentReach.ts"

export const TempFilesConfig = Config.all({
  ttl: durationConfig("TEMP_FILE_TTL", "1 hour"),
  maxBytes: Config.integer("TEMP_FILE_MAX_BYTES").pipe(Config.withDefault(32 * 1024 * 1024)),
  sweepInterval: durationConfig("TEMP_FILE_SWEEP_INTERVAL", "5 minutes")
})

/** Why a file was not stored: too large, or a content type that is not one (it becomes a response header). */
export class TempFileRefused extends Schema.TaggedError<TempFileRefused>()("TempFileRefused", {
  message: Schema.String
}) {}

export interface TempFileInput {
  readonly bytes: Uint8Array
  /** A media type such as `text/csv` or `image/png; charset=...`. */
  readonly contentType: string
  /** The name a download is given; the key when none. */
  readonly fileName?: string | undefined
}

export interface StoredTempFile {
  readonly fileKey: string
  /** Where the current tenant reads it, relative to the gateway's address. */
  readonly path: string
  readonly size: number
  readonly expiresAt: string
}

export interface TempFile {
  readonly bytes: Uint8Array
  readonly contentType: string
  readonly fileName: string
}

/** type/subtype with optional parameters, in the characters a header may hold (no line breaks). */
const MEDIA_TYPE =
  /^[A-Za-z0-9][\w!#$&^.+-]*\/[A-Za-z0-9][\w!#$&^.+-]*(\s*;\s*[\w!#$&^.+-]+=("[^"\r\n]*"|[\w!#$&^.+-]+))*$/

export class TempFiles extends Effect.Service<TempFiles>()("gateway/TempFiles", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const settings = yield* TempFilesConfig
    const ttlMillis = Duration.toMillis(settings.ttl)

    // Every gateway sweeps: the statement is the same whoever runs it, and a sweep missed is done by the next.
    yield* sql`DELETE FROM temp_files WHERE expires_at <= now()`.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("Sweeping expired temporary files failed", cause)),
      Effect.repeat(Schedule.spaced(settings.sweepInterval)),
      Effect.forkScoped
    )

    return {
      /** Keeps `input` for the current tenant until TEMP_FILE_TTL has passed. */
      store: Effect.fn("TempFiles.store")(function*(input: TempFileInput) {
        const tenantId = yield* currentTenant
        if (input.bytes.byteLength > settings.maxBytes) {
          return yield* new TempFileRefused({
            message:
              `The file has ${input.bytes.byteLength} bytes; temporary files may have ${settings.maxBytes} (TEMP_FILE_MAX_BYTES)`
          })
        }
        if (!MEDIA_TYPE.test(input.contentType)) {
          return yield* new TempFileRefused({ message: `'${input.contentType}' is not a media type` })
        }
        const fileKey = randomBytes(24).toString("base64url")
        // The expiry is the database's clock plus the TTL: every gateway over it agrees on it.
        const rows = yield* sql<{ expiresAt: Date | string }>`INSERT INTO temp_files
            (file_key, tenant_id, content_type, file_name, content, expires_at)
          VALUES (${fileKey}, ${tenantId}, ${input.contentType}, ${input.fileName ?? null}, ${input.bytes},
            now() + ${ttlMillis} * interval '1 millisecond')
          RETURNING expires_at`.pipe(Effect.orDie)
        return {
          fileKey,
          path: `/temp-files/${fileKey}`,
          size: input.bytes.byteLength,
          expiresAt: new Date(rows[0]!.expiresAt).toISOString()
        } satisfies StoredTempFile
      }),

      /** The file under `fileKey` for the current tenant, while it has not expired. */
      read: Effect.fn("TempFiles.read")(function*(fileKey: string) {
        const tenantId = yield* currentTenant
        const rows = yield* sql<{ content: Uint8Array; contentType: string; fileName: string | null }>`
          SELECT content, content_type, file_name FROM temp_files
          WHERE file_key = ${fileKey} AND tenant_id = ${tenantId} AND expires_at > now()`.pipe(Effect.orDie)
        const row = rows[0]
        if (row === undefined) {
          return yield* new FileNotFound({ message: `No temporary file '${fileKey}' (they expire after a while)` })
        }
        return {
          bytes: new Uint8Array(row.content.buffer, row.content.byteOffset, row.content.byteLength),
          contentType: row.contentType,
          fileName: row.fileName ?? fileKey
        } satisfies TempFile
      })
    }
  })
}) {}
