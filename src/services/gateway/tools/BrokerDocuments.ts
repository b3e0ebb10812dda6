/**
 * The broker as the gateway's document tools reach it: a client derived from the broker's own
 * HttpApi (as the viewer's), at GATEWAY_BROKER_URL, each call bounded by GATEWAY_BROKER_TIMEOUT.
 * Over HTTP even when both run in one process, so the broker can move to another machine.
 */
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { Config, Duration, Effect } from "effect"
import { BrokerApi } from "../../../http/broker/Api.ts"
import { PageImageDescriptor } from "../../../schemas/broker/PageImage.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import { make as makeNodeClient, makeAgents } from "../../common/NodeHttpClient.ts"
import { ToolFailed } from "./GatewayTool.ts"

export const BrokerDocumentsConfig = Config.all({
  url: Config.string("GATEWAY_BROKER_URL").pipe(Config.withDefault("http://127.0.0.1:8761")),
  timeout: durationConfig("GATEWAY_BROKER_TIMEOUT", "30 seconds")
})

/** A broker failure as the model reads it: the broker's own message (a page out of range, an unknown document). */
const describe = (error: unknown) => {
  const e = error as { readonly message?: unknown; readonly _tag?: unknown }
  return typeof e.message === "string" && e.message.length > 0 ? e.message : String(e._tag ?? error)
}

export class BrokerDocuments extends Effect.Service<BrokerDocuments>()("gateway/BrokerDocuments", {
  scoped: Effect.gen(function*() {
    const settings = yield* BrokerDocumentsConfig
    const client = yield* HttpApiClient.make(BrokerApi, { baseUrl: settings.url }).pipe(
      Effect.provideService(HttpClient.HttpClient, makeNodeClient(yield* makeAgents))
    )
    /** A broker call, its failure a ToolFailed naming what was asked. */
    const ask = <A, E>(what: string, call: Effect.Effect<A, E>) =>
      call.pipe(
        Effect.timeoutFail({
          duration: settings.timeout,
          onTimeout: () =>
            new ToolFailed({
              message: `${what}: the broker gave no answer within ${Duration.format(settings.timeout)}`
            })
        }),
        Effect.mapError((
          error
        ) => (error instanceof ToolFailed ? error : new ToolFailed({ message: `${what}: ${describe(error)}` })))
      )
    const documents = client.documents
    return {
      url: settings.url,
      metadata: (documentId: string) => ask(`Document '${documentId}'`, documents.metadata({ path: { documentId } })),
      layout: (documentId: string) => ask(`The layout of '${documentId}'`, documents.layout({ path: { documentId } })),
      bookmarks: (documentId: string) =>
        ask(`The outline of '${documentId}'`, documents.bookmarks({ path: { documentId } })),
      pageText: (documentId: string, page: number) =>
        ask(`Page ${page + 1} of '${documentId}'`, documents.pageTextPositions({ path: { documentId, page } })),
      search: (documentId: string, searchText: string) =>
        ask(
          `Searching '${documentId}'`,
          documents.searchDocument({
            path: { documentId },
            urlParams: { searchText, fromPage: 0, caseSensitive: false, accentSensitive: false, regex: false }
          })
        ),
      /** The page as PNG, `width` pixels wide. */
      pageImage: (documentId: string, page: number, width: number) =>
        ask(
          `The image of page ${page + 1} of '${documentId}'`,
          documents.pageImage({
            path: { documentId, page },
            urlParams: { pageImageDescription: new PageImageDescriptor({ width, rotation: 0, filters: [] }) }
          })
        )
    }
  })
}) {}
