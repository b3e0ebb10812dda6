import type { HttpServerRequest } from "@effect/platform"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Stream } from "effect"
import { InvalidRequest } from "../../schemas/broker/Document.ts"
import { AnnotationProxy } from "../../services/broker/providers/AnnotationProxy.ts"
import { MetadataProxy } from "../../services/broker/providers/MetadataProxy.ts"
import { RegistryDocuments } from "../../services/broker/providers/RegistryDocuments.ts"
import { BrokerApi } from "./Api.ts"

/** Every query parameter of a request: the proxy forwards those its provider takes as who asks. */
const queryOf = (request: HttpServerRequest.HttpServerRequest) =>
  Object.fromEntries(new URL(request.url, "http://broker").searchParams)

export const ProvidersHttpLive = HttpApiBuilder.group(BrokerApi, "providers", (handlers) =>
  Effect.gen(function*() {
    const registry = yield* RegistryDocuments
    const proxy = yield* AnnotationProxy
    const metadata = yield* MetadataProxy
    return handlers
      .handleRaw("open", ({ headers, request }) =>
        registry.open(
          headers["x-provider-id"],
          request.headers["content-type"],
          request.stream.pipe(
            Stream.mapError((e) => new InvalidRequest({ message: `The parameters could not be read: ${e.message}` }))
          )
        ))
      .handle("openFolder", ({ headers, payload, request, urlParams }) =>
        registry.openTree(headers["x-provider-id"], payload, urlParams.documentId, queryOf(request)))
      .handle("updateMetadata", ({ path, payload, request }) =>
        metadata.update(path.documentId, payload, queryOf(request)))
      .handle("annotationIds", ({ path, request }) =>
        proxy.ids(path.documentId, queryOf(request)))
      .handle("annotation", ({ path, request }) =>
        proxy.get(path.documentId, path.annotationId, queryOf(request)))
      .handle("createAnnotation", ({ path, payload, request }) =>
        proxy.create(path.documentId, payload, queryOf(request)))
      .handle("updateAnnotation", ({ path, payload, request }) =>
        proxy.update(path.documentId, path.annotationId, payload, queryOf(request)))
      .handle("removeAnnotation", ({ path, request }) =>
        proxy.remove(path.documentId, path.annotationId, queryOf(request)))
  }))
