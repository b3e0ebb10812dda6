/**
 * Inside a PDF worker thread: PDFs merged into one (MergeRequests.ts).
 */
import type { WorkerRunner } from "@effect/platform"
import { Effect } from "effect"
import { writeFile } from "node:fs/promises"
import { assemblePages } from "../engine/PdfAssembly.ts"
import { loadWithPdfLib } from "../engine/PdfLibDocuments.ts"
import { attempt } from "../engine/PdfRequest.ts"
import type { MergePdfs } from "./MergeRequests.ts"

export const mergeHandlers: WorkerRunner.SerializedRunner.Handlers<MergePdfs> = {
  MergePdfs: (req) =>
    Effect.gen(function*() {
      const sources = yield* Effect.forEach(req.sources, (source) =>
        attempt("Opening a part", () => loadWithPdfLib(source.path)))
      yield* attempt("Merging the parts", async () => {
        const merged = await assemblePages(
          sources,
          sources.flatMap((doc, source) =>
            doc.getPageIndices().map((page) => ({ source, page }))
          )
        )
        await writeFile(req.outPath, await merged.save())
      })
    })
}
