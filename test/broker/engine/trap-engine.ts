/**
 * A real engine pool (PdfEngine) whose threads run trap-worker.ts (the broker's page handlers plus
 * a request that makes PDFium trap), each keeping 1,100,000 bytes of files open in PDFium:
 * tracemonkey.pdf (1,016,315 bytes) fits alone, and any other file of the corpus but the tiniest
 * pushes it out. `config` sets the pool (RENDER_WORKERS and the like).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { ConfigProvider, Layer } from "effect"
import { PdfEngine, PdfWorkerSetup } from "../../../src/services/broker/engine/PdfEngine.ts"
import { RenderPage } from "../../../src/services/broker/pages/PageRequests.ts"
import { CORPUS } from "../../support/backends.ts"

/** Page 1 of tracemonkey.pdf, 200 pixels wide: a small real page for the engine tests. */
export const tracemonkeyPage = () =>
  new RenderPage({
    hash: "tracemonkey.pdf",
    path: `${CORPUS}pdf/tracemonkey.pdf`,
    page: 0,
    width: 200,
    rotation: 0,
    filters: [],
    maxPixels: 60_000_000
  })

/** `settings` are added to the threads' (the engine's own and the broker's: PDFium's compiled module). */
export const trapEngineLayer = (
  config: ReadonlyArray<readonly [string, string]>,
  settings: Readonly<Record<string, unknown>> = {}
) =>
  PdfEngine.Default.pipe(
    Layer.provide(
      Layer.succeed(PdfWorkerSetup, {
        entry: new URL("./trap-worker.ts", import.meta.url),
        settings: { engine: { pdfjsDocumentBytes: 16_000_000, openDocumentBytes: 1_100_000 }, ...settings }
      })
    ),
    Layer.provide(NodeContext.layer),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(config))))
  )
