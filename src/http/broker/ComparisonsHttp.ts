import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Comparisons } from "../../services/broker/comparisons/Comparisons.ts"
import { BrokerApi } from "./Api.ts"

export const ComparisonsHttpLive = HttpApiBuilder.group(BrokerApi, "comparisons", (handlers) =>
  Effect.gen(function*() {
    const comparisons = yield* Comparisons
    return handlers
      .handle("request", ({ payload }) => comparisons.request(payload))
      .handle("list", () => comparisons.list)
      .handle("get", ({ path, urlParams }) => comparisons.get(path.comparisonOrderId, urlParams.timeoutMs))
      .handle("remove", ({ path }) => comparisons.remove(path.comparisonOrderId))
      .handle("removeAll", () => comparisons.removeAll)
      .handle("difference", ({ urlParams }) =>
        comparisons.difference(urlParams.leftDocumentId, urlParams.rightDocumentId))
  }))
