/**
 * Inside a PDF worker thread: the documents of a transformation (TransformRequests.ts).
 */
import type { WorkerRunner } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect } from "effect"
import { readFile, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { dropKeptAnnotations, writeAnnotations } from "../annotations/PdfAnnotations.ts"
import { assemblePages } from "../engine/PdfAssembly.ts"
import { loadWithPdfLib } from "../engine/PdfLibDocuments.ts"
import { attempt, PdfOperationFailed } from "../engine/PdfRequest.ts"
import { workerSettings } from "../engine/WorkerSettings.ts"
import { writeOutline } from "../outline/Outline.ts"
import { redactedDocument } from "./Redaction.ts"
import type { Transform } from "./TransformRequests.ts"

const settings = workerSettings("transformations", { redactionTimeoutMs: 120_000 })

export const transformHandlers: WorkerRunner.SerializedRunner.Handlers<Transform> = {
  Transform: (req) =>
    Effect.gen(function*() {
      const sources = yield* Effect.forEach(req.sources, (source) =>
        source.redactions.length === 0
          ? attempt("Opening a source document", () => loadWithPdfLib(source.path))
          // A redacted source is taken as redaction left it, not written out and parsed again.
          : attempt("Reading a source document", () => readFile(source.path)).pipe(
            Effect.flatMap((bytes) =>
              redactedDocument(new Uint8Array(bytes), source.redactions, { timeoutMs: settings.redactionTimeoutMs })
            ),
            Effect.mapError((
              e
            ) => (e._tag === "PdfOperationFailed" ? e : new PdfOperationFailed({ message: e.message }))),
            Effect.provide(NodeContext.layer)
          ))
      return yield* attempt("Building the result", async () => {
        const files: Array<string> = []
        for (const [i, output] of req.outputs.entries()) {
          const result = await assemblePages(sources, output.pages)
          if (output.replaceOwnAnnotations === true) dropKeptAnnotations(result)
          writeAnnotations(result, output.annotations, output.annotationMode)
          if (output.title !== undefined) result.setTitle(output.title)
          if (output.outline !== undefined) writeOutline(result, output.outline)
          const file = path.join(req.outDir, `result-${i}.pdf`)
          await writeFile(file, await result.save())
          files.push(file)
        }
        return files
      })
    })
}
