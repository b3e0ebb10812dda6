/**
 * Clients of the brokers, derived from the broker's own HttpApi definition: the viewer reaches a
 * broker only over HTTP, even when both run in one process, so brokers can move to other machines
 * without a code change. One client per target address, over keep-alive connections.
 */
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import { Duration, Effect } from "effect"
import { BrokerApi } from "../../../http/broker/Api.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import { make as makeNodeClient, makeAgents } from "../../common/NodeHttpClient.ts"

const makeClient = (baseUrl: string) => HttpApiClient.make(BrokerApi, { baseUrl })

/** A broker's endpoints, one method per endpoint of src/http/broker/Api.ts. */
export type BrokerClient = Effect.Effect.Success<ReturnType<typeof makeClient>>

/** A broker did not answer: refused, reset, or no answer within VIEWER_BROKER_TIMEOUT. */
export const isTransportFailure = (error: unknown): error is HttpClientError.RequestError =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RequestError"

export class BrokerClients extends Effect.Service<BrokerClients>()("docstack/viewer/BrokerClients", {
  scoped: Effect.gen(function*() {
    const agents = yield* makeAgents
    const timeout = yield* durationConfig("VIEWER_BROKER_TIMEOUT", Duration.minutes(2))
    const http = makeNodeClient(agents).pipe(
      // A call that gets no answer in time counts as a broker that does not answer (failover).
      HttpClient.transform((response, request) =>
        Effect.timeoutFail(response, {
          duration: timeout,
          onTimeout: () =>
            new HttpClientError.RequestError({
              request,
              reason: "Transport",
              description: `no answer within ${Duration.format(timeout)} (VIEWER_BROKER_TIMEOUT)`
            })
        })
      )
    )
    const clients = new Map<string, BrokerClient>()
    return {
      /** The client of the broker at `url`. */
      of: (url: string): BrokerClient => {
        let client = clients.get(url)
        if (client === undefined) {
          client = Effect.runSync(makeClient(url).pipe(Effect.provideService(HttpClient.HttpClient, http)))
          clients.set(url, client)
        }
        return client
      }
    }
  })
}) {}
