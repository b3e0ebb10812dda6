import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Annotations } from "../../services/broker/annotations/Annotations.ts"
import { octetStreamBody } from "../common/OctetStreamBody.ts"
import { BrokerApi } from "./Api.ts"

const MEDIA_TYPES = { FDF: "application/vnd.fdf", XFDF: "application/vnd.adobe.xfdf" } as const

export const AnnotationsHttpLive = HttpApiBuilder.group(BrokerApi, "annotations", (handlers) =>
  Effect.gen(function*() {
    const annotations = yield* Annotations
    return handlers
      .handle("list", ({ urlParams }) => annotations.list(urlParams.documentId))
      .handle("create", ({ payload, urlParams }) => annotations.create(urlParams.documentId, payload))
      .handle("update", ({ payload, urlParams }) => annotations.update(urlParams.documentId, payload))
      .handle("remove", ({ payload, urlParams }) => annotations.remove(urlParams.documentId, payload))
      .handle("policy", ({ urlParams }) => annotations.policy(urlParams.documentId))
      .handleRaw("convert", ({ request, urlParams }) =>
        octetStreamBody(request, `${urlParams.sourceType} file`).pipe(
          Effect.flatMap((body) =>
            annotations.convert(urlParams.documentId, urlParams.sourceType, urlParams.targetType, body)
          ),
          Effect.map((bytes) =>
            HttpServerResponse.uint8Array(bytes, { contentType: MEDIA_TYPES[urlParams.targetType] })
          )
        ))
  }))
