/**
 * The broker's PDF worker thread: every feature's requests and their handlers on one runner. The
 * engine (src/services/broker/engine) bundles this file and starts it in each of its threads; it
 * imports only the features' worker modules, never their services.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeWorkerRunner from "@effect/platform-node/NodeWorkerRunner"
import * as WorkerRunner from "@effect/platform/WorkerRunner"
import { Layer, Schema } from "effect"
import { ReadAnnotations } from "../services/broker/annotations/AnnotationRequests.ts"
import { annotationHandlers } from "../services/broker/annotations/AnnotationWorker.ts"
import { Compare, DiffText } from "../services/broker/comparisons/CompareRequests.ts"
import { compareHandlers } from "../services/broker/comparisons/CompareWorker.ts"
import { ReadMessage } from "../services/broker/composite/MessageRequests.ts"
import { messageHandlers } from "../services/broker/composite/MessageWorker.ts"
import { Analyze } from "../services/broker/conversion/PdfAnalysis.ts"
import { analysisHandlers } from "../services/broker/conversion/PdfAnalysisWorker.ts"
import { MergePdfs } from "../services/broker/documents/MergeRequests.ts"
import { mergeHandlers } from "../services/broker/documents/MergeWorker.ts"
import { ReadDestinations, ReadOutline } from "../services/broker/outline/OutlineRequests.ts"
import { outlineHandlers } from "../services/broker/outline/OutlineWorker.ts"
import { RenderPage } from "../services/broker/pages/PageRequests.ts"
import { pageHandlers } from "../services/broker/pages/PageWorker.ts"
import { VerifySignatures } from "../services/broker/signatures/SignatureRequests.ts"
import { signatureHandlers } from "../services/broker/signatures/SignatureWorker.ts"
import { ExtractText, SearchPages } from "../services/broker/text/TextRequests.ts"
import { textHandlers } from "../services/broker/text/TextWorker.ts"
import { Transform } from "../services/broker/transformations/TransformRequests.ts"
import { transformHandlers } from "../services/broker/transformations/TransformWorker.ts"

const BrokerPdfRequest = Schema.Union(
  Analyze,
  RenderPage,
  ExtractText,
  SearchPages,
  ReadOutline,
  ReadDestinations,
  ReadAnnotations,
  VerifySignatures,
  ReadMessage,
  MergePdfs,
  Transform,
  Compare,
  DiffText
)

const handlers = WorkerRunner.layerSerialized(BrokerPdfRequest, {
  ...analysisHandlers,
  ...pageHandlers,
  ...textHandlers,
  ...outlineHandlers,
  ...annotationHandlers,
  ...signatureHandlers,
  ...messageHandlers,
  ...mergeHandlers,
  ...transformHandlers,
  ...compareHandlers
})

NodeRuntime.runMain(WorkerRunner.launch(Layer.provide(handlers, NodeWorkerRunner.layer)))
