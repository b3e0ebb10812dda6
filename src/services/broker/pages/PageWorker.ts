/**
 * Inside a PDF worker thread: page images (PageRequests.ts).
 */
import type { WorkerRunner } from "@effect/platform"
import { Effect } from "effect"
import { renderPng } from "../engine/Rasterizer.ts"
import { attempt, open, pageOf } from "../engine/WorkerDocuments.ts"
import type { RenderPage } from "./PageRequests.ts"

export const pageHandlers: WorkerRunner.SerializedRunner.Handlers<RenderPage> = {
  RenderPage: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      const page = yield* pageOf(doc, req.page)
      return yield* attempt(`Rendering page ${req.page}`, () => renderPng(doc, page, req))
    })
}
