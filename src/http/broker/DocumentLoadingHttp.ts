import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { UploadParams } from "../../schemas/broker/Document.ts"
import { DocumentRegistration } from "../../services/broker/documents/DocumentRegistration.ts"
import { BrokerApi } from "./Api.ts"

export const DocumentLoadingHttpLive = HttpApiBuilder.group(
  BrokerApi,
  "documentLoading",
  (handlers) =>
    Effect.gen(function*() {
      const registration = yield* DocumentRegistration
      return handlers.handle("load", ({ payload }) =>
        registration.uploadFromUrl(
          payload.url,
          UploadParams.make({
            failOnUnsupported: true,
            ...(payload.documentTitle ? { documentTitle: payload.documentTitle } : {})
          })
        ).pipe(
          // The broker chooses the ID here, so it cannot be taken already.
          Effect.catchTag("DocumentAlreadyExists", Effect.die)
        ))
    })
)
