/**
 * Temporary files as a client downloads them: a file a tool stored (through the TempFiles service,
 * as tools will, in the tenant of their run) is served at /temp-files/{fileKey} byte for byte with
 * its type, to its tenant only, until TEMP_FILE_TTL has passed; then it is 404 and swept away. Files
 * over TEMP_FILE_MAX_BYTES, and types that are not media types, are refused. On PGlite and PostgreSQL.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { gatewayTestLayer, GatewayUrl } from "../../../src/layers/Test.ts"
import { CurrentPrincipal, Principal } from "../../../src/schemas/gateway/Tenancy.ts"
import { type TempFileInput, TempFiles } from "../../../src/services/gateway/tempfiles/TempFiles.ts"
import { backends } from "../../support/backends.ts"
import { as, expectErrorBody } from "../../support/gateway.ts"
import { call } from "../../support/http.ts"
import { sleep } from "../../support/processes.ts"

/** Stores `input` as a tool run for `tenant` does. */
const storeFor = (tenant: string, input: TempFileInput) =>
  TempFiles.pipe(
    Effect.flatMap((files) => files.store(input)),
    Effect.provideService(
      CurrentPrincipal,
      new Principal({ tenantId: tenant, userId: "plan-run", roles: [], isAdmin: false })
    )
  )

const EVERY_BYTE = Uint8Array.from({ length: 256 }, (_, i) => i)

for (const backend of backends) {
  const gateway = gatewayTestLayer({
    ...backend.config,
    TEMP_FILE_TTL: "2 seconds",
    TEMP_FILE_MAX_BYTES: "1024",
    TEMP_FILE_SWEEP_INTERVAL: "200 millis"
  })
  describe(`temporary files (${backend.name})`, () => {
    layer(gateway, { timeout: 120_000 })("download", (it) => {
      it.effect("served byte for byte with its type to its tenant, 404 to another, then expired and swept", () =>
        Effect.gen(function*() {
          const base = yield* GatewayUrl
          const sql = yield* SqlClient.SqlClient
          const stored = yield* storeFor("acme", {
            bytes: EVERY_BYTE,
            contentType: "application/octet-stream",
            fileName: "données.bin"
          })
          expect(stored.fileKey).toMatch(/^[A-Za-z0-9_-]{32}$/)
          expect(stored).toMatchObject({ path: `/temp-files/${stored.fileKey}`, size: 256 })
          const expiresIn = Date.parse(stored.expiresAt) - Date.now()
          expect(expiresIn).toBeGreaterThan(0)
          expect(expiresIn).toBeLessThanOrEqual(2_500)

          const download = yield* call(`${base}${stored.path}`, { headers: as("acme", "bob") })
          expect(download.status).toBe(200)
          expect([...download.bytes]).toEqual([...EVERY_BYTE])
          expect(download.contentType).toBe("application/octet-stream")
          expect(download.headers.get("content-length")).toBe("256")
          expect(download.headers.get("content-disposition")).toBe(
            "attachment; filename=\"donn?es.bin\"; filename*=UTF-8''donn%C3%A9es.bin"
          )
          expect(download.headers.get("cache-control")).toBe("private, no-store")
          expect(download.headers.get("x-content-type-options")).toBe("nosniff")

          // Another tenant, an unknown key, no tenant at all.
          expectErrorBody(yield* call(`${base}${stored.path}`, { headers: as("other", "bob") }), 404, "FILE_NOT_FOUND")
          expectErrorBody(
            yield* call(`${base}/temp-files/unknown`, { headers: as("acme", "bob") }),
            404,
            "FILE_NOT_FOUND"
          )
          expectErrorBody(yield* call(`${base}${stored.path}`), 400, "MISSING_TENANT")

          // Expired: 404 at once, and the sweep removes it from the database.
          yield* sleep(expiresIn + 100)
          expectErrorBody(yield* call(`${base}${stored.path}`, { headers: as("acme", "bob") }), 404, "FILE_NOT_FOUND")
          const swept = yield* Effect.gen(function*() {
            for (let i = 0; i < 50; i++) {
              const left = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM temp_files
                WHERE file_key = ${stored.fileKey}`
              if (left[0]!.n === 0) return true
              yield* sleep(100)
            }
            return false
          })
          expect(swept).toBe(true)
        }))

      it.effect("types that could run script in the gateway's origin are downloads; safe ones are shown", () =>
        Effect.gen(function*() {
          const base = yield* GatewayUrl
          const cases = [
            ["text/html; charset=utf-8", "attachment"],
            ["image/svg+xml", "attachment"],
            ["image/png", "inline"],
            ["text/csv; charset=utf-8", "inline"]
          ] as const
          for (const [contentType, disposition] of cases) {
            const stored = yield* storeFor("shown", { bytes: new TextEncoder().encode("a,b"), contentType })
            const download = yield* call(`${base}${stored.path}`, { headers: as("shown", "bob") })
            expect(download.contentType).toBe(contentType)
            expect(download.headers.get("content-disposition")).toBe(`${disposition}; filename=${stored.fileKey}`)
          }
        }))

      it.effect("a file over TEMP_FILE_MAX_BYTES, or a type that is not a media type, is refused", () =>
        Effect.gen(function*() {
          const tooLarge = yield* storeFor("refused", { bytes: new Uint8Array(1025), contentType: "text/plain" }).pipe(
            Effect.flip
          )
          expect(tooLarge.message).toContain("TEMP_FILE_MAX_BYTES")
          for (const contentType of ["text/plain\r\nSet-Cookie: a=b", "plain", ""]) {
            const refused = yield* storeFor("refused", { bytes: new Uint8Array(1), contentType }).pipe(Effect.flip)
            expect(refused._tag).toBe("TempFileRefused")
          }
          expect((yield* storeFor("refused", { bytes: new Uint8Array(1024), contentType: "text/plain" })).size).toBe(
            1024
          )
        }))
    })
  })
}
