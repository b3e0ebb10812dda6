/**
 * How long the recorder gathers records before a statement, by database: 200 ms on the embedded
 * one (no other process reads it, and each statement costs its thread 1 to 2 ms), 20 ms on
 * PostgreSQL (another gateway there sees a record only once it is written), and what
 * REQUEST_RECORD_DELAY says whichever it is.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect } from "effect"
import { RequestRecorderConfig } from "../../../src/services/gateway/records/RequestRecorder.ts"

const delayWith = (settings: Record<string, string>) =>
  RequestRecorderConfig.pipe(
    Effect.map((config) => Duration.toMillis(config.delay)),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings))))
  )

describe("request record delay", () => {
  it.effect("200 ms on the embedded database, 20 ms on PostgreSQL, REQUEST_RECORD_DELAY over either", () =>
    Effect.gen(function*() {
      expect(yield* delayWith({})).toBe(200)
      expect(yield* delayWith({ DATABASE_URL: "  " })).toBe(200)
      expect(yield* delayWith({ DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test" })).toBe(20)
      expect(yield* delayWith({ REQUEST_RECORD_DELAY: "5 millis" })).toBe(5)
      expect(yield* delayWith({ REQUEST_RECORD_DELAY: "0.05", DATABASE_URL: "postgres://h/db" })).toBe(50)
    }))
})
