import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { create as createContentDisposition } from "content-disposition"
import { Effect } from "effect"
import { ProviderDocuments } from "../../services/provider/ProviderDocuments.ts"
import { ProviderApi } from "./Api.ts"

export const DocumentsHttpLive = HttpApiBuilder.group(ProviderApi, "documents", (handlers) =>
  Effect.gen(function*() {
    const documents = yield* ProviderDocuments
    return handlers.handle("fetch", ({ urlParams }) =>
      documents.open(urlParams).pipe(Effect.map((answer) =>
        answer._tag === "Folder"
          ? HttpServerResponse.unsafeJson(answer.folder)
          : HttpServerResponse.stream(answer.read, {
            contentType: answer.contentType,
            contentLength: answer.size,
            // `filename*` (RFC 8187) whenever the name is not ASCII: the title the broker shows.
            headers: { "content-disposition": createContentDisposition(answer.name, { type: "attachment" }) }
          })
      )))
  }))
