/**
 * The broker: its HttpApi with handlers, OpenAPI at /v3/api-docs, the explorer at
 * /swagger-ui/index.html, and every service it needs, each built once and shared.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Layer } from "effect"
import { AdministrationHttpLive } from "../http/broker/AdministrationHttp.ts"
import { AnnotationsHttpLive } from "../http/broker/AnnotationsHttp.ts"
import { BrokerApi } from "../http/broker/Api.ts"
import { ComparisonsHttpLive } from "../http/broker/ComparisonsHttp.ts"
import { ConversionsHttpLive } from "../http/broker/ConversionsHttp.ts"
import { DocumentLoadingHttpLive } from "../http/broker/DocumentLoadingHttp.ts"
import { DocumentsHttpLive } from "../http/broker/DocumentsHttp.ts"
import { ProvidersHttpLive } from "../http/broker/ProvidersHttp.ts"
import { TransformationsHttpLive } from "../http/broker/TransformationsHttp.ts"
import { brokerErrorShape } from "../http/common/ErrorBodies.ts"
import { AnnotationImport } from "../services/broker/annotations/AnnotationImport.ts"
import { Annotations } from "../services/broker/annotations/Annotations.ts"
import { Comparisons } from "../services/broker/comparisons/Comparisons.ts"
import { Conversions } from "../services/broker/documents/Conversions.ts"
import { DocumentFiles } from "../services/broker/documents/DocumentFiles.ts"
import { DocumentInfo } from "../services/broker/documents/DocumentInfo.ts"
import { DocumentRegistration } from "../services/broker/documents/DocumentRegistration.ts"
import { DocumentResolver } from "../services/broker/documents/DocumentResolver.ts"
import { engineWorkerSettings, PdfEngine, PdfWorkerSetup } from "../services/broker/engine/PdfEngine.ts"
import { compiledPdfium, PDFIUM_MODULE_SETTING } from "../services/broker/engine/PdfiumModule.ts"
import { Health } from "../services/broker/health/Health.ts"
import { orderRunner } from "../services/broker/orders/OrderRunner.ts"
import { Orders } from "../services/broker/orders/Orders.ts"
import { DocumentOutline } from "../services/broker/outline/DocumentOutline.ts"
import { PageImages } from "../services/broker/pages/PageImages.ts"
import { AnnotationProxy } from "../services/broker/providers/AnnotationProxy.ts"
import { HoldingProviderLive } from "../services/broker/providers/HoldingProviderLive.ts"
import { MetadataProxy } from "../services/broker/providers/MetadataProxy.ts"
import { ProviderPartsLive } from "../services/broker/providers/ProviderParts.ts"
import { RegistryDocuments } from "../services/broker/providers/RegistryDocuments.ts"
import { DocumentSignatures } from "../services/broker/signatures/DocumentSignatures.ts"
import { signatureWorkerSettings } from "../services/broker/signatures/SignatureRequests.ts"
import { DocumentText } from "../services/broker/text/DocumentText.ts"
import { textWorkerSettings } from "../services/broker/text/TextRequests.ts"
import { Transformations } from "../services/broker/transformations/Transformations.ts"
import { transformWorkerSettings } from "../services/broker/transformations/TransformRequests.ts"
import { BlobStore } from "../services/common/BlobStore.ts"
import { listen } from "./Listen.ts"
import { servedApi } from "./ServedApi.ts"

/** The PDF worker threads: the entry that runs every feature's handlers, and each feature's settings for them. */
export const PdfWorkerSetupLive = Layer.effect(
  PdfWorkerSetup,
  Effect.all({
    engine: engineWorkerSettings,
    [PDFIUM_MODULE_SETTING]: compiledPdfium,
    signatures: signatureWorkerSettings,
    text: textWorkerSettings,
    transformations: transformWorkerSettings
  }).pipe(
    Effect.map((settings) => ({ entry: new URL("./PdfWorker.ts", import.meta.url), settings }))
  )
)

/** The PDF engine with its worker threads: what a broker, and a test of one feature, runs PDF work on. */
export const PdfEngineLive = PdfEngine.Default.pipe(Layer.provide(PdfWorkerSetupLive))

/** The order workers (on the order book) and what each kind of order does. */
const OrderWorkersLive = Layer.unwrapEffect(
  Effect.all([Conversions, Transformations, Comparisons]).pipe(
    Effect.map(([conversions, transformations, comparisons]) =>
      orderRunner({
        conversion: (order) => conversions.convert(order.documentId ?? ""),
        transformation: transformations.run,
        comparison: comparisons.run
      })
    )
  )
).pipe(Layer.provide(Orders.Default))

/**
 * Every service of the broker, on the process's infrastructure (InfrastructureLive). Each service
 * brings the services it needs (its `dependencies`); what is left here are the ports: the blob
 * store and the PDF worker the engine starts.
 */
export const BrokerServicesLive = Layer.mergeAll(Health.Default, OrderWorkersLive).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      Transformations.Default,
      Comparisons.Default,
      Conversions.Default,
      Annotations.Default,
      AnnotationImport.Default,
      DocumentRegistration.Default,
      DocumentResolver.Default,
      DocumentInfo.Default,
      DocumentFiles.Default,
      PageImages.Default,
      DocumentText.Default,
      DocumentOutline.Default,
      DocumentSignatures.Default,
      RegistryDocuments.Default,
      AnnotationProxy.Default,
      MetadataProxy.Default
    )
  ),
  // A provider folder's files are fetched, and a document's provider named, by the providers feature,
  // which stands above the documents one.
  Layer.provideMerge(Layer.merge(ProviderPartsLive, HoldingProviderLive)),
  Layer.provideMerge(Layer.mergeAll(BlobStore.FileSystemLive, PdfWorkerSetupLive))
)

/** The broker's routes and handlers; the services come from outside. */
const BrokerRoutesLive = HttpApiBuilder.api(BrokerApi).pipe(
  Layer.provide([
    DocumentsHttpLive,
    ConversionsHttpLive,
    ComparisonsHttpLive,
    TransformationsHttpLive,
    AnnotationsHttpLive,
    DocumentLoadingHttpLive,
    ProvidersHttpLive,
    AdministrationHttpLive
  ])
)

/** The broker's HTTP application, without a server or services (tests serve it on an ephemeral port). */
export const BrokerApp = servedApi({
  api: BrokerApi,
  shape: brokerErrorShape,
  bodyLimit: { name: "MAX_JSON_BODY_BYTES", fallback: 16 * 1024 * 1024 },
  routes: BrokerRoutesLive
})

export const BrokerLive = listen("BROKER", 8761, BrokerApp, BrokerServicesLive)
