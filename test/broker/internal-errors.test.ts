/**
 * An internal failure (here: a table the broker needs is gone) as a client and an operator see it:
 * 500 with the broker's error body naming the step that failed and why, an error identifier in the
 * body and the `X-Error-Id` header, and the same identifier in the log line (docs/errors.md).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { brokerTestLayer, BrokerUrl } from "../../src/layers/Test.ts"
import { defaultBackend } from "../support/backends.ts"
import { call, corpusFile, uploadOk } from "../support/http.ts"

const logged: Array<string> = []
const captureLogs = Logger.add(Logger.make(({ message }) => void logged.push(JSON.stringify(message))))

layer(brokerTestLayer(defaultBackend.config).pipe(Layer.provide(captureLogs)), { timeout: 120_000 })(
  "internal errors",
  (it) => {
    it.effect("a defect: 500 InternalError saying which step failed, with an identifier the log line carries", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const id = yield* uploadOk(base, corpusFile("pdf/tracemonkey.pdf"))
        const sql = yield* SqlClient.SqlClient
        yield* sql`ALTER TABLE annotations RENAME TO annotations_elsewhere`
        const reply = yield* call(`${base}/annotation?documentId=${id}`)
        yield* sql`ALTER TABLE annotations_elsewhere RENAME TO annotations`
        expect(reply.status).toBe(500)
        expect(Object.keys(reply.json).sort()).toEqual(["_tag", "errorId", "message"])
        expect(reply.json._tag).toBe("InternalError")
        expect(reply.json.message).toMatch(/^Internal error in Annotation\w*\.\w+: SqlError: .*annotations/)
        expect(reply.json.message).not.toMatch(/\n|\s+at /)
        expect(reply.json.errorId).toMatch(/^[0-9a-f]{12}$/)
        expect(reply.headers.get("x-error-id")).toBe(reply.json.errorId)
        expect(logged.some((line) => line.includes(`Error ${reply.json.errorId}`) && line.includes("GET /annotation")))
          .toBe(true)
        // The broker goes on answering.
        expect((yield* call(`${base}/annotation?documentId=${id}`)).status).toBe(200)
      }))

    it.effect("a declared 500 (a page that cannot be rendered) keeps its body and gets an identifier too", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        // Registered from a layout: it has pages but no file to render them from.
        const registered = yield* call(`${base}/documents/layout`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            type: "com.docstack.viewer.client.api.document.DocumentPageLayout",
            documentId: "layout-only",
            documentTitle: "No file",
            mimeType: "application/pdf",
            pageDimensionsList: [{ width: 612, height: 792, rotation: 0, dpi: 72, pageLayers: null }]
          })
        })
        expect(registered.status).toBe(200)
        const reply = yield* call(`${base}/documents/layout-only/pages/0/image`)
        expect(reply.status).toBe(500)
        expect(reply.json).toMatchObject({ _tag: "DocumentProcessingFailed", documentId: "layout-only" })
        expect(reply.json.errorId).toMatch(/^[0-9a-f]{12}$/)
        expect(reply.headers.get("x-error-id")).toBe(reply.json.errorId)
        expect(logged.some((line) => line.includes(`Error ${reply.json.errorId}`))).toBe(true)
      }))
  }
)
