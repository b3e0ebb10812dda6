import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { DocumentIds } from "../../src/services/viewer/ids/DocumentIds.ts"

const withSettings = (settings: Record<string, string>) =>
  DocumentIds.Default.pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings)))))
  )

const SEALED = {
  VIEWER_DOCUMENT_ID_GENERATOR: "encryptedDocumentIdGenerator",
  VIEWER_DOCUMENT_ID_KEY: "a secret of at least sixteen characters"
}

describe("document IDs", () => {
  it.effect("documentIdGenerator gives the broker's ID, a part's '@' read as '/'", () =>
    Effect.gen(function*() {
      const ids = yield* DocumentIds
      expect(ids.encode("b64_abc")).toBe("b64_abc")
      expect(yield* ids.decode("b64_abc@1@2")).toBe("b64_abc/1/2")
    }).pipe(Effect.provide(withSettings({}))))

  it.effect("encryptedDocumentIdGenerator seals the broker's ID, keeps a part's suffix in clear, and opens it again", () =>
    Effect.gen(function*() {
      const ids = yield* DocumentIds
      const sealed = ids.encode("b64_secretDocument")
      expect(sealed.startsWith("b64_")).toBe(true)
      expect(sealed).not.toContain("secretDocument")
      // Each opening gives another ID for the same document.
      expect(ids.encode("b64_secretDocument")).not.toBe(sealed)
      expect(yield* ids.decode(sealed)).toBe("b64_secretDocument")
      const part = ids.encode("b64_secretDocument/3/1")
      expect(part.endsWith("/3/1")).toBe(true)
      expect(yield* ids.decode(part.replace("/3/1", "@3@1"))).toBe("b64_secretDocument/3/1")
    }).pipe(Effect.provide(withSettings(SEALED))))

  it.effect("refuses an ID that was altered, or sealed under another key, as none of the viewer's (400)", () =>
    Effect.gen(function*() {
      const sealed = yield* Effect.map(DocumentIds, (ids) => ids.encode("b64_doc")).pipe(
        Effect.provide(withSettings({ ...SEALED, VIEWER_DOCUMENT_ID_KEY: "another secret, sixteen+ chars" }))
      )
      const ids = yield* DocumentIds
      const otherKey = yield* Effect.flip(ids.decode(sealed))
      expect(otherKey._tag).toBe("InvalidRequest")
      const mine = ids.encode("b64_doc")
      const flipped = mine.slice(0, 10) + (mine[10] === "A" ? "B" : "A") + mine.slice(11)
      expect((yield* Effect.flip(ids.decode(flipped)))._tag).toBe("InvalidRequest")
      expect((yield* Effect.flip(ids.decode("b64_short")))._tag).toBe("InvalidRequest")
    }).pipe(Effect.provide(withSettings(SEALED))))

  it.live("refuses an ID older than VIEWER_DOCUMENT_ID_TTL with 404, saying it expired", () =>
    Effect.gen(function*() {
      const ids = yield* DocumentIds
      const sealed = ids.encode("b64_doc")
      expect(yield* ids.decode(sealed)).toBe("b64_doc")
      // Issued times are whole seconds: past one second of age in at most two.
      yield* Effect.sleep("2100 millis")
      const expired = yield* Effect.flip(ids.decode(sealed))
      expect(expired._tag).toBe("DocumentNotFound")
      expect(expired.message).toContain("expired")
    }).pipe(Effect.provide(withSettings({ ...SEALED, VIEWER_DOCUMENT_ID_TTL: "1" }))))

  it.effect("will not start sealing IDs without a key of at least 16 characters", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(
          withSettings({
            VIEWER_DOCUMENT_ID_GENERATOR: "encryptedDocumentIdGenerator",
            VIEWER_DOCUMENT_ID_KEY: "short"
          })
        )
          .pipe(Effect.scoped)
      )
      expect(Exit.isFailure(exit)).toBe(true)
      expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain("VIEWER_DOCUMENT_ID_KEY")
    }))
})
