/**
 * Inside a PDF worker thread: page images (PageRequests.ts), drawn by PDFium (engine/Rasterizer.ts).
 */
import type { WorkerRunner } from "@effect/platform"
import { renderPage } from "../engine/Rasterizer.ts"
import type { RenderPage } from "./PageRequests.ts"

export const pageHandlers: WorkerRunner.SerializedRunner.Handlers<RenderPage> = {
  RenderPage: (req) => renderPage(req, req.page, req)
}
