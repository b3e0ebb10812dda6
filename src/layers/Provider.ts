/**
 * The reference filesystem provider: the provider contract served over a folder of files, with
 * its OpenAPI at /v3/api-docs and the explorer at /swagger-ui/index.html. It keeps no database:
 * everything it knows is in its root folder (docs/reference-provider.md).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Layer } from "effect"
import { brokerErrorShape } from "../http/common/ErrorBodies.ts"
import { AnnotationsHttpLive } from "../http/provider/AnnotationsHttp.ts"
import { ProviderApi } from "../http/provider/Api.ts"
import { DocumentsHttpLive } from "../http/provider/DocumentsHttp.ts"
import { MetadataHttpLive } from "../http/provider/MetadataHttp.ts"
import { ProviderAnnotations } from "../services/provider/ProviderAnnotations.ts"
import { ProviderDocuments } from "../services/provider/ProviderDocuments.ts"
import { ProviderMetadata } from "../services/provider/ProviderMetadata.ts"
import { listen } from "./Listen.ts"
import { servedApi } from "./ServedApi.ts"

/** Every service of the provider, on the process's infrastructure (the file system, DATA_DIR). */
export const ProviderServicesLive = Layer.mergeAll(
  ProviderDocuments.Default,
  ProviderAnnotations.Default,
  ProviderMetadata.Default
)

const ProviderRoutesLive = HttpApiBuilder.api(ProviderApi).pipe(
  Layer.provide([DocumentsHttpLive, AnnotationsHttpLive, MetadataHttpLive])
)

/** The provider's HTTP application, without server or services (tests serve it on an ephemeral port). */
export const ProviderApp = servedApi({
  api: ProviderApi,
  // The broker reads a provider's errors as it writes its own: `{_tag, message}`.
  shape: brokerErrorShape,
  // Annotations and metadata are the only JSON bodies.
  bodyLimit: { name: "PROVIDER_MAX_JSON_BODY_BYTES", fallback: 4 * 1024 * 1024 },
  routes: ProviderRoutesLive
})

export const ProviderLive = listen("PROVIDER", 8762, ProviderApp, ProviderServicesLive)
