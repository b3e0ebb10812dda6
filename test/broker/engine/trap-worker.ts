/**
 * A PDF worker thread for tests of the engine: page images drawn as in the broker's threads
 * (PageWorker.ts), and TrapPdfium, which makes PDFium trap for real: it hands PDFium a document
 * lying far outside the module's memory, and PDFium's parser reading it is stopped by WebAssembly
 * ("memory access out of bounds"). It runs through `withPdfium`, as every page image does.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeWorkerRunner from "@effect/platform-node/NodeWorkerRunner"
import * as WorkerRunner from "@effect/platform/WorkerRunner"
import { Effect, Layer, Schema } from "effect"
import { withPdfium } from "../../../src/services/broker/engine/Pdfium.ts"
import { PdfOperationFailed } from "../../../src/services/broker/engine/PdfRequest.ts"
import { RenderPage } from "../../../src/services/broker/pages/PageRequests.ts"
import { pageHandlers } from "../../../src/services/broker/pages/PageWorker.ts"
import { TrapPdfium } from "./trap-request.ts"

/** An address near the top of the 4 GB a WebAssembly module can address, far past what it has. */
const OUTSIDE = 0xfff0_0000

const handlers = WorkerRunner.layerSerialized(Schema.Union(RenderPage, TrapPdfium), {
  ...pageHandlers,
  TrapPdfium: () =>
    Effect.tryPromise({
      try: () => withPdfium((pdfium) => pdfium.FPDF_LoadMemDocument(OUTSIDE, 0x10_0000, "")),
      catch: (error) => new PdfOperationFailed({ message: `not a trap: ${String(error)}` })
    }).pipe(
      Effect.flatMap((document) => new PdfOperationFailed({ message: `PDFium did not trap (document ${document})` }))
    )
})

NodeRuntime.runMain(WorkerRunner.launch(Layer.provide(handlers, NodeWorkerRunner.layer)))
