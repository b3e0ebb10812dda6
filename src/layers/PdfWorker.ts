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
import { Compare, DiffText } from "../services/broker/comparisons/CompareRequests.ts"
import { ReadMessage } from "../services/broker/composite/MessageRequests.ts"
import { Analyze } from "../services/broker/conversion/PdfAnalysis.ts"
import { MergePdfs } from "../services/broker/documents/MergeRequests.ts"
import { loadedOnFirstRequest } from "../services/broker/engine/FeatureHandlers.ts"
import { ReadDestinations, ReadOutline } from "../services/broker/outline/OutlineRequests.ts"
import { RenderPage } from "../services/broker/pages/PageRequests.ts"
import { VerifySignatures } from "../services/broker/signatures/SignatureRequests.ts"
import { ExtractText, SearchPages } from "../services/broker/text/TextRequests.ts"
import { Transform } from "../services/broker/transformations/TransformRequests.ts"

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
  ...loadedOnFirstRequest(
    [Analyze],
    () => import("../services/broker/conversion/PdfAnalysisWorker.ts").then((m) => m.analysisHandlers)
  ),
  ...loadedOnFirstRequest(
    [RenderPage],
    () => import("../services/broker/pages/PageWorker.ts").then((m) => m.pageHandlers)
  ),
  ...loadedOnFirstRequest(
    [ExtractText, SearchPages],
    () => import("../services/broker/text/TextWorker.ts").then((m) => m.textHandlers)
  ),
  ...loadedOnFirstRequest(
    [ReadOutline, ReadDestinations],
    () => import("../services/broker/outline/OutlineWorker.ts").then((m) => m.outlineHandlers)
  ),
  ...loadedOnFirstRequest(
    [ReadAnnotations],
    () => import("../services/broker/annotations/AnnotationWorker.ts").then((m) => m.annotationHandlers)
  ),
  ...loadedOnFirstRequest(
    [VerifySignatures],
    () => import("../services/broker/signatures/SignatureWorker.ts").then((m) => m.signatureHandlers)
  ),
  ...loadedOnFirstRequest(
    [ReadMessage],
    () => import("../services/broker/composite/MessageWorker.ts").then((m) => m.messageHandlers)
  ),
  ...loadedOnFirstRequest(
    [MergePdfs],
    () => import("../services/broker/documents/MergeWorker.ts").then((m) => m.mergeHandlers)
  ),
  ...loadedOnFirstRequest(
    [Transform],
    () => import("../services/broker/transformations/TransformWorker.ts").then((m) => m.transformHandlers)
  ),
  ...loadedOnFirstRequest(
    [Compare, DiffText],
    () => import("../services/broker/comparisons/CompareWorker.ts").then((m) => m.compareHandlers)
  )
})

NodeRuntime.runMain(WorkerRunner.launch(Layer.provide(handlers, NodeWorkerRunner.layer)))
