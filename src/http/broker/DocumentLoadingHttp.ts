import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { UploadParams } from "../../schemas/broker/Document.ts"
import { Documents } from "../../services/broker/documents/Documents.ts"
import { BrokerApi } from "./Api.ts"

export const DocumentLoadingHttpLive = HttpApiBuilder.group(BrokerApi, "documentLoading", (handlers) =>
  Effect.gen(function*() {
    const documents = yield* Documents
    return handlers.handle("load", ({ payload }) =>
      documents.uploadFromUrl(payload.url, UploadParams.make({ failOnUnsupported: true, ...(payload.documentTitle ? { documentTitle: payload.documentTitle } : {}) })).pipe(
        // The broker chooses the ID here, so it cannot be taken already.
        Effect.catchTag("DocumentAlreadyExists", Effect.die)
      ))
  }))
