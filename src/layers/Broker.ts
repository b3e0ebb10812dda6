/**
 * The broker: its HttpApi with handlers, OpenAPI at /v3/api-docs, the explorer at
 * /swagger-ui/index.html, and every service it needs, each built once and shared.
 */
import { HttpApiBuilder, HttpApiSwagger, HttpMiddleware } from "@effect/platform"
import { Effect, Layer } from "effect"
import { AdministrationHttpLive } from "../http/broker/AdministrationHttp.ts"
import { AnnotationsHttpLive } from "../http/broker/AnnotationsHttp.ts"
import { ComparisonsHttpLive } from "../http/broker/ComparisonsHttp.ts"
import { TransformationsHttpLive } from "../http/broker/TransformationsHttp.ts"
import { brokerErrorShape, errorBodies, internalErrors } from "../http/ErrorBodies.ts"
import { BrokerApi } from "../http/broker/Api.ts"
import { ConversionsHttpLive } from "../http/broker/ConversionsHttp.ts"
import { DocumentLoadingHttpLive } from "../http/broker/DocumentLoadingHttp.ts"
import { DocumentsHttpLive } from "../http/broker/DocumentsHttp.ts"
import { AnnotationPolicies } from "../services/annotations/AnnotationPolicies.ts"
import { Annotations } from "../services/annotations/Annotations.ts"
import { AnnotationStore } from "../services/annotations/AnnotationStore.ts"
import { BlobStore } from "../services/BlobStore.ts"
import { Comparisons } from "../services/Comparisons.ts"
import { Containers } from "../services/Containers.ts"
import { Conversions } from "../services/Conversions.ts"
import { Converter } from "../services/convert/Converter.ts"
import { OfficeConverter } from "../services/convert/OfficeConverter.ts"
import { DerivedCache } from "../services/DerivedCache.ts"
import { DocumentRegistry } from "../services/DocumentRegistry.ts"
import { Documents } from "../services/Documents.ts"
import { Health } from "../services/Health.ts"
import { orderRunner } from "../services/OrderRunner.ts"
import { Orders } from "../services/Orders.ts"
import { PdfEngine } from "../services/PdfEngine.ts"
import { Renditions } from "../services/Renditions.ts"
import { Transformations } from "../services/Transformations.ts"
import { UrlFetcher } from "../services/UrlFetcher.ts"
import { listen } from "./Listen.ts"

/** The order workers and what each kind of order does. */
const OrderWorkersLive = Layer.unwrapEffect(
  Effect.all([Documents, Transformations, Comparisons]).pipe(
    Effect.map(([documents, transformations, comparisons]) =>
      orderRunner({
        conversion: (order) => documents.convert(order.documentId ?? ""),
        transformation: transformations.run,
        comparison: comparisons.run
      })
    )
  )
)

/** Every service of the broker, on the process's infrastructure (InfrastructureLive). */
export const BrokerServicesLive = Layer.mergeAll(Conversions.Default, Health.Default, OrderWorkersLive).pipe(
  Layer.provideMerge(Layer.mergeAll(Transformations.Default, Comparisons.Default)),
  Layer.provideMerge(Annotations.Default),
  Layer.provideMerge(Layer.mergeAll(Documents.Default, AnnotationPolicies.Default)),
  Layer.provideMerge(Layer.mergeAll(Renditions.Default, Containers.Default)),
  Layer.provideMerge(Layer.mergeAll(DocumentRegistry.Default, DerivedCache.Default, UrlFetcher.Default, Orders.Default, Converter.Default, AnnotationStore.Default)),
  Layer.provideMerge(Layer.mergeAll(BlobStore.FileSystemLive, PdfEngine.Default, OfficeConverter.Default))
)

/** The broker's routes and handlers; the services come from outside. */
const BrokerRoutesLive = HttpApiBuilder.api(BrokerApi).pipe(
  Layer.provide([DocumentsHttpLive, ConversionsHttpLive, ComparisonsHttpLive, TransformationsHttpLive, AnnotationsHttpLive, DocumentLoadingHttpLive, AdministrationHttpLive])
)

/** The broker's HTTP application, without a server or services (tests serve it on an ephemeral port). */
export const BrokerApp = HttpApiBuilder.serve((app) => HttpMiddleware.logger(errorBodies(brokerErrorShape)(app))).pipe(
  Layer.provide(internalErrors(BrokerApi, brokerErrorShape)),
  Layer.provide(HttpApiSwagger.layer({ path: "/swagger-ui/index.html" })),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/v3/api-docs" })),
  Layer.provide(BrokerRoutesLive)
)

export const BrokerLive = listen("BROKER", 8761, BrokerApp, BrokerServicesLive)
